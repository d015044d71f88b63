import json

import pytest

from calculations import formulas, hardware, models

FACTS = "/work/shared/reference/hardware-facts.json"


def test_every_fact_device_registered():
    import os
    if not os.path.exists(FACTS):
        pytest.skip("facts not available")
    names = {d.name for d in hardware.all()}
    for name in json.load(open(FACTS))["devices"]:
        assert name in names


@pytest.mark.parametrize("hid", ["a100", "h100", "h200", "b200", "gb200", "mi300x", "mi325x",
                                 "tpu-v5e", "tpu-v5p", "tpu-v6e", "rtx-4090"])
def test_short_ids_have_sources(hid):
    h = hardware.get(hid)
    assert h.sources
    assert h.hbm_bytes > 0 and h.hbm_bandwidth > 0
    assert h.peak_tflops("bf16") > 0


def test_units():
    h = hardware.get("h100")
    assert h.hbm_bytes == 80 * 2 ** 30 and isinstance(h.hbm_bytes, int)   # 80 GiB: HBM capacity is binary
    assert h.hbm_bandwidth == 3.35e12
    assert h.tdp_w == 700


def test_missing_figures_are_errors_not_guesses():
    with pytest.raises(hardware.HardwareError, match="fp8"):
        hardware.get("a100").peak_tflops("fp8")
    with pytest.raises(hardware.HardwareError):
        hardware.get("m3-max").peak_tflops("bf16")
    with pytest.raises(hardware.HardwareError):
        hardware.get("rtx-4090").link_unidirectional


def test_unknown_hardware_suggests():
    with pytest.raises(hardware.UnknownHardware, match="h100"):
        hardware.get("h10")


def test_user_hardware_file(tmp_path):
    p = tmp_path / "dev.json"
    p.write_text(json.dumps({"id": "my-gpu", "peak_tflops": {"bf16": {"dense": 100}, "fp8": 200},
                             "memory_gb": 48, "memory_tb_s": 1.0,
                             "scaleup": {"name": "PCIe", "unidirectional_gb_s": 32, "bidirectional_gb_s": 64},
                             "sources": {"all": "my datasheet"}}))
    h = hardware.load(str(p))
    assert h.ridge_point("bf16") == pytest.approx(100.0)
    assert h.peak_tflops("fp8") == 200 and h.link_unidirectional == 32e9
    d = formulas.decode_step(models.get("qwen3-0.6b"), 1, 100, h)
    assert d.bound == "memory"


def test_roofline_efficiency_and_bound():
    h = hardware.get("h100")
    t, b = formulas.roofline_time(0, 3.35e12, h)
    assert (t, b) == (pytest.approx(1.0), "memory")
    t, b = formulas.roofline_time(0, 3.35e12, h, memory_eff=0.5)
    assert t == pytest.approx(2.0)
    with pytest.raises(formulas.FormulaError):
        formulas.roofline_time(1, 1, h, compute_eff=1.5)


def test_decode_memory_bound_qwen3_8b():
    m = models.get("qwen3-8b")
    d = formulas.decode_step(m, 1, 8192, "h100")
    assert d.bound == "memory"
    # at least weights + KV over bandwidth
    floor = (m.params_total - m.params_embedding) * 2 / 3.35e12
    assert d.time_s >= floor
    assert d.tokens_per_s == pytest.approx(1 / d.time_s)


def test_memory_and_train():
    m = models.get("llama-3.1-70b")
    p = formulas.memory_plan(m, "h100", devices=1)
    assert not p.fits and p.max_batch == 0
    p = formulas.memory_plan(m, "h100", devices=2, context=8192)
    assert p.fits and p.max_batch >= 1
    z = [formulas.train_memory_per_device(m, 8, s)["total_bytes"] for s in range(4)]
    assert z[0] == 16 * m.params_total
    assert z[0] > z[1] > z[2] > z[3] == -(-2 * m.params_total // 8) * 2 + -(-12 * m.params_total // 8)
    assert formulas.train_flops(10, 3) == 180


def test_binary_capacity_and_vendor_figures():
    """H100/A100 80 GB are 80 GiB (a fit check against 80e9 bytes is 7 % short); a device file
    may give either unit but not two that disagree; MI325X and TPU v5p carry the vendors' figures."""
    for hid in ("h100", "a100"):
        h = hardware.get(hid)
        assert h.memory_gib == 80 and h.hbm_bytes == 85_899_345_920
        assert h.memory_gb == pytest.approx(85.899345920)
    assert hardware.get("h200").memory_gib is None            # decimal where the vendor means GB
    d = hardware.from_dict({"id": "x", "memory_gib": 16, "memory_tb_s": 1})
    assert d.hbm_bytes == 16 * 2 ** 30
    assert hardware.from_dict({"id": "y", "memory_gib": 16, "memory_gb": 17.18}).hbm_bytes == 16 * 2 ** 30
    with pytest.raises(hardware.HardwareError, match="memory_gb 16 and memory_gib 16 disagree"):
        hardware.from_dict({"id": "z", "memory_gib": 16, "memory_gb": 16})
    mi = hardware.get("mi325x")
    assert (mi.peak_tflops("bf16"), mi.peak_tflops("fp8")) == (1307.4, 2614.9)
    v5p = hardware.get("tpu-v5p")
    assert v5p.hbm_bytes == 95 * 10 ** 9 and v5p.hbm_bandwidth == 2.765e12
