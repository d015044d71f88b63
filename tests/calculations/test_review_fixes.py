"""Calculations added for issue 32's error list (chapters 7-12): exact bubble thresholds, expert
imbalance at a layout's granularity, checkpoint bytes with BF16 moments, chunked-prefill cost in
Little's law, speculative throughput, dense edge compute and CPU-offloaded decode."""
from fractions import Fraction

import pytest

from calculations import pipeline
from calculations.errors import CalcError


# ------------------------------------------------------------------ pipeline bubble
def test_bubble_threshold_is_strict_at_exactly_five_percent():
    # p = 16: 285 micro-batches give 15/300 = 5 % exactly, which is not below 5 %
    assert pipeline.bubble_fraction_exact(16, 285) == Fraction(1, 20)
    assert pipeline.microbatches_for_bubble(16, 0.05) == 286
    assert pipeline.microbatches_for_bubble(16, 0.05, strict=False) == 285
    assert pipeline.bubble_fraction_exact(16, 286) < Fraction(1, 20)


def test_bubble_threshold_with_interleaving_and_no_pipeline():
    m = pipeline.microbatches_for_bubble(16, 0.05, virtual=4)
    assert pipeline.bubble_fraction_exact(16, m, 4) < Fraction(1, 20) <= pipeline.bubble_fraction_exact(16, m - 1, 4)
    assert pipeline.microbatches_for_bubble(1, 0.05) == 1


@pytest.mark.parametrize("bad", [0, 1, -0.1, 1.5, "x", True])
def test_bubble_target_must_be_a_fraction(bad):
    with pytest.raises(CalcError):
        pipeline.microbatches_for_bubble(8, bad)


# ------------------------------------------------------------ expert imbalance (chapter 9)
from calculations import distributed as D, expert_layout as XL, hardware, models  # noqa: E402


def test_one_expert_per_gpu_keeps_the_hottest_expert_alone():
    loads = D.zipf_loads(256, 0.6)
    coarse = XL.layout_imbalance(loads, 32)
    fine = XL.layout_imbalance(loads, 320)
    assert coarse["experts_per_gpu"] == 8 and fine["experts_per_gpu"] == 1
    assert fine["gpus_without_expert"] == 64
    # the hottest expert's share, measured against the mean over all 320 GPUs
    assert fine["max_over_mean"] == pytest.approx(max(loads) * 320 / 256)
    assert fine["max_over_mean"] > 5 * coarse["max_over_mean"]


def test_redundant_copies_fill_the_spare_gpus_and_cut_the_imbalance():
    loads = D.zipf_loads(256, 0.6)
    r0 = XL.layout_imbalance(loads, 320, 0)["max_over_mean"]
    r32 = XL.layout_imbalance(loads, 320, 32)
    r64 = XL.layout_imbalance(loads, 320, 64)
    assert r64["gpus_without_expert"] == 0 and r64["experts_per_gpu"] == 1
    assert r0 > r32["max_over_mean"] > r64["max_over_mean"] >= 1
    assert sum(r64["replicas"]) == 256 + 64


def test_ep_penalty_uses_the_layout_granularity():
    ds, h = models.get("deepseek-v3"), hardware.get("h100")
    loads = D.zipf_loads(ds.num_experts, 0.6)
    p0 = XL.ep_imbalance_penalty(ds, h, 320, 64, 4096, loads, 0)
    p64 = XL.ep_imbalance_penalty(ds, h, 320, 64, 4096, loads, 64)
    assert p0["tpot_ratio"] > p64["tpot_ratio"] > 1
    # the old shortcut: the 32-GPU ratio fed into the 320-GPU layout understates the penalty
    coarse = XL.layout_imbalance(loads, 32)["max_over_mean"]
    shortcut = D.ep_decode(ds, h, 320, 64, 4096, imbalance=coarse).tpot_s / p0["tpot_balanced_s"]
    assert p0["tpot_ratio"] > 3 * shortcut
    with pytest.raises(CalcError):
        XL.ep_imbalance_penalty(ds, h, 320, 64, 4096, loads[:10])
    with pytest.raises(CalcError):
        XL.layout_imbalance([], 8)


# ------------------------------------------------------- checkpoint bytes (chapters 10, 11)
from calculations import checkpoints, training  # noqa: E402


def test_checkpoint_bytes_follow_the_optimizer_precisions():
    assert checkpoints.checkpoint_bytes_per_param() == training.checkpoint_bytes_per_param() == 14
    assert checkpoints.checkpoint_bytes_per_param(**checkpoints.DEEPSEEK_V3_OPTIMIZER) == 10
    with pytest.raises(CalcError):
        checkpoints.checkpoint_bytes_per_param(moments="fp7")


# ------------------------------------------------------ prefill beside decode (chapter 8)
from calculations import colocation, formulas, serving  # noqa: E402


def test_chunked_prefill_displaces_less_than_a_standalone_prefill():
    m, h = models.get("qwen3-8b"), hardware.get("h100")
    c = colocation.chunked_prefill_cost(m, h, 2000, 64, 2500, 0.05)
    assert c["alone_s"] == pytest.approx(formulas.forward(m, 2000, hw=h).totals.time_s)
    # the chunks share each decode step's weight read, so part of the prefill is hidden...
    assert 0 < c["added_s"] < c["alone_s"]
    # ...but no more than that read: the chunk's arithmetic still costs its FLOPs at peak
    weights_s = formulas.nbytes(m.params_total, "bf16") / h.hbm_bandwidth
    assert c["alone_s"] - c["added_s"] <= c["steps"] * weights_s * 1.01
    r_alone = serving.instance_rate(64, c["decode_step_s"], 500, 0.5, c["alone_s"])["rate"]
    r_chunk = serving.instance_rate(64, c["decode_step_s"], 500, 0.5, c["added_s"])["rate"]
    assert r_chunk > r_alone
    with pytest.raises(CalcError):
        colocation.chunked_prefill_cost(m, h, 2000, 64, 2500, 0.001)   # no room for any chunk


def test_speculative_throughput_gain_equals_speedup_and_falls_with_batch():
    m, d, h = models.get("qwen3-8b"), models.get("qwen3-0.6b"), hardware.get("h100")
    g = [colocation.speculative_throughput_gain(m, d, h, b, 512, 0.8, 4) for b in (1, 16, 64, 512)]
    assert g[0] == pytest.approx(serving.speculative(m, d, h, 1, 512, 0.8, 4)["speedup"])
    assert g[0] > g[1] > g[2] > 1 > g[3]


# ------------------------------------------------------------ edge compute (chapter 12)
from calculations import device, edge_compute  # noqa: E402


def test_one_convention_for_edge_compute():
    agx = device.get("orin-agx-64")
    h = edge_compute.headline_tops(agx.id)
    # the headline counts the DLAs; the GPU's share, dense, FP16, is what runs the model
    assert h["npu_tops_headline"] > h["gpu_sparse_int8_tops"]
    assert agx.prefill_tops == edge_compute.dense_fp16_from_sparse_int8(h["gpu_sparse_int8_tops"])
    for d in device.devices():
        if d.prefill_tops is not None:
            assert "fp16" in d.prefill_precision.lower() and "gpu" in d.prefill_precision.lower()
    with pytest.raises(CalcError):
        edge_compute.headline_tops("nope")


def test_cpu_held_layers_are_bound_by_host_memory_not_pcie():
    host = edge_compute.ddr_bandwidth(5600, 2)
    assert host == 89.6e9
    cpu = edge_compute.split_decode_step(23e9, 1008e9, 17e9, host)
    pcie = edge_compute.split_decode_step(23e9, 1008e9, 17e9, 31.5e9)
    assert cpu["step_s"] == pytest.approx(23e9 / 1008e9 + 17e9 / host)
    assert cpu["tokens_per_s"] > pcie["tokens_per_s"] and cpu["host_share"] > 0.5
    with pytest.raises(CalcError):
        edge_compute.ddr_bandwidth(5600, 0)
    with pytest.raises(CalcError):
        edge_compute.split_decode_step(0, 1e9, 0, 1e9)
