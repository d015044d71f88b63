"""Each registered model against its vendor's figure, at the vendor's precision
and under the vendor's definition (or a documented reason why not)."""
import pytest

from calculations import models

ROWS = [r for i in models.ids() for r in models.official_comparison(i)]


def test_thirteen_models_registered():
    assert len(models.ids()) >= 13
    for mid in ("qwen3-8b", "qwen3-0.6b", "qwen3-32b", "qwen3-30b-a3b", "qwen3-235b-a22b", "llama-3.1-8b",
                "llama-3.1-70b", "llama-3.1-405b", "deepseek-v3", "mixtral-8x7b", "gpt-oss-120b",
                "gpt-oss-20b", "kimi-k2"):
        m = models.get(mid)
        assert m.source.startswith("https://huggingface.co/")
        assert models.official(mid)["source"]


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['model']}:{r['figure']}" for r in ROWS])
def test_official_figure(row):
    if row["rounding"] == "none":
        assert row["why"], "an uncompared figure must say why"
        return
    assert row["match"], row
    if row["rounding"] == "truncate":
        assert row["why"], "truncation must be justified"
    assert abs(row["rel_diff"]) < 0.03


def test_every_model_has_total_and_an_active_or_nonembedding_figure():
    for mid in models.ids():
        figs = models.official(mid)["compare"]
        assert "total" in figs


def test_active_definitions_differ_by_vendor():
    oss = models.get("gpt-oss-120b")
    assert round(oss.params_active_no_embedding / 1e9, 1) == 5.1      # OpenAI: no input embedding
    assert round(oss.params_active / 1e9, 1) == 5.7
    ds = models.get("deepseek-v3")
    assert round(ds.params_active_no_embedding / 1e9, 1) == 36.6      # includes 0.9B output head
    assert ds.params_active_no_embedding - ds.params_active_non_embedding == ds.params_lm_head
    assert round(ds.params_active / 1e9) == 38


def test_deepseek_mtp_documented_mismatch():
    ds = models.get("deepseek-v3")
    assert ds.params_mtp == 11_610_068_224
    assert abs(ds.params_mtp / 11.5e9 - 1) < 0.01
    row = [r for r in ROWS if r["model"] == "deepseek-v3" and r["figure"] == "mtp_unique"][0]
    assert row["rounding"] == "none" and "eh_proj" in row["why"]


def test_compare_figure():
    assert models.compare_figure(70_553_706_496, "70B", "truncate")["match"]
    assert not models.compare_figure(70_553_706_496, "70B", "round")["match"]
    assert models.compare_figure(1_026_408_232_448, "1T")["match"]
