"""Chapter 12 calculations: edge device registry, fit, decode/prefill bounds, energy, network,
cascades and cost per token."""
import json
import math

import pytest

from calculations import edge_compute, device, formulas, hardware, models
from calculations.calc import main

Q8 = models.get("qwen3-8b")


def test_registry_has_every_kind_with_sources():
    devs = device.devices()
    assert {d.kind for d in devs} == {"phone", "laptop", "gpu", "edge"}
    for d in devs:
        assert d.sources and all(s.get("url", "").startswith("http") and s.get("title") for s in d.sources)
        assert d.power_w > 0 and d.bandwidth_gb_s > 0 and 0 < d.os_reserve_gb < d.memory_gb
        assert d.usable_bytes < d.memory_bytes
    assert device.ids() == [d.id for d in devs]
    assert device.get("M4-MAX").id == "m4-max"
    with pytest.raises(device.DeviceError):
        device.get("m4-maxx")


def test_registry_agrees_with_hardware_json_and_cited_facts():
    m4, g = device.get("m4-max"), device.get("rtx-4090")
    hm4, hg = hardware.get("m4-max"), hardware.get("rtx-4090")
    assert m4.bandwidth == 546e9 and m4.bandwidth == pytest.approx(hm4.hbm_bandwidth) and m4.memory_bytes == hm4.hbm_bytes
    assert g.bandwidth == pytest.approx(hg.hbm_bandwidth) and g.memory_bytes == hg.hbm_bytes
    assert g.prefill_peak == hg.peak_flops("bf16") and g.power_w == hg.tdp_w
    orin = device.get("orin-agx-64")
    assert orin.bandwidth_gb_s == 204.8 and orin.npu_tops_headline == 275
    # one convention: dense FP16 on the GPU; the 275 headline is sparse INT8 over GPU and DLAs
    assert orin.prefill_tops == edge_compute.dense_fp16_from_sparse_int8(171) == 42.75
    assert orin.prefill_tops < orin.npu_tops_headline / 4
    assert device.get("orin-nano-super").prefill_tops == 67 / 4                # GPU only, no DLA
    assert device.get("a17-pro").prefill_tops < device.get("m4-max").prefill_tops  # GPU, not the NPU headline
    assert device.get("sd8-elite").bandwidth_gb_s == pytest.approx(10600e6 * 8 / 1e9)
    with pytest.raises(device.DeviceError):
        device.get("sd8-elite").prefill_peak                        # no published TOPS
    assert device.cloud_price()["h100_usd_per_gpu_hour"] == 3.99


def test_quantized_bits_and_bytes_count_the_scales():
    assert device.quantized_bits_per_weight(4, 128, 16) == 4.125
    assert device.quantized_bits_per_weight(4, 32, 16, 16) == 5.0
    w = device.quantized_weight_bytes(Q8, 4, 128)
    assert w == math.ceil((Q8.params_total * 4 + math.ceil(Q8.params_total / 128) * 16) / 8)
    assert w > Q8.params_total // 2                                  # scales are not free
    assert abs(w / Q8.params_total - 4.125 / 8) < 1e-6
    with pytest.raises(device.DeviceError):
        device.quantized_bits_per_weight(0)


def test_decode_bytes_per_token_parts_and_whole():
    b = device.decode_bytes_per_token(Q8, 2048)
    assert b["total"] == b["weights"] + b["embedding_rows"] + b["kv"]
    assert b["kv"] == 2048 * formulas.kv_bytes_per_token(Q8, "fp16")
    assert b["weights"] < device.quantized_weight_bytes(Q8)          # input embedding not read
    assert device.decode_bytes_per_token(Q8, 0)["kv"] == 0
    b2 = device.decode_bytes_per_token(Q8, 2048, batch=2)
    assert b2["kv"] == 2 * b["kv"] and b2["weights"] == b["weights"]


def test_fit_and_max_context():
    f = device.fit("m4-max", Q8, 2048)
    assert f.fits and f.total_bytes == f.weight_bytes + f.kv_bytes + f.activation_bytes + f.reserve_bytes
    assert f.max_context > 100_000
    big = models.get("llama-3.1-70b")
    assert not device.fit("rtx-4090", big, 4096).fits
    assert device.fit("rtx-4090", big, 4096).max_context == 0
    assert device.fit("a17-pro", Q8, 2048).fits and not device.fit("a17-pro", Q8, 32768).fits
    # BF16 8B does not fit a phone
    assert not device.fit("sd8-elite", Q8, 2048, bits=16).fits


def test_speed_energy_network():
    assert device.decode_tokens_per_s(546e9, 4.2e9) == pytest.approx(130, rel=1e-3)
    assert device.decode_tokens_per_s(100, 10, 0.5) == 5
    assert device.prefill_time_s(2e12, 1e12, 0.5) == 4
    assert device.energy_per_token_j(60, 0.01) == pytest.approx(0.6)
    assert device.tokens_per_wh(0.5) == 7200
    assert device.upload_time_s(1e6, 8e6) == 1
    assert device.cloud_ttft_s(0.05, 0.03, 0.01, 1e6, 8e6, 0.005) == pytest.approx(1.095)
    with pytest.raises(device.DeviceError):
        device.cloud_ttft_s(0.05, 0.03, upload_bytes=10)
    with pytest.raises(device.DeviceError):
        device.decode_tokens_per_s(1, 1, 1.5)


def test_on_device_matches_its_parts():
    r = device.on_device("m4-max", Q8, 2048)
    b = device.decode_bytes_per_token(Q8, 2048)["total"]
    assert r.bytes_per_token == b and r.decode_tokens_per_s == 546e9 / b
    assert r.prefill_flops == formulas.prefill_flops(Q8, 2048)
    assert r.prefill_s == pytest.approx(r.prefill_flops / 16.2e12)
    assert r.joules_per_token == pytest.approx(60 / r.decode_tokens_per_s)
    assert r.battery_tokens == pytest.approx(r.tokens_per_wh * 100)
    assert device.on_device("sd8-elite", Q8).prefill_s is None


def test_cascade_and_break_even():
    c = device.cascade(0.3, 1, 10, 0.5, 1.2)
    assert c.cost == pytest.approx(4) and c.latency_s == pytest.approx(0.86)
    d = device.cascade_break_even(1, 10)
    assert d == pytest.approx(0.9)
    assert device.cascade(d, 1, 10, 0, 0).cost == pytest.approx(10)
    assert device.cascade_break_even(5, 2) == 0
    with pytest.raises(device.DeviceError):
        device.cascade(1.2, 1, 1, 1, 1)


def test_draft_verify():
    assert device.draft_verify_tokens_per_round(0, 4) == 1
    assert device.draft_verify_tokens_per_round(1, 4) == 5
    assert device.draft_verify_tokens_per_round(0.8, 4) == pytest.approx(sum(0.8 ** i for i in range(5)))
    assert device.draft_verify_tokens_per_s(0.8, 4, 0.01, 0.05, 0.02) == pytest.approx(
        sum(0.8 ** i for i in range(5)) / 0.11)


def test_costs():
    assert device.cloud_cost_per_token(3.6, 1000) == pytest.approx(1e-6)
    assert device.cloud_cost_per_token(3.6, 1000, 0.5) == pytest.approx(2e-6)
    assert device.device_cost_per_token(1000, 1e9) == pytest.approx(1e-6)
    # 100 W at 100 tokens/s = 1 J/token = 1/3.6e6 kWh
    assert device.device_cost_per_token(0, 1, 100, 100, 0.36) == pytest.approx(1e-7)
    with pytest.raises(device.DeviceError):
        device.device_cost_per_token(0, 1, 100, None, 0.3)


def test_cli(capsys):
    assert main(["devices", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == device.ids()
    assert main(["on-device", "--device", "m4-max", "--format", "json"]) == 0
    r = json.loads(capsys.readouterr().out)[0]
    assert r["fits"] and abs(r["decode_tokens_per_s"] - device.on_device("m4-max", Q8).decode_tokens_per_s) < 1e-9
    assert main(["cascade", "--defer", "0.3", "--local-cost", "1", "--cloud-cost", "10", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "break_even_cost" in out and "0.9" in out
    with pytest.raises(SystemExit) as e:
        main(["on-device", "--device", "nope"])
    assert e.value.code == 2
    with pytest.raises(SystemExit):
        main(["cascade", "--defer", "2", "--cloud-cost", "1"])


def test_cascade_with_early_deferral():
    # answered locally in 3 s; deferral decided after 1 s; cloud takes 5 s
    c = device.cascade(0.4, 0, 1, 3, 5, defer_after_s=1)
    assert c.latency_s == pytest.approx(0.6 * 3 + 0.4 * 6)
    d = device.cascade_latency_break_even(3, 5, 1)
    assert d == pytest.approx(2 / 3)
    assert device.cascade(d, 0, 1, 3, 5, defer_after_s=1).latency_s == pytest.approx(5)
    assert device.cascade_latency_break_even(6, 5) is None          # local alone is slower
    assert device.cascade(0.5, 1, 10, 0, 0, defer_cost=0.2).cost == pytest.approx(0.5 + 0.5 * 10.2)
