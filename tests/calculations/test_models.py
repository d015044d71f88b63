import json

import pytest

from calculations import formulas, models


def test_modelspec_frozen_and_typed():
    m = models.get("qwen3-8b")
    with pytest.raises(Exception):
        m.num_layers = 1
    assert isinstance(m.moe_layers, tuple) and len(m.moe_layers) == 36


def test_lookup_aliases_and_suggestions():
    assert models.get("Qwen/Qwen3-8B").id == "qwen3-8b"
    assert models.get("QWEN3-8B").id == "qwen3-8b"
    with pytest.raises(models.UnknownModel, match="qwen3-8b"):
        models.get("qwen3-8")


def test_deepseek_structure():
    m = models.get("deepseek-v3")
    assert m.num_dense_layers == 3 and m.num_moe_layers == 58
    assert m.num_shared_experts == 1 and m.router_bias
    k = models.get("kimi-k2")
    assert k.num_dense_layers == 1 and k.num_experts == 384


def test_gpt_oss_structure():
    m = models.get("gpt-oss-20b")
    assert m.qkv_bias and m.o_bias and m.attention_sinks and m.expert_bias
    assert m.layer_types[0] == "sliding_attention" and m.layer_types[1] == "full_attention"
    assert models.get("qwen3-8b").qk_norm


def test_user_config_equals_registry(tmp_path):
    src = models.DATA_DIR + "/configs/Qwen--Qwen3-8B.json"
    p = tmp_path / "config.json"
    p.write_text(open(src).read())
    u = models.load_config(str(p))
    r = models.get("qwen3-8b")
    assert u.params_total == r.params_total
    assert formulas.kv_bytes_per_token(u) == formulas.kv_bytes_per_token(r)
    assert models.load_config(str(tmp_path)).params_total == r.params_total   # directory works too


def test_unknown_architecture_fails_clearly(tmp_path):
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"model_type": "mamba", "architectures": ["MambaForCausalLM"], "hidden_size": 8}))
    with pytest.raises(models.UnsupportedArchitecture, match="mamba"):
        models.load_config(str(p))


def test_missing_field_fails_clearly(tmp_path):
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4}))
    with pytest.raises(models.ModelError, match="num_hidden_layers"):
        models.load_config(str(p))


def test_mistral_style_sliding_config(tmp_path):
    cfg = json.load(open(models.DATA_DIR + "/configs/meta-llama--Meta-Llama-3.1-8B.json"))
    cfg.update(model_type="mistral", architectures=["MistralForCausalLM"], sliding_window=4096)
    p = tmp_path / "c.json"
    p.write_text(json.dumps(cfg))
    m = models.load_config(str(p))
    assert m.num_sliding_layers == 32
    assert formulas.kv_cache_bytes(m, 10_000) == 4096 * formulas.kv_bytes_per_token(m)


def test_registry_configs_verbatim():
    import os
    shared = "/work/shared/reference/model-configs"
    if not os.path.isdir(shared):
        pytest.skip("reference configs not available")
    for f in os.listdir(shared):
        assert open(os.path.join(shared, f), "rb").read() == open(os.path.join(models.DATA_DIR, "configs", f), "rb").read()
