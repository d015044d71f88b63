"""Every trap listed in the calculator notes is a test."""
import pytest

from calculations import formulas, hardware, models


def test_head_dim_from_config_not_hidden_over_heads():
    m = models.get("qwen3-0.6b")
    assert m.hidden_size // m.num_heads == 64
    assert m.head_dim == 128 and m.head_dim_from_config
    assert models.get("gpt-oss-120b").head_dim == 64          # 2880/64 = 45 would be wrong
    llama = models.get("llama-3.1-8b")                          # absent: hidden/heads
    assert llama.head_dim == 128 and not llama.head_dim_from_config
    # KV follows the config head_dim: 28 layers x 2 x 8 x 128 x 2 bytes
    assert formulas.kv_bytes_per_token(m) == 28 * 2 * 8 * 128 * 2


def test_prefill_attention_is_causal_not_rectangular():
    m = models.get("qwen3-8b")
    T = 8192
    att = formulas.forward(m, T).flops_by_kind()["attention"]
    rect = 2 * 2 * m.num_heads * m.head_dim * m.num_layers * T * T
    causal = 2 * 2 * m.num_heads * m.head_dim * m.num_layers * T * (T + 1) // 2
    assert att == causal != rect
    assert formulas.attention_key_sum(T) == T * (T + 1) // 2
    # decode after a context attends to context + 1 keys
    assert formulas.attention_key_sum(1, context=100) == 101


def test_lm_head_last_position_two_flops_per_mac():
    m = models.get("qwen3-8b")
    lm = lambda fw: [o for o in fw.operators if o.kind == "lm_head"][0]  # noqa: E731
    last = lm(formulas.forward(m, 8192))
    assert last.flops == 2 * m.hidden_size * m.vocab_size                # not H*V (1 FLOP/MAC)
    every = lm(formulas.forward(m, 8192, all_logits=True))
    assert every.flops == 8192 * last.flops
    assert lm(formulas.forward(m, 16, batch=4)).flops == 4 * last.flops   # one per sequence


def test_mlp_activation_sized_by_intermediate():
    m = models.get("qwen3-8b")
    fw = formulas.forward(m, 100)
    act = [o for o in fw.operators if "mlp.act" in o.name][0]
    # reads gate and up outputs (2 x I per token), writes I per token, bf16, x36 layers
    assert act.activation_read_bytes == 36 * 2 * 100 * m.intermediate_size * 2
    assert act.activation_write_bytes == 36 * 100 * m.intermediate_size * 2
    up = [o for o in fw.operators if "mlp.gate+up" in o.name][0]
    assert up.activation_write_bytes == 36 * 100 * 2 * m.intermediate_size * 2
    assert m.intermediate_size != m.hidden_size


def test_sparse_tflops_not_used_as_dense():
    h = hardware.get("h100")
    assert h.peak_tflops("bf16") == 989
    assert h.peak_tflops("bf16", sparse=True) == 1979
    assert h.peak_tflops("fp8") == 1979
    t, bound = formulas.roofline_time(989e12, 1, h)
    assert t == pytest.approx(1.0) and bound == "compute"
    for d in hardware.all():
        for p, e in d.peaks.items():
            if e.get("sparse") is not None:
                assert e["sparse"] >= 2 * e["dense"] - 1
    with pytest.raises(hardware.HardwareError):
        hardware.get("mi300x").peak_tflops("bf16", sparse=True)   # never invented


def test_nvlink_one_way_vs_both_ways():
    h = hardware.get("h100")
    assert h.link_unidirectional == 450e9
    assert h.link_bidirectional == 900e9
    a = hardware.get("a100")
    assert (a.link_unidirectional, a.link_bidirectional) == (300e9, 600e9)
    # tensor-parallel all-reduce uses the one-way figure
    m = models.get("llama-3.1-70b")
    d = formulas.decode_step(m, 8, 1024, h, devices=8)
    size = 8 * m.hidden_size * 2
    assert d.comm_time_s == pytest.approx(m.num_layers * 2 * 2 * 7 / 8 * size / 450e9)


def test_quantised_kv():
    m = models.get("llama-3.1-70b")
    assert formulas.kv_bytes_per_token(m, "fp8") == 327_680 // 2
    assert formulas.kv_bytes_per_token(m, "int4") == 327_680 // 4
    assert formulas.kv_cache_bytes(m, 1000, 2, "fp8") == 2 * 1000 * 163_840
    fw = formulas.forward(m, 1, context=1000, kv_dtype="fp8")
    fw16 = formulas.forward(m, 1, context=1000)
    assert fw.totals.kv_read_bytes * 2 == fw16.totals.kv_read_bytes


def test_sliding_window_caps_kv():
    m = models.get("gpt-oss-120b")
    assert m.num_sliding_layers == 18 and m.sliding_window == 128
    per_layer = formulas.kv_elements_per_token_layer(m) * 2
    T = 65536
    assert formulas.kv_cache_bytes(m, T) == 18 * T * per_layer + 18 * 128 * per_layer
    assert formulas.kv_cache_bytes(m, 100) == 100 * formulas.kv_bytes_per_token(m)
    # sliding attention FLOPs use at most 128 keys per query
    assert formulas.attention_key_sum(1, context=10_000, window=128) == 128
    assert formulas.attention_key_sum(300, window=128) == 128 * 129 // 2 + (300 - 128) * 128


def test_mla_latent_cache():
    m = models.get("deepseek-v3")
    assert m.is_mla and formulas.kv_elements_per_token_layer(m) == 512 + 64
    assert formulas.kv_bytes_per_token(m) == 70_272
    assert formulas.kv_bytes_per_token(m, mla_expanded=True) == 4_997_120
    assert formulas.kv_bytes_per_token(m, "fp8") == 35_136
    assert formulas.kv_cache_bytes(models.get("kimi-k2"), 1000) == 1000 * 70_272


def test_moe_flops_from_topk_weights_from_union():
    m = models.get("qwen3-30b-a3b")
    one = formulas.forward(m, 1)
    big = formulas.forward(m, 1, batch=64)
    exp = lambda fw: [o for o in fw.operators if "experts gate+up" in o.name][0]  # noqa: E731
    per_expert = 2 * m.hidden_size * m.moe_intermediate_size * 2
    assert exp(one).weight_bytes == m.num_moe_layers * 8 * per_expert     # 8 experts hit
    assert exp(big).weight_bytes == m.num_moe_layers * 128 * per_expert   # 64 x 8 >= 128: all hit
    assert exp(one).flops == m.num_moe_layers * 2 * 8 * m.hidden_size * 2 * m.moe_intermediate_size
    # per-token matmul FLOPs ~ 2 x active params without the input embedding
    lin = sum(o.flops for o in one.operators if o.kind in ("linear", "lm_head"))
    assert lin == pytest.approx(2 * m.params_active_no_embedding, rel=1e-3)
