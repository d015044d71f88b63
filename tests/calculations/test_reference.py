"""Reproduce /work/shared/reference/derived-checks.json exactly from the configs."""
import pytest

from calculations import formulas, hardware, models


@pytest.mark.parametrize("mid,total", [
    ("qwen3-0.6b", 596_049_920),
    ("qwen3-8b", 8_190_735_360),
    ("llama-3.1-70b", 70_553_706_496),
])
def test_total_params(mid, total):
    m = models.get(mid)
    assert m.params_total == total
    assert isinstance(m.params_total, int)


def test_qwen3_8b_non_embedding():
    m = models.get("qwen3-8b")
    assert m.params_non_embedding == 6_946_075_648
    assert m.params_total - m.params_embedding - m.params_lm_head == 6_946_075_648


def test_qwen3_06b_tied():
    m = models.get("qwen3-0.6b")
    assert m.tie_embeddings and m.params_lm_head == 0
    assert m.params_total == m.params_non_embedding + m.params_embedding


@pytest.mark.parametrize("mid,kv", [("qwen3-8b", 147_456), ("llama-3.1-70b", 327_680), ("deepseek-v3", 70_272)])
def test_kv_bytes_per_token(mid, kv):
    assert formulas.kv_bytes_per_token(models.get(mid), "bf16") == kv


def test_qwen3_8b_prefill_8192():
    m = models.get("qwen3-8b")
    fw = formulas.forward(m, tokens=8192)
    kinds = fw.flops_by_kind()
    # reference 'linear-layer' figure: 2 x T x (all per-layer params), norms included
    assert formulas.layer_param_flops(m, 8192) == 113_804_436_307_968
    # the operator table's matmuls differ from it exactly by the norm weights
    norm_params = m.num_layers * (2 * m.hidden_size + 2 * m.head_dim)
    assert kinds["linear"] == 113_804_436_307_968 - 2 * 8192 * norm_params
    assert round(kinds["linear"] / 1e14, 3) == 1.138
    assert kinds["attention"] == 19_793_625_219_072
    lm = [o for o in fw.operators if o.kind == "lm_head"]
    assert len(lm) == 1 and lm[0].flops == 1_244_659_712


def test_llama_405b_6nd():
    assert formulas.train_flops(405.85e9, 15.6e12) == pytest.approx(3.798756e25, rel=1e-12)
    exact = formulas.train_flops(models.get("llama-3.1-405b").params_total, 15_600_000_000_000)
    assert isinstance(exact, int)
    assert exact == pytest.approx(3.798756e25, rel=1e-5)


def test_llama_70b_bf16_weights():
    m = models.get("llama-3.1-70b")
    assert formulas.nbytes(m.params_total, "bf16") == 141_107_412_992
    plan = formulas.memory_plan(m, "h100", devices=2, context=0)
    assert plan.weight_bytes == 141_107_412_992


def test_h100_ridge():
    assert round(hardware.get("h100").ridge_point("bf16"), 1) == 295.2
