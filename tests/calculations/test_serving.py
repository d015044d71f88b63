"""calculations/serving.py (chapter 8): one serving instance."""
import json
import math
import os
import subprocess

import pytest

from calculations import formulas, hardware, models, serving as s

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CALC = os.path.join(ROOT, "calculations", "calc.py")
Q8 = models.get("qwen3-8b")
Q06 = models.get("qwen3-0.6b")
H100 = hardware.get("h100")


def test_decode_point_is_formulas_decode_step():
    p = s.decode_point(Q8, H100, 32, 4096)
    d = formulas.decode_step(Q8, 32, 4096, H100)
    assert p["step_time_s"] == d.time_s and p["tokens_per_s"] == 32 / d.time_s
    assert p["weight_bytes"] < Q8.params_total * 2  # bytes read per step < resident weights (no embedding table)


def test_step_time_grows_and_throughput_saturates():
    curve = s.decode_curve(Q8, H100, 8192, [1, 2, 4, 8, 16, 32, 64])
    times = [r["step_time_s"] for r in curve]
    assert all(a < b for a, b in zip(times, times[1:]))
    # weights are shared: per-sequence marginal cost is the KV read, so throughput grows but sub-linearly
    tps = [r["tokens_per_s"] for r in curve]
    assert all(a < b for a, b in zip(tps, tps[1:]))
    assert tps[-1] / tps[0] < 64 / 4


def test_max_batch_memory_matches_memory_plan():
    for c in (1024, 8192):
        assert s.max_batch_memory(Q8, H100, c, usable_fraction=0.9) == formulas.memory_plan(
            Q8, H100, context=c, usable_fraction=0.9).max_batch


def test_max_batch_tpot_is_the_boundary():
    b = s.max_batch_tpot(Q8, H100, 8192, 0.05)
    assert formulas.decode_step(Q8, b, 8192, H100).time_s <= 0.05 < formulas.decode_step(Q8, b + 1, 8192, H100).time_s
    assert s.max_batch_tpot(Q8, H100, 8192, 1e-4) == 0


def test_memory_binds_at_long_context_tpot_at_tight_slo():
    lim = s.batch_limits(Q8, H100, 8192, 0.05, usable_fraction=0.9)
    assert lim["binding"] == "memory" and lim["max_batch"] == lim["max_batch_memory"]
    # memory-full step time cannot exceed reading usable HBM once (memory-bound regime)
    assert lim["step_time_s"] < 0.9 * H100.hbm_bytes / H100.hbm_bandwidth
    tight = s.batch_limits(Q8, H100, 8192, 0.015, usable_fraction=0.9)
    assert tight["binding"] == "tpot" and tight["max_batch"] < lim["max_batch"]


def test_mixed_step_reduces_to_decode_and_prefill():
    assert s.mixed_step(Q8, H100, 16, 4096, 0)["time_s"] == pytest.approx(
        formulas.decode_step(Q8, 16, 4096, H100).time_s, rel=1e-12)
    assert s.mixed_step(Q8, H100, 0, 4096, 512)["time_s"] == pytest.approx(
        formulas.forward(Q8, 512, hw=H100).totals.time_s, rel=1e-12)
    both = s.mixed_step(Q8, H100, 16, 4096, 512)
    apart = formulas.decode_step(Q8, 16, 4096, H100).time_s + formulas.forward(Q8, 512, hw=H100).totals.time_s
    assert both["time_s"] < apart  # weights are read once


def test_max_chunk_boundary_and_prefill_steps():
    c = s.max_chunk(Q8, H100, 32, 4096, 0.05)
    assert c > 0
    assert s.mixed_step(Q8, H100, 32, 4096, c)["time_s"] <= 0.05 < s.mixed_step(Q8, H100, 32, 4096, c + 1)["time_s"]
    p = s.prefill_steps(Q8, H100, 8192, c, 32, 4096)
    assert p["steps"] == math.ceil(8192 / c)
    assert max(p["step_times_s"]) > 0.05  # later chunks attend to more context and overshoot
    q = s.prefill_steps(Q8, H100, 8192, c, 32, 4096, tpot_s=0.05)
    assert max(q["step_times_s"]) <= 0.05 and q["steps"] >= p["steps"]
    assert q["ttft_s"] == pytest.approx(sum(q["step_times_s"]))
    assert s.max_chunk(Q8, H100, 32, 4096, 1e-4) == 0


def test_paged_waste():
    r = s.paged_kv_waste([1, 16, 17, 100], block=16, reserve=128)
    assert r["used_tokens"] == 134 and r["paged_tokens"] == 16 + 16 + 32 + 112
    assert r["contiguous_tokens"] == 512
    assert r["paged_waste"] == pytest.approx(42 / 176)
    # waste per sequence is below one block
    lengths = list(range(1, 2049))
    r = s.paged_kv_waste(lengths, block=16, reserve=2048)
    assert r["paged_tokens"] - r["used_tokens"] < 16 * len(lengths)
    assert r["contiguous_waste"] == pytest.approx(1 - (2049 / 2) / 2048)
    with pytest.raises(s.ServingError):
        s.paged_kv_waste([3000], 16, 2048)


def test_prefix_cache():
    r = s.prefix_cache(Q8, 2000, 1500, hit_rate=1.0, hw=H100)
    assert r["flops_hit"] == formulas.forward(Q8, 500, context=1500).totals.flops
    # the suffix still attends to the prefix, so less than the prefix share is saved
    assert 0 < r["saved_fraction_hit"] < r["prefix_fraction"]
    half = s.prefix_cache(Q8, 2000, 1500, hit_rate=0.5)
    assert half["saved_fraction_expected"] == pytest.approx(0.5 * r["saved_fraction_hit"])
    assert r["ttft_hit_s"] < r["ttft_miss_s"]


def test_offload_break_even():
    o = s.offload(Q8, H100, 4096)
    assert o["kv_bytes"] == formulas.kv_cache_bytes(Q8, 4096)
    assert o["load_s"] == o["kv_bytes"] / s.PCIE5_X16_UNIDIRECTIONAL
    assert o["winner"] == "load"
    bw = s.offload_breakeven_bandwidth(Q8, H100, 4096)
    assert s.offload(Q8, H100, 4096, bw * 0.99)["winner"] == "recompute"
    assert s.offload(Q8, H100, 4096, bw * 1.01)["winner"] == "load"
    # recompute grows faster than linearly (attention), so the break-even bandwidth falls with context
    assert s.offload_breakeven_bandwidth(Q8, H100, 65536) < bw


def test_quantized_decode():
    b = s.quantized_decode(Q8, H100, 1, 4096, "bf16", "bf16")
    assert b["step_time_s"] == formulas.decode_step(Q8, 1, 4096, H100).time_s
    assert b["max_batch"] == formulas.memory_plan(Q8, H100, context=4096).max_batch
    f8 = s.quantized_decode(Q8, H100, 1, 4096, "fp8", "fp8")
    assert f8["resident_weight_bytes"] * 2 == b["resident_weight_bytes"]
    assert f8["step_time_s"] < b["step_time_s"] and f8["max_batch"] > b["max_batch"]
    mx, nv, i4 = (s.quantized_decode(Q8, H100, 1, 4096, w) for w in ("mxfp4", "nvfp4", "int4-g128"))
    assert i4["bits_per_weight"] == 4.125 and mx["bits_per_weight"] == 4.25 and nv["bits_per_weight"] == 4.5
    assert i4["step_time_s"] < mx["step_time_s"] < nv["step_time_s"] < f8["step_time_s"]


def test_spec_expected_tokens():
    assert s.spec_expected_tokens(0.0, 5) == 1
    assert s.spec_expected_tokens(1.0, 4) == 5
    assert s.spec_expected_tokens(0.8, 4) == pytest.approx(1 + 0.8 + 0.64 + 0.512 + 0.4096)
    assert s.spec_speedup_ideal(0.8, 4, 0) == pytest.approx(s.spec_expected_tokens(0.8, 4))


def test_speculative_pays_at_batch_1_not_at_large_batch():
    one = s.speculative(Q8, Q06, H100, 1, 512, 0.8, 4)
    assert one["speedup"] > 2
    assert one["verify_over_plain"] < 1.05  # memory-bound: 5 tokens cost about one step
    big = s.speculative(Q8, Q06, H100, 512, 512, 0.8, 4)
    assert big["speedup"] < 1
    assert big["verify_over_plain"] > 2


def test_little_and_instance_rate():
    assert s.little_concurrency(20, 0.5, 0.05, 500) == pytest.approx(20 * 25.5)
    assert s.little_rate(510, 0.5, 0.05, 500) == pytest.approx(20)
    r0 = s.instance_rate(50, 0.02, 500, 0.5, 0.0)
    assert r0["rate"] == pytest.approx(50 / (0.5 + 500 * 0.02))
    r = s.instance_rate(50, 0.02, 500, 0.5, 0.05)
    assert r["rate"] < r0["rate"]
    assert r["rate"] * r["residence_s"] == pytest.approx(50)  # Little's law holds


@pytest.mark.parametrize("args", [
    ["batch", "--model", "qwen3-8b", "--hardware", "h100", "--context", "8192"],
    ["chunk", "--model", "qwen3-8b", "--hardware", "h100", "--prompt", "8192"],
    ["paged", "--lengths", "100", "900", "--reserve", "2048"],
    ["prefix", "--model", "qwen3-8b", "--hardware", "h100", "--prompt", "2000", "--prefix", "1500"],
    ["offload", "--model", "qwen3-8b", "--hardware", "h100"],
    ["quant", "--model", "qwen3-8b", "--hardware", "h100"],
    ["speculative", "--model", "qwen3-8b", "--draft", "qwen3-0.6b", "--hardware", "h100", "--alpha", "0.8",
     "--k", "4"],
    ["little", "--rate", "20"],
])
@pytest.mark.parametrize("fmt", ["text", "md", "csv", "json"])
def test_cli(args, fmt):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    r = subprocess.run(["python3", CALC, *args, "--format", fmt], capture_output=True, text=True, cwd="/",
                       env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()
    if fmt == "json":
        json.loads(r.stdout)


def test_cli_batch_json_values():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    r = subprocess.run(["python3", CALC, "batch", "--model", "qwen3-8b", "--hardware", "h100", "--context", "8192",
                        "--usable", "0.9", "--format", "json"], capture_output=True, text=True, env=env, timeout=60)
    d = json.loads(r.stdout)
    assert d["limits"]["max_batch_memory"] == s.max_batch_memory(Q8, H100, 8192, usable_fraction=0.9)
    assert d["limits"]["binding"] == "memory"


def test_cli_user_error():
    r = subprocess.run(["python3", CALC, "little", "--format", "text"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr
