"""Chapter 9: distributed inference formulas (calculations/distributed.py)."""
import json
import math

import pytest

from calculations import distributed as D, formulas, hardware, models
from calculations.calc import main

DSV3 = models.get("deepseek-v3")
QWEN = models.get("qwen3-8b")


def test_gbit_and_tiers():
    assert D.gbit_s(400) == 50e9
    ids = [t.id for t in D.storage_tiers()]
    assert ids == ["nvme-gen4", "nvme-gen5", "parallel-fs-client", "pcie-gen5-x16", "rdma-400g"]
    for t in D.storage_tiers():
        assert t.source_url.startswith("https://") and t.source_title
        assert t.scope in ("drive", "node", "gpu")
    assert D.storage_tier("rdma-400g").bandwidth == D.gbit_s(400)
    with pytest.raises(D.DistributedError):
        D.storage_tier("floppy")


def test_storage_derived_values_match_their_sources():
    data = json.load(open(D.STORAGE_FILE))
    fs = next(t for t in data["tiers"] if t["id"] == "parallel-fs-client")
    per_client = fs["aggregate_tib_s"] * 2**40 / fs["clients"] / 1e9
    assert abs(per_client - fs["bandwidth_gb_s"]) < 0.05
    assert fs["bandwidth_gb_s"] < fs["client_nic_gbit_s"] / 8       # below the NIC cap
    pcie = next(t for t in data["tiers"] if t["id"] == "pcie-gen5-x16")
    assert pcie["bandwidth_gb_s"] * 2 == pcie["bidirectional_gb_s"]
    nic = next(t for t in data["tiers"] if t["id"] == "rdma-400g")
    assert nic["bandwidth_gb_s"] == nic["line_rate_gbit_s"] / 8


def test_tp_allreduce_matches_decode_step_comm():
    # formulas.decode_step adds the same two ring all-reduces per layer
    h = hardware.get("h100")
    d = formulas.decode_step(QWEN, batch=8, context=1024, hw=h, devices=4)
    assert abs(D.tp_allreduce_time(QWEN, 4, 8, h.link_unidirectional) - d.comm_time_s) < 1e-15
    assert D.tp_allreduce_time(QWEN, 1, 8, h.link_unidirectional) == 0.0
    # latency term: 2 all-reduces x L layers x 2(n-1) hops
    extra = D.tp_allreduce_time(QWEN, 4, 8, 1e30, latency_s=1e-6)
    assert abs(extra - QWEN.num_layers * 2 * 6 * 1e-6) < 1e-12


def test_pp_bubble_and_latency():
    assert D.pp_bubble_fraction(1, 1) == 0
    assert D.pp_bubble_fraction(4, 1) == 0.75
    assert abs(D.pp_bubble_fraction(4, 100) - 3 / 103) < 1e-12
    r = D.pp_decode(0.04, 4, 4, hop_s=1e-5)
    assert r["latency_s"] > 0.04                 # latency never falls with PP
    assert r["throughput_gain"] == 4 and r["utilization"] == 1
    assert D.pp_decode(0.04, 4, 2)["utilization"] == 0.5
    assert D.pp_handoff_bytes_per_step(DSV3, 4, 1) == 3 * 7168 * 2


def test_ep_bytes_and_per_token_table():
    b = D.ep_a2a_bytes_per_step(DSV3, 320, 1)
    assert abs(b - 58 * 8 * 7168 * 3 * 319 / 320) < 1e-6
    assert D.ep_a2a_bytes_per_step(DSV3, 1, 1) == 0
    rows = {r["form"]: r for r in D.per_token_comm(DSV3, 8, 8, 8)}
    assert set(rows) == {"TP", "PP", "EP", "DP"} and rows["DP"]["bytes"] == 0
    # per token, TP moves more than PP (every layer vs every stage boundary)
    assert rows["TP"]["bytes"] > rows["PP"]["bytes"]
    with pytest.raises(D.DistributedError):
        D.ep_a2a_bytes_per_step(QWEN, 8, 1)


def test_weight_split_parts_sum_to_whole():
    s = D.weight_split(DSV3)
    assert s["routed"] + s["replicated"] == DSV3.params_total
    assert s["routed"] == DSV3.param_breakdown()["routed_experts"]
    assert s["replicated"] < s["routed"] / 30      # experts are ~97% of DeepSeek-V3


def test_ep_decode_trends():
    h = "h100"
    rs = [D.ep_decode(DSV3, h, ep, 64, 4096) for ep in (16, 32, 64, 144, 320)]
    w = [r.weight_bytes_per_gpu for r in rs]
    assert w == sorted(w, reverse=True)                         # weights per GPU fall with EP
    assert all(r.weight_read_bytes <= r.weight_bytes_per_gpu for r in rs)   # a part never exceeds its whole
    assert all(r.bytes_read == r.weight_read_bytes + r.kv_read_bytes for r in rs)
    a = [r.a2a_bytes for r in rs]
    assert a == sorted(a) and a[-1] / a[0] < 1.07               # all-to-all per GPU ~flat in EP
    assert rs[-1].tpot_s < rs[0].tpot_s
    r = rs[-1]
    assert r.tpot_overlap_s == max(r.gpu_s, r.a2a_s) and r.tpot_s == r.gpu_s + r.a2a_s
    # 671B FP8 cannot sit on 8 x 80 GB
    assert not D.ep_decode(DSV3, h, 8, 1, 0).fits
    # imbalance scales the traffic and the expert FLOPs of the hot GPU
    hot = D.ep_decode(DSV3, h, 320, 64, 4096, imbalance=1.5)
    assert abs(hot.a2a_bytes - 1.5 * r.a2a_bytes) < 1e-6
    assert hot.flops > r.flops
    with pytest.raises(D.DistributedError):
        D.ep_decode(DSV3, h, 32, 64, 4096, imbalance=0.5)


def test_experts_hit_fraction():
    assert D.experts_hit_fraction(0, 256, 8) == 0
    assert D.experts_hit_fraction(1, 256, 8) == pytest.approx(8 / 256)
    assert D.experts_hit_fraction(10000, 256, 8) > 0.999999


def test_disaggregation_break_even():
    h = hardware.get("h100")
    r = D.disaggregation(DSV3, h, 4096, D.gbit_s(400))
    assert r.kv_bytes == 4096 * 70272                            # MLA latent, BF16
    assert abs(r.transfer_s - r.kv_bytes / 50e9) < 1e-15
    assert abs(r.recompute_s - formulas.prefill_flops(DSV3, 4096) / h.peak_flops("fp8")) < 1e-12
    # at the break-even bandwidth the two times are equal
    r2 = D.disaggregation(DSV3, h, 4096, r.breakeven_bw)
    assert abs(r2.transfer_s - r2.recompute_s) < 1e-12
    # a GQA dense model needs more link per FLOP than MLA
    q = D.disaggregation(QWEN, h, 4096, D.gbit_s(400), dtype="bf16")
    assert q.breakeven_bw > r.breakeven_bw


def test_colocated_tpot():
    c = D.colocated_tpot(0.03, 0.15, 2.0)
    assert c["prefill_share"] == pytest.approx(0.3)
    assert c["avg_tpot_s"] == pytest.approx(0.03 / 0.7)
    assert c["worst_tpot_s"] == pytest.approx(0.18)
    with pytest.raises(D.DistributedError):
        D.colocated_tpot(0.03, 0.5, 2.0)


def test_expert_placement():
    flat = D.place_experts(D.zipf_loads(256, 0), 32)
    assert flat["max_over_mean"] == pytest.approx(1.0)
    skew = D.zipf_loads(256, 0.8)
    assert sum(skew) / 256 == pytest.approx(1.0)
    r0 = D.place_experts(skew, 32, 0)["max_over_mean"]
    r32 = D.place_experts(skew, 32, 32)
    assert r0 > 1.5 and r32["max_over_mean"] < r0
    assert sum(r32["replicas"]) == 256 + 32 and r32["slots_per_gpu"] == 9
    assert D.binomial_max_over_mean(10**9, 256, 8) < 1.001
    assert D.binomial_max_over_mean(100, 256, 8) > D.binomial_max_over_mean(10000, 256, 8)


def test_cold_start():
    nbytes = DSV3.params_total                                   # FP8: one byte per parameter
    one = D.cold_start(nbytes / 8, "nvme-gen5", gpus_per_node=8, drives_per_node=1)
    assert abs(one["time_s"] - nbytes / 14e9) < 1e-9
    four = D.cold_start(nbytes / 8, "nvme-gen5", gpus_per_node=8, drives_per_node=4)
    assert four["read_s"] == pytest.approx(one["read_s"] / 4)
    peer = D.cold_start(nbytes / 8, "rdma-400g")
    assert peer["h2d_s"] == 0 and peer["node_bw"] == 8 * 50e9
    # when storage is fast enough, PCIe becomes the limit
    fast = D.cold_start(10e9, "nvme-gen5", drives_per_node=100)
    assert fast["time_s"] == fast["h2d_s"] == pytest.approx(10e9 / 64e9)


def test_failure_redo():
    h = hardware.get("h100")
    r = D.failure_redo(DSV3, h, 4096, 1000, tpot_s=0.05)
    assert r["kv_lost_bytes"] == 5096 * 70272
    assert r["redo_prefill_s"] == pytest.approx(formulas.prefill_flops(DSV3, 5096) / h.peak_flops("fp8"))
    assert r["regenerate_s"] > 100 * r["redo_prefill_s"]
    rate = D.LLAMA3_UNEXPECTED_INTERRUPTIONS / (D.LLAMA3_GPUS * D.LLAMA3_DAYS * 24)
    assert D.unit_mtbf_hours(320) == pytest.approx(1 / (320 * rate))
    assert D.unit_failure_rate_per_hour(320) < 320 * rate       # 1-(1-p)^n <= n p
    assert D.unit_mtbf_hours(16384) * 54 * 24 / 54 / 24 == pytest.approx(54 * 24 / 419)


@pytest.mark.parametrize("cmd", [
    ["ep-decode", "--ep", "32,320", "--batch", "64"],
    ["disaggregation", "--prompt", "4096"],
    ["cold-start", "--ep", "320"],
    ["expert-balance", "--redundant", "0,32"],
    ["failure-redo"],
])
@pytest.mark.parametrize("fmt", ["text", "md", "csv", "json"])
def test_cli(cmd, fmt, capsys):
    assert main(cmd + ["--format", fmt]) == 0
    out = capsys.readouterr().out
    assert out.strip()
    if fmt == "json":
        json.loads(out)


def test_cli_json_values(capsys):
    main(["disaggregation", "--prompt", "4096", "--format", "json"])
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["kv_bytes"] == 4096 * 70272
    for bad in (["ep-decode", "--ep", "0"], ["cold-start", "--gpus", "0"], ["failure-redo", "--prompt", "-1"],
                ["expert-balance", "--gpus", "x"]):
        with pytest.raises(SystemExit) as e:
            main(bad)
        assert e.value.code == 2


def test_ep_decode_fit_check_counts_the_share_an_engine_leaves_usable():
    """80 GiB is 85.9 GB, but an engine keeps part of it (vLLM's default 0.9): EP=16 with 64
    sequences of 4989 tokens fits the raw capacity and not the usable share."""
    h = hardware.get("h100")
    raw = D.ep_decode(DSV3, h, 16, 64, 4989)
    usable = D.ep_decode(DSV3, h, 16, 64, 4989, usable=0.9)
    assert raw.fits and raw.capacity_bytes == h.hbm_bytes
    assert not usable.fits and usable.capacity_bytes == int(h.hbm_bytes * 0.9)
    with pytest.raises(D.DistributedError, match="usable is a share"):
        D.ep_decode(DSV3, h, 16, 64, 4989, usable=1.5)
