"""Chapter 11: queueing (Erlang B/C, M/M/c tails, sizing), GPU sharing and KV holding costs."""
import json
import math
import subprocess
import sys

import pytest

from calculations import formulas, hardware, models
from calculations import queueing as q
from calculations.errors import CalcError

ROOT = __import__("os").path.dirname(__import__("os").path.dirname(__import__("os").path.dirname(
    __import__("os").path.abspath(__file__))))


def erlang_c_direct(c, a):
    """Textbook closed form (small c only: it forms a^c / c!)."""
    top = a ** c / math.factorial(c) * c / (c - a)
    return top / (sum(a ** k / math.factorial(k) for k in range(c)) + top)


def erlang_c_log(c, a):
    """Closed form in log space (lgamma), valid for large c, independent of the recursion."""
    logs = [k * math.log(a) - math.lgamma(k + 1) for k in range(c)]
    top = c * math.log(a) - math.lgamma(c + 1) + math.log(c / (c - a))
    mx = max(max(logs), top)
    s = sum(math.exp(x - mx) for x in logs)
    t = math.exp(top - mx)
    return t / (s + t)


# ------------------------------------------------------------------ textbook values
def test_erlang_b_textbook_values():
    assert q.erlang_b(10, 10) == pytest.approx(0.214582, abs=1e-6)   # standard Erlang B table
    assert q.erlang_b(5, 3) == pytest.approx(0.110054, abs=1e-6)
    assert q.erlang_b(2, 1) == pytest.approx(0.2, abs=1e-15)          # (1/2) / (1 + 1 + 1/2)
    assert q.erlang_b(1, 1) == pytest.approx(0.5)


def test_erlang_c_textbook_values():
    assert q.erlang_c(2, 1) == pytest.approx(1 / 3, abs=1e-15)
    assert q.erlang_c(11, 10) == pytest.approx(0.682118, abs=1e-6)   # 10 erlangs on 11 agents
    for rho in (0.1, 0.5, 0.9, 0.99):
        assert q.erlang_c(1, rho) == pytest.approx(rho)               # M/M/1: P(wait) = rho


@pytest.mark.parametrize("c,a", [(2, 1.5), (5, 3.0), (8, 7.5), (20, 15.3), (40, 37.4)])
def test_erlang_c_matches_closed_form(c, a):
    assert q.erlang_c(c, a) == pytest.approx(erlang_c_direct(c, a), rel=1e-12)


@pytest.mark.parametrize("c,a", [(500, 480.0), (2000, 1950.0), (5000, 4990.0)])
def test_erlang_c_stable_for_large_pools(c, a):
    v = q.erlang_c(c, a)
    assert 0 < v < 1
    assert v == pytest.approx(erlang_c_log(c, a), rel=1e-9)


def test_unstable_and_bad_inputs():
    assert q.erlang_c(4, 4.0) == 1.0
    with pytest.raises(q.QueueError):
        q.mmc(10, 1, 10)
    with pytest.raises(CalcError):
        q.erlang_b(0, 1)
    with pytest.raises(CalcError):
        q.wait_percentile(1, 2, 1, 1.5)
    with pytest.raises(CalcError):
        q.size_service("qwen3-8b", "h100", 10, 2048, 0.001)   # target below the prefill itself


# ---------------------------------------------------------------- M/M/c properties
def test_mm1_closed_forms():
    lam, mu = 9.0, 10.0
    m = q.mmc(lam, mu, 1)
    assert m.mean_wait == pytest.approx(lam / (mu * (mu - lam)))     # rho / (mu - lambda)
    assert m.mean_response == pytest.approx(1 / (mu - lam))
    for t in (0.0, 0.1, 0.5, 2.0):
        assert q.response_tail(lam, mu, 1, t) == pytest.approx(math.exp(-(mu - lam) * t), rel=1e-12)
    # p99 wait of M/M/1: ln(100 rho) / (mu (1 - rho))
    assert q.wait_percentile(lam, mu, 1, 0.99) == pytest.approx(math.log(100 * 0.9) / (mu - lam))


def test_little_law_holds_inside_mmc():
    m = q.mmc(37.0, 1.0, 40)
    assert m.mean_queue == pytest.approx(q.little(37.0, m.mean_wait))
    assert m.mean_in_system == pytest.approx(q.little(37.0, m.mean_response))
    assert m.mean_in_system == pytest.approx(m.mean_queue + m.offered_load)   # L = Lq + a


@pytest.mark.parametrize("c,lam", [(1, 0.5), (4, 3.2), (16, 15.0), (64, 60.0)])
def test_percentiles_invert_tails(c, lam):
    mu = 1.0
    for p in (0.9, 0.99, 0.999):
        t = q.wait_percentile(lam, mu, c, p)
        if t > 0:
            assert q.wait_tail(lam, mu, c, t) == pytest.approx(1 - p, rel=1e-9)
        r = q.response_percentile(lam, mu, c, p)
        assert q.response_tail(lam, mu, c, r) == pytest.approx(1 - p, rel=1e-6)
        assert r >= t      # time in system is delay plus a positive service time


def test_response_tail_equal_rates_branch():
    # c mu - lambda == mu: 2 servers, mu = 1, lambda = 1
    assert q.mmc(1.0, 1.0, 2).decay_rate == pytest.approx(1.0)
    t = 1.7
    c = q.erlang_c(2, 1.0)
    expect = (1 - c) * math.exp(-t) + c * (1 + t) * math.exp(-t)
    assert q.response_tail(1.0, 1.0, 2, t) == pytest.approx(expect)


def test_servers_for_wait_is_minimal():
    lam, mu, t = 100.0, 1 / 0.0376, 0.0624
    c = q.servers_for_wait(lam, mu, t)
    assert q.wait_tail(lam, mu, c, t) <= 0.01
    assert c - 1 <= lam / mu or q.wait_tail(lam, mu, c - 1, t) > 0.01
    assert c > q.servers_naive(lam, mu)


def test_knee_and_pooling():
    # at the same utilization, a bigger pool waits far less (in units of the service time)
    w1 = q.wait_percentile(0.9, 1.0, 1)
    w64 = q.wait_percentile(0.9 * 64, 1.0, 64)
    assert w64 < w1 / 10
    pl = q.pooling(100.0, 1 / 0.0376, 0.0624, 8)
    assert pl["servers_pooled"] < pl["servers_split"]
    assert pl["utilization_pooled"] > pl["utilization_split"]
    # square-root staffing: beta shrinks slowly, the relative overhead beta/sqrt(a) fast
    small = q.servers_for_wait(10.0, 1.0, 0.1)
    big = q.servers_for_wait(1000.0, 1.0, 0.1)
    assert (big - 1000) / 1000 < (small - 10) / 10


def test_allen_cunneen_deterministic_service_halves_the_wait():
    base = q.mmc(3.0, 1.0, 4).mean_wait
    assert q.mgc_mean_wait(3.0, 1.0, 4, cs2=1.0) == pytest.approx(base)
    assert q.mgc_mean_wait(3.0, 1.0, 4, cs2=0.0) == pytest.approx(base / 2)


# ------------------------------------------------------------------ LLM sizing
def test_size_service_uses_the_forward_roofline():
    m = models.get("qwen3-8b")
    eff = 0.8
    r = q.size_service(m, "h100", 100.0, 2048, 0.1, 0.99, eff)
    fw = formulas.forward(m, 2048, hw="h100", compute_eff=eff)
    assert r["prefill_s"] == pytest.approx(fw.totals.roofline_time_s)
    assert r["prefill_s"] == pytest.approx(fw.totals.flops / (hardware.get("h100").peak_flops("bf16") * eff))
    assert r["ttft_quantile"] <= 0.1 + 1e-12
    assert r["servers"] == q.servers_for_wait(100.0, 1 / r["prefill_s"], 0.1 - r["prefill_s"])
    assert r["utilization"] < 1


# --------------------------------------------------------------- sharing, clusters
def test_mig_profiles():
    h = hardware.get("h100")
    one = q.mig_profile("1g.10gb")
    assert one["max_instances"] == 7
    assert one["memory_bytes"] == h.hbm_bytes // 8
    assert one["compute_fraction"] == pytest.approx(1 / 7)
    for name, (mem, comp, n) in q.MIG_PROFILES_H100.items():
        assert n * mem <= 8 and n * comp <= 7, name
    f1 = q.mig_fit("qwen3-8b", "1g.10gb")
    assert not f1["fits"]                                             # 16.4 GB of weights in 10 GB
    f3 = q.mig_fit("qwen3-8b", "3g.40gb")
    assert f3["fits"] and f3["instances"] == 2
    assert f3["kv_room_total"] < f3["kv_room_whole_gpu"]              # duplicated weights cost KV room
    assert f3["weight_read_s"] == pytest.approx(2 * f3["weight_read_whole_s"])
    with pytest.raises(CalcError):
        q.mig_fit("qwen3-8b", "3g.40gb", instances=3)


def test_fragmentation_and_checkpoints():
    assert q.p_node_free(0.5, 8) == pytest.approx(1 / 256)
    assert q.p_node_free(0.0, 8) == 1.0
    assert q.young_interval(60.0, 6 * 3600.0) == pytest.approx(math.sqrt(2 * 60 * 6 * 3600))
    cs = q.cold_start(10e9, 1e9, 16e9, 2e9, 64e9, 5.0)
    assert cs["serial_s"] == pytest.approx(10 + 8 + 0.25 + 5)
    assert cs["streamed_s"] == pytest.approx(10 + 8 + 5)
    assert cs["streamed_s"] <= cs["serial_s"]


# ------------------------------------------------------------------ KV through a tool call
def test_kv_hold_numbers():
    m = models.get("qwen3-8b")
    h = hardware.get("h100")
    k = q.kv_hold(m, h, 32768, 30.0, compute_eff=0.8)
    assert k.kv_bytes == 147456 * 32768 == formulas.kv_cache_bytes(m, 32768)
    assert k.weight_bytes == 2 * m.params_total
    assert 0 < k.kv_bytes < k.free_bytes < h.hbm_bytes
    assert k.share == pytest.approx(k.kv_bytes / (h.hbm_bytes - 2 * m.params_total))
    assert k.hold_gpu_s == pytest.approx(k.share * 30.0)
    assert k.transfer_s == pytest.approx(k.kv_bytes / 64e9)
    assert k.recompute_s == pytest.approx(formulas.prefill_flops(m, 32768) / (h.peak_flops("bf16") * 0.8))
    assert k.break_even_s * k.share == pytest.approx(k.recompute_gpu_s)
    assert k.offload_gpu_s < k.recompute_gpu_s < k.hold_gpu_s            # at 30 s
    assert k.offload_resume_s < k.recompute_s


# ------------------------------------------------------------------ CLI
@pytest.mark.parametrize("args", [
    ["erlang", "--rate", "100", "--service-time", "0.0376"],
    ["erlang", "--rate", "1", "--service-rate", "1", "--servers", "1", "2", "3"],
    ["size-service", "--model", "qwen3-8b", "--hardware", "h100", "--rate", "100", "--ttft", "0.1",
     "--compute-eff", "0.8", "--pools", "8"],
    ["kv-hold", "--model", "qwen3-8b", "--hardware", "h100", "--context", "32768", "--tool-seconds", "30"],
    ["mig", "--model", "qwen3-8b"],
])
@pytest.mark.parametrize("fmt", ["text", "md", "csv", "json"])
def test_cli_commands(args, fmt):
    r = subprocess.run([sys.executable, "calculations/calc.py", *args, "--format", fmt], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()
    if fmt == "json":
        json.loads(r.stdout)


def test_cli_size_service_json_values():
    r = subprocess.run([sys.executable, "calculations/calc.py", "size-service", "--model", "qwen3-8b",
                        "--hardware", "h100", "--rate", "1000", "--ttft", "0.1", "--compute-eff", "0.8",
                        "--format", "json"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    d = json.loads(r.stdout)
    assert d["servers"] == q.size_service("qwen3-8b", "h100", 1000.0, 2048, 0.1, 0.99, 0.8)["servers"]
    assert d["servers"] < d["servers_naive_capped"]   # a big pool beats the 80 % rule


def test_cli_user_error_exit_2():
    r = subprocess.run([sys.executable, "calculations/calc.py", "size-service", "--model", "qwen3-8b",
                        "--hardware", "h100", "--rate", "10", "--ttft", "0.001"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_blocking_pool_and_interruptions():
    c = q.servers_for_blocking(100.0, 0.01)
    assert q.erlang_b(c, 100.0) <= 0.01 < q.erlang_b(c - 1, 100.0)
    assert q.servers_for_blocking(1.0, 0.5) == 1            # B(1, 1) = 0.5
    for load, target in ((0.3, 0.2), (2500.0, 1e-3), (40.0, 1e-9)):
        c = q.servers_for_blocking(load, target)
        assert q.erlang_b(c, load) <= target
        assert c == 1 or q.erlang_b(c - 1, load) > target
    ref = q.mtbi_scaled(q.LLAMA3_GPUS)
    assert ref == pytest.approx(54 * 86400 / 419)
    assert q.mtbi_scaled(2048) == pytest.approx(ref * 16384 / 2048)
