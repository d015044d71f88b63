"""calculations/training.py: memory per parameter, activations, bubbles, layouts, MFU, checkpoints."""
import json
import math
import os
import subprocess

import pytest

from calculations import formulas, hardware, models, training as tr
from calculations.errors import CalcError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CALC = os.path.join(ROOT, "calculations", "calc.py")


def run(*args):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return subprocess.run(["python3", CALC, *args], capture_output=True, text=True, cwd="/", env=env, timeout=60)


# ---------------------------------------------------------------- bytes per parameter
def test_sixteen_bytes_per_param_and_zero_sharding():
    assert tr.state_bytes_per_param(0)["total"] == 16
    z = {s: tr.state_bytes_per_param(s, 8) for s in range(4)}
    assert z[1]["total"] == 2 + 2 + 12 / 8
    assert z[2]["total"] == 2 + 2 / 8 + 12 / 8
    assert z[3]["total"] == 16 / 8
    assert z[0]["total"] > z[1]["total"] > z[2]["total"] > z[3]["total"]


def test_state_bytes_agree_with_formulas_train_memory():
    m = models.get("llama-3.1-8b")
    for stage in range(4):
        ref = formulas.train_memory_per_device(m, 8, stage)
        b = tr.state_bytes_per_param(stage, 8)
        ours = m.params_total * b["total"]
        theirs = ref["weights_bytes"] + ref["grads_bytes"] + ref["optimizer_bytes"]
        assert abs(ours - theirs) <= 3  # formulas rounds each shard up to a whole byte


def test_checkpoint_is_fourteen_bytes_per_param():
    assert tr.checkpoint_bytes_per_param() == 14
    m = models.get("llama-3.1-405b")
    assert tr.checkpoint_bytes(m) == 14 * m.params_total


# ----------------------------------------------------------------------- activations
def test_korthikanti_formula():
    s, b, h, a = 2048, 1, 12288, 96
    none = tr.activation_bytes_per_layer(s, b, h, a)
    assert none == s * b * h * 34 + 5 * a * s * s * b
    assert none == pytest.approx(s * b * h * (34 + 5 * a * s / h))
    assert tr.activation_bytes_per_layer(s, b, h, a, recompute="selective") == 34 * s * b * h
    assert tr.activation_bytes_per_layer(s, b, h, a, recompute="full") == 2 * s * b * h


def test_tensor_and_sequence_parallel_split_activations():
    s, b, h, a, t = 4096, 1, 8192, 64, 8
    full = tr.activation_bytes_per_layer(s, b, h, a)
    sp = tr.activation_bytes_per_layer(s, b, h, a, tp=t)
    nosp = tr.activation_bytes_per_layer(s, b, h, a, tp=t, sequence_parallel=False)
    assert sp == -(-full // t)
    # without sequence parallelism the 10 sbh of norms/dropout stay replicated
    assert nosp == -(-(s * b * h * (10 * t + 24) + 5 * a * s * s * b) // t)
    assert sp < nosp < full


def test_activation_rejects_bad_input():
    with pytest.raises(CalcError):
        tr.activation_bytes_per_layer(0, 1, 4096, 32)
    with pytest.raises(CalcError):
        tr.activation_bytes_per_layer(4096, 1, 4096, 32, recompute="some")


# ---------------------------------------------------------------------------- bubbles
def test_bubble_fractions():
    assert tr.pipeline_bubble_fraction(1, 8) == 0
    assert tr.pipeline_bubble_fraction(4, 16) == pytest.approx(3 / 19)
    assert tr.pipeline_bubble_fraction(4, 16, 2) == pytest.approx(1.5 / 17.5)
    assert tr.pipeline_bubble_ratio(4, 16) == pytest.approx(3 / 16)
    assert tr.pipeline_bubble_ratio(8, 16, 4) == pytest.approx(7 / 64)
    # more micro-batches or more chunks always shrink the bubble
    assert tr.pipeline_bubble_fraction(8, 64) < tr.pipeline_bubble_fraction(8, 16)
    assert tr.pipeline_bubble_fraction(8, 16, 4) < tr.pipeline_bubble_fraction(8, 16, 2)


def test_inflight_layers():
    assert tr.inflight_layers(80, 4, 16) == 80
    assert tr.inflight_layers(80, 4, 2) == 40      # only 2 micro-batches exist
    assert tr.inflight_layers(80, 4, 16, 5) == pytest.approx(80 * (1 + 3 / 20))


# ---------------------------------------------------------------------------- layouts
def test_layout_validation():
    with pytest.raises(CalcError):
        tr.Layout(dp=6, ep=4)
    with pytest.raises(CalcError):
        tr.Layout(dp=4, global_batch=10)
    lo = tr.Layout(tp=8, pp=4, dp=32, seq=8192, global_batch=512)
    assert lo.gpus == 1024 and lo.microbatches == 16 and lo.tokens_per_step == 512 * 8192


def test_stage_params_cover_the_model():
    m = models.get("llama-3.1-70b")
    one = tr.stage_params(m, tr.Layout())
    assert one["first"]["dense"] == m.params_total
    tp8 = tr.stage_params(m, tr.Layout(tp=8))
    assert tp8["first"]["dense"] == m.params_total / 8
    # with pp = L every stage holds one layer: first + last stages = 2 layers + embedding + head + norm
    pp = tr.stage_params(m, tr.Layout(pp=80))
    two = 2 * m.layer_params(0) + m.params_embedding + m.params_lm_head + m.hidden_size
    assert pp["first"]["dense"] + pp["last"]["dense"] == two


def test_layout_memory_single_gpu_matches_sixteen_bytes():
    m = models.get("qwen3-8b")
    mem = tr.layout_memory(m, tr.Layout(zero_stage=0, seq=4096))
    assert mem["state_bytes"] == 16 * m.params_total
    assert mem["total_bytes"] > mem["state_bytes"] + mem["activation_bytes"]  # logits on the one stage
    assert mem["activation_bytes"] == m.num_layers * tr.activation_bytes_per_layer(
        4096, 1, m.hidden_size, m.num_heads, recompute="selective")


def test_layout_memory_llama70b_fits_h100():
    m = models.get("llama-3.1-70b")
    lo = tr.Layout(tp=8, pp=4, dp=32, seq=8192, global_batch=512, zero_stage=1)
    mem = tr.layout_memory(m, lo)
    assert mem["total_bytes"] < hardware.get("h100").hbm_bytes
    none = tr.layout_memory(m, tr.Layout(tp=8, pp=4, dp=32, seq=8192, global_batch=512, recompute="none"))
    assert none["total_bytes"] > hardware.get("h100").hbm_bytes
    # parts never exceed the whole
    assert mem["activation_bytes"] < mem["total_bytes"] and mem["state_bytes"] < mem["total_bytes"]


def test_expert_parallel_shards_only_experts():
    m = models.get("deepseek-v3")
    a = tr.stage_params(m, tr.Layout(pp=61, dp=64, ep=1))
    b = tr.stage_params(m, tr.Layout(pp=61, dp=64, ep=64))
    assert a["last"]["dense"] == b["last"]["dense"]
    assert b["last"]["expert"] == a["last"]["expert"] / 64
    assert a["last"]["expert"] == m.num_experts * m.expert_params()


# ------------------------------------------------------------------------ step and MFU
def test_single_gpu_mfu_equals_efficiency():
    m = models.get("qwen3-8b")
    st = tr.step_time(m, "h100", tr.Layout(seq=4096, global_batch=4), compute_eff=0.5, attention=False)
    assert st["mfu"] == pytest.approx(0.5)
    st2 = tr.step_time(m, "h100", tr.Layout(seq=4096, global_batch=4), compute_eff=0.5)
    assert st2["mfu"] < 0.5 and st2["hfu"] == pytest.approx(0.5)


def test_step_time_components():
    m = models.get("llama-3.1-70b")
    lo = tr.Layout(tp=8, pp=4, dp=32, seq=8192, global_batch=512)
    st = tr.step_time(m, "h100", lo, compute_eff=0.8)
    assert st["bubble_fraction"] == pytest.approx(3 / 19)
    assert st["bubble_s"] == pytest.approx(st["slot_s"] * 3)
    assert st["step_s"] == pytest.approx(st["slot_s"] * 19 + st["dp_exposed_s"])
    assert 0 < st["mfu"] < st["hfu"] < 0.8
    hidden = tr.step_time(m, "h100", lo, compute_eff=0.8, tp_overlap=1.0)
    assert hidden["step_s"] < st["step_s"]
    full = tr.step_time(m, "h100", tr.Layout(tp=8, pp=4, dp=32, seq=8192, global_batch=512, recompute="full"),
                        compute_eff=0.8)
    assert full["hardware_flops"] - full["attention_flops"] == pytest.approx(8 / 6 * full["model_flops"])
    assert full["mfu"] < st["mfu"]


def test_attention_flops_causal():
    m = models.get("llama-3.1-70b")
    s = 8192
    f = tr.attention_train_flops(m, s)
    assert f == 3 * 2 * m.num_heads * 256 * (s * (s + 1) // 2) * m.num_layers


def test_mfu_from_llama3_throughput():
    h = hardware.get("h100")
    run_ = tr.LLAMA3_405B_RUN
    assert run_["tflops_per_gpu"] * 1e12 / h.peak_flops("bf16") == pytest.approx(run_["mfu"], abs=0.01)
    m = models.get("llama-3.1-8b")
    tok = 1000.0
    assert tr.mfu_from_throughput(m.params_active, tok, 1, h.peak_flops()) == pytest.approx(
        6 * m.params_active * tok / h.peak_flops())


def test_dp_comm_zero3_is_one_and_a_half():
    assert tr.dp_comm_bytes(1e9, 64, 3) == pytest.approx(1.5 * tr.dp_comm_bytes(1e9, 64, 0))
    assert tr.dp_comm_bytes(1e9, 64, 1) == tr.dp_comm_bytes(1e9, 64, 0)
    assert tr.ring_allreduce_seconds(1e9, 8, 1e9) == pytest.approx(2 * 7 / 8)


# ------------------------------------------------------------------------ checkpoints
def test_llama3_mtbf():
    r = tr.LLAMA3_405B_RUN
    mtbf = tr.mtbf_seconds(r["days"] * 86400, r["unexpected"])
    assert mtbf / 3600 == pytest.approx(3.09, abs=0.01)
    assert r["planned"] + r["unexpected"] == r["interruptions"]


def test_young_minimizes_waste():
    d, M, R = 60.0, 3 * 3600.0, 600.0
    tau = tr.young_interval(d, M)
    assert tau == pytest.approx(math.sqrt(2 * d * M))
    w = tr.checkpoint_waste(tau, d, M, R)["total"]
    assert w < tr.checkpoint_waste(0.8 * tau, d, M, R)["total"]
    assert w < tr.checkpoint_waste(1.25 * tau, d, M, R)["total"]
    # at the optimum the write cost and the rework cost are equal
    parts = tr.checkpoint_waste(tau, d, M)
    assert parts["write"] == pytest.approx(parts["rework"])
    assert tr.expected_lost_work(tau, R) == pytest.approx(tau / 2 + R)


def test_daly_close_to_young_for_cheap_checkpoints():
    M = 10000.0
    assert tr.daly_interval(1.0, M) == pytest.approx(tr.young_interval(1.0, M), rel=0.01)
    assert tr.daly_interval(3 * M, M) == M
    assert tr.daly_interval(100.0, M) < tr.young_interval(100.0, M)


def test_weight_sync():
    m = models.get("qwen3-8b")
    t = tr.weight_sync_seconds(m.params_total, 50e9)
    assert t == pytest.approx(2 * m.params_total / 50e9)
    assert tr.weight_sync_seconds(m.params_total, 50e9, shards=8) == pytest.approx(t / 8)


# -------------------------------------------------------------------------------- CLI
def test_cli_layout_json():
    r = run("layout", "--model", "llama-3.1-70b", "--hardware", "h100", "--tp", "8", "--pp", "4", "--dp", "32",
            "--seq", "8192", "--global-batch", "512", "--compute-eff", "0.8", "--format", "json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["step"]["layout"]["gpus"] == 1024
    assert d["memory"]["total_bytes"] < 80e9
    assert 0 < d["step"]["mfu"] < 0.8


@pytest.mark.parametrize("fmt", ["text", "md", "csv"])
def test_cli_formats(fmt):
    for args in (("bubble", "--pp", "4", "8", "-m", "16", "--virtual", "1", "2"),
                 ("checkpoint", "--model", "llama-3.1-405b", "--restart-min", "10"),
                 ("layout", "--model", "qwen3-8b", "--hardware", "h100", "--seq", "4096")):
        r = run(*args, "--format", fmt)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip()


def test_cli_bubble_csv_values():
    r = run("bubble", "--pp", "4", "-m", "16", "--format", "csv")
    lines = r.stdout.strip().splitlines()
    assert lines[0].startswith("pp,microbatches,virtual,bubble_fraction")
    assert float(lines[1].split(",")[3]) == pytest.approx(3 / 19)


def test_cli_errors_exit_2():
    r = run("layout", "--model", "llama-3.1-70b", "--hardware", "h100", "--dp", "6", "--ep", "4")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    r = run("checkpoint", "--model", "llama-3.1-405b", "--restart-min", "-1")
    assert r.returncode == 2 and "Traceback" not in r.stderr
