"""Chapter 5 arithmetic: rooflines per operator, fusion, attention IO, launches, waves, overlap."""
import json
import math

import pytest

from calculations import calc, formulas, hardware, kernels, models
from calculations.errors import CalcError


# ------------------------------------------------------------------ intensities
def test_gemm_intensity_square_matches_2n_over_3b():
    # 4096^3 BF16: 2n^3 / (3 n^2 x 2) = n/3 = 1365.33
    assert kernels.gemm_intensity(4096, 4096, 4096) == pytest.approx(4096 / 3)


def test_gemm_intensity_decode_row_is_about_one():
    # m = 1 token, 4096 x 4096 weight in BF16: 2*4096*4096 / (2*(4096 + 4096^2 + 4096)) = 0.99951...
    x = kernels.gemm_intensity(1, 4096, 4096)
    assert x == pytest.approx(4096 * 4096 / (4096 + 4096 * 4096 + 4096))
    assert 0.99 < x < 1


def test_elementwise_intensity_by_hand():
    # RMSNorm: 4 FLOPs, read 1 + write 1 BF16 tensor -> 4 / 4 = 1 FLOP/B
    assert kernels.elementwise_intensity(4, 1, 1) == 1.0
    # SwiGLU: 5 FLOPs per output, reads gate and up, writes 1 -> 5 / 6
    assert kernels.elementwise_intensity(5, 2, 1) == pytest.approx(5 / 6)
    with pytest.raises(CalcError):
        kernels.elementwise_intensity(4, 0, 0)
    with pytest.raises(CalcError):
        kernels.elementwise_intensity(4, 1, 1, dtype="fp12")


def test_operator_rows_are_per_layer_and_sum_back():
    m = models.get("qwen3-8b")
    rows = kernels.operator_rows(m, 4096)
    fw = formulas.forward(m, 4096, hw="h100")
    assert sum(r["flops"] * r["layers"] for r in rows) == fw.totals.flops
    q = next(r for r in rows if r["name"].endswith("q_proj"))
    assert q["flops"] == 2 * 4096 * 4096 * 4096          # one layer's q_proj
    assert q["bound"] == "compute"
    norm = next(r for r in rows if r["name"].endswith("input_norm"))
    assert norm["bound"] == "memory" and norm["intensity"] < 2


# ----------------------------------------------------------------------- fusion
def test_fused_chain_swiglu_by_hand():
    # SiLU(gate) then x up on 12288 BF16 values (24,576 B each):
    # unfused: silu reads 1 writes 1; mul reads 2 writes 1 -> 5 tensors = 122,880 B
    # fused: reads gate, up, writes out -> 3 tensors = 73,728 B
    r = kernels.fused_chain_bytes(12288, [0, 1])
    assert r["tensor_bytes"] == 24576
    assert r["unfused_bytes"] == 5 * 24576 == 122880
    assert r["fused_bytes"] == 3 * 24576
    assert r["saved_bytes"] == 2 * 24576


def test_fused_chain_kept_output_costs_one_write():
    # residual add (extra input: residual; output kept as the new residual) then RMSNorm:
    # unfused 3 + 2 = 5 tensors; fused reads x, residual, writes sum and normed = 4
    r = kernels.fused_chain_bytes(4096, [(1, True), 0])
    assert r["unfused_bytes"] == 5 * 8192 and r["fused_bytes"] == 4 * 8192
    # a chain of n single-input ops saves 2 (n - 1) tensors
    r = kernels.fused_chain_bytes(1000, [0] * 5)
    assert r["saved_bytes"] == 2 * 4 * 2000


@pytest.mark.parametrize("bad", [[], [-1], [(1,)], [(1, "yes")], "0"])
def test_fused_chain_bad_ops(bad):
    with pytest.raises(CalcError):
        kernels.fused_chain_bytes(10, bad)


def test_fused_chain_bad_elements():
    with pytest.raises(CalcError):
        kernels.fused_chain_bytes(0, [0])


# ----------------------------------------------------------------- attention IO
def test_attention_io_naive_by_hand():
    # N = 1024, d = 64, BF16: (4 N d + 4 N^2) x 2 B = (262,144 + 4,194,304) x 2 = 8,912,896 B
    r = kernels.attention_io(1024, 64)
    assert r["naive_bytes"] == 8912896
    assert r["score_matrix_bytes"] == 1024 * 1024 * 2


def test_attention_io_tiled_by_hand_h100():
    # M = 228 KiB / 2 B = 116,736 elements; B_c = ceil(116736 / 512) = 228; B_r = min(228, 128) = 128
    # N = 8192: T_c = ceil(8192 / 228) = 36 passes.
    # K/V outer: 2Nd + 36 x 3Nd elements (x 2 B) + 36 x 4N stats x 4 B
    N, d = 8192, 128
    r = kernels.attention_io(N, d)
    assert (r["sram_elements"], r["block_c"], r["block_r"], r["passes_kv_outer"]) == (116736, 228, 128, 36)
    assert r["kv_outer_bytes"] == 2 * (2 * N * d + 36 * 3 * N * d) + 36 * 4 * N * 4
    # Q outer: T_r = 36 query blocks of 228; Q + O once, K and V once per block, one stat per row
    assert r["q_outer_bytes"] == 2 * (2 * N * d + 36 * 2 * N * d) + N * 4
    assert r["naive_bytes"] > r["kv_outer_bytes"] > r["q_outer_bytes"]


def test_attention_io_scales_with_heads_and_theory():
    one = kernels.attention_io(32768, 128)
    many = kernels.attention_io(32768, 128, heads=32, batch=2)
    assert many["naive_bytes"] == 64 * one["naive_bytes"]
    # Theorem 2: naive / tiled tends to a constant ~ M / (3 d^2) for the K/V-outer order
    r = kernels.attention_io(1 << 20, 64, sram_bytes=192 * 1024)
    M = 192 * 1024 // 2
    assert r["naive_over_kv_outer"] == pytest.approx(M / (3 * 64 * 64), rel=0.05)
    # bigger SRAM -> fewer passes -> fewer bytes
    assert kernels.attention_io(8192, 128, sram_bytes=1 << 20)["kv_outer_bytes"] < one["kv_outer_bytes"] * 1
    assert kernels.attention_io(8192, 128, sram_bytes=1 << 20)["kv_outer_bytes"] < kernels.attention_io(8192, 128)["kv_outer_bytes"]


def test_attention_io_causal_skips_about_half():
    full = kernels.attention_io(131072, 128)
    causal = kernels.attention_io(131072, 128, causal=True)
    assert causal["naive_bytes"] == full["naive_bytes"]          # eager masking still writes N^2
    assert 0.45 < causal["q_outer_bytes"] / full["q_outer_bytes"] < 0.55


@pytest.mark.parametrize("kw", [dict(seq_len=0, head_dim=64), dict(seq_len=8, head_dim=-1),
                                dict(seq_len=8, head_dim=128, sram_bytes=512),
                                dict(seq_len=8, head_dim=64, dtype="bf17"), dict(seq_len=8.5, head_dim=64)])
def test_attention_io_bad_input(kw):
    with pytest.raises(CalcError):
        kernels.attention_io(**kw)


# ------------------------------------------------------------------- launches
def test_measured_launch_constants():
    # CUDA.jl: 80 kernels, 260 us eager, 70 us as a graph
    assert kernels.LAUNCH_S_MEASURED == pytest.approx(3.25e-6)
    assert kernels.GRAPH_NODE_S_MEASURED == pytest.approx(0.875e-6)


def test_pipeline_time_by_hand():
    # launch 1, kernels 5, 0, 0: submit at 1, 2, 3; ends 6, 6, 6 -> 6
    assert kernels.pipeline_time([5, 0, 0], 1) == 6
    # launch 2, kernels 1, 1, 1: GPU waits for each launch -> 2+1, 4+1, 6+1 = 7
    assert kernels.pipeline_time([1, 1, 1], 2) == 7
    assert kernels.pipeline_time([1, 1, 1], 2, serialize=True) == 9
    assert kernels.pipeline_time([3.0], 0) == 3.0
    with pytest.raises(CalcError):
        kernels.pipeline_time([], 1)
    with pytest.raises(CalcError):
        kernels.pipeline_time([1], -1)


def test_decode_kernel_counts_qwen3_8b():
    m = models.get("qwen3-8b")
    none = kernels.decode_kernels(m, fusion="none")
    fused = kernels.decode_kernels(m, fusion="fused")
    # 17 operator rows per layer x 36 layers + embedding, final norm, lm_head
    assert len(none) == 36 * 17 + 3 == 615
    # 9 per layer (add+norm, QKV, qk-norm+rope+cache, attention, o, add+norm, gate_up, act, down)
    # + embedding + (add + final norm) + lm_head
    assert len(fused) == 36 * 9 + 3 == 327
    # the same work: FLOPs add up exactly to the decode step's
    d = formulas.decode_step(m, 1, 8192, "h100")
    assert sum(k.flops for k in fused) == d.flops
    assert sum(k.time_s for k in fused) == pytest.approx(d.time_s, rel=1e-12)
    # eager attention writes the scores: more bytes than the fused (flash) kernel
    assert sum(k.bytes for k in none) > sum(k.bytes for k in fused)


def test_decode_kernels_rejects_moe_and_bad_fusion():
    with pytest.raises(CalcError):
        kernels.decode_kernels(models.get("deepseek-v3"))
    with pytest.raises(CalcError):
        kernels.decode_kernels(models.get("qwen3-8b"), fusion="all")


def test_decode_launch_regimes():
    m = models.get("qwen3-8b")
    r = kernels.decode_launch(m, fusion="none", launch_s=0, min_kernel_s=0, graph_launch_s=0)
    assert r["eager_s"] == pytest.approx(r["gpu_time_s"]) == pytest.approx(r["graph_s"])
    slow = kernels.decode_launch(m, fusion="none", launch_s=20e-6)
    # host-bound: the step takes at least kernels x launch
    assert slow["eager_s"] >= slow["kernels"] * 20e-6
    assert slow["graph_speedup"] > 2
    # the small model is launch-bound even at the measured CUDA cost
    small = kernels.decode_launch(models.get("qwen3-0.6b"), fusion="none")
    assert small["launch_total_s"] > small["gpu_time_s"]


def test_decode_launch_bad_input():
    with pytest.raises(CalcError):
        kernels.decode_launch(models.get("qwen3-8b"), launch_s=-1e-6)


# ------------------------------------------------------------------------ waves
def test_waves_by_hand():
    # 4096 x 4096 output in 128 x 256 tiles: 32 x 16 = 512 tiles; 132 SMs -> 4 waves (3 full + 116)
    r = kernels.waves(4096, 4096, 128, 256)
    assert (r["tiles"], r["waves"], r["full_waves"], r["last_wave_tiles"]) == (512, 4, 3, 116)
    assert r["wave_efficiency"] == pytest.approx(512 / 528)
    # 133 tiles on 132 SMs: 2 waves, the second nearly empty -> 133 / 264
    r = kernels.waves(133 * 128, 128, 128, 128)
    assert r["waves"] == 2 and r["efficiency"] == pytest.approx(133 / 264)
    # edge tiles: 200 x 128 in 128 x 128 tiles -> 2 tiles, 25,600 / 32,768 useful
    r = kernels.waves(200, 128, 128, 128)
    assert r["tile_efficiency"] == pytest.approx(200 / 256)
    assert r["efficiency"] == pytest.approx(2 / 132 * 200 / 256)


@pytest.mark.parametrize("args", [(0, 128), (128, 128, 0), (128, 128, 128, 128, 0), (1.5, 2)])
def test_waves_bad_input(args):
    with pytest.raises(CalcError):
        kernels.waves(*args)


# ---------------------------------------------------------------------- overlap
def test_overlap_by_hand():
    # compute 4, copy 2 in 4 chunks: 6/4 + 3 x 4/4 = 4.5
    r = kernels.overlap_time(4, 2, 4)
    assert r["serial_s"] == 6 and r["overlapped_s"] == 4.5
    assert kernels.overlap_time(4, 2, 1)["overlapped_s"] == 6
    assert kernels.overlap_time(4, 2, 10**6)["overlapped_s"] == pytest.approx(4, rel=1e-5)
    with pytest.raises(CalcError):
        kernels.overlap_time(1, 1, 0)


# -------------------------------------------------------------------------- CLI
def _run(argv, capsys):
    assert calc.main(argv) == 0
    return capsys.readouterr().out


def test_cli_commands_all_formats(capsys):
    for cmd in (["attention-io", "-N", "8192"], ["fusion", "-e", "12288", "--extra-inputs", "0", "1"],
                ["launch", "--model", "qwen3-8b", "--hardware", "h100"], ["waves", "-M", "4096", "-N", "4096"]):
        for fmt in ("text", "md", "csv", "json"):
            out = _run(cmd + ["--format", fmt], capsys)
            assert out.strip()
            if fmt == "json":
                json.loads(out)


def test_cli_json_values(capsys):
    r = json.loads(_run(["attention-io", "-N", "1024", "--head-dim", "64", "--format", "json"], capsys))
    assert r[0]["naive_bytes"] == 8912896
    r = json.loads(_run(["waves", "-M", "4096", "-N", "4096", "--tile-n", "256", "--format", "json"], capsys))
    assert r[0]["waves"] == 4
    r = json.loads(_run(["launch", "--fusion", "fused", "--format", "json"], capsys))
    assert r[0]["kernels"] == 327


def test_cli_bad_input_exits_2(capsys):
    with pytest.raises(SystemExit) as e:
        calc.main(["waves", "-M", "0", "-N", "4"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        calc.main(["attention-io", "-N", "8", "--head-dim", "128", "--sram-bytes", "100"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        calc.main(["launch", "--model", "deepseek-v3"])
    assert e.value.code == 2


# ----------------------------------------------- occupancy, bank conflicts, online softmax
def test_latency_hiding_by_hand():
    # 700 cycles of latency, 100 of work: a period of 800, 8 warps keep a scheduler busy
    r = kernels.latency_hiding(700, 100, 4)
    assert r["warps_needed"] == 8 and r["busy"] == pytest.approx(0.5)
    assert kernels.latency_hiding(700, 100, 8)["busy"] == 1.0
    assert kernels.latency_hiding(700, 100, 12)["busy"] == 1.0
    with pytest.raises(kernels.KernelError):
        kernels.latency_hiding(700, 0, 4)


def test_bank_conflicts_by_hand():
    assert kernels.bank_conflict_ways(1) == 1          # consecutive words: one per bank
    assert kernels.bank_conflict_ways(32) == 32        # a column of a 32 x 32 float tile
    assert kernels.bank_conflict_ways(33) == 1         # the same column, rows padded by a word
    assert kernels.bank_conflict_ways(2) == 2          # stride 2: banks 0, 2, ..., two words each
    assert kernels.bank_conflict_ways(16) == 16


def test_online_softmax_equals_one_pass():
    import math
    s = [1.0, 3.0, 0.5, 2.0, 4.0, 1.5, 0.0, 2.5]
    r = kernels.online_softmax(s, 4)
    assert r["m"] == r["full_m"] == 4.0 and r["l"] == pytest.approx(r["full_l"], rel=1e-12)
    first = r["steps"][0]
    assert first["m"] == 3.0 and first["l"] == pytest.approx(sum(math.exp(x - 3) for x in s[:4]))
    assert r["steps"][1]["scale"] == pytest.approx(math.exp(-1.0))
    # one tile is the one-pass softmax; a tile per score still ends at the same sum
    assert kernels.online_softmax(s, 1)["l"] == pytest.approx(r["full_l"])
    with pytest.raises(kernels.KernelError):
        kernels.online_softmax([], 4)


def test_padded_rows_by_hand():
    r = kernels.padded_rows([8, 0, 65, 64], 64)
    assert r["padded"] == [64, 0, 128, 64] and r["used"] == 137
    assert r["useful"] == pytest.approx(137 / 256)
    with pytest.raises(kernels.KernelError):
        kernels.padded_rows([3, -1], 64)


def test_moe_routing_counts_sum_and_repeat():
    c = kernels.moe_routing_counts(256, 256, 8, seed=0)
    assert sum(c) == 256 * 8 and len(c) == 256
    assert c == kernels.moe_routing_counts(256, 256, 8, seed=0)      # same draw every build
    with pytest.raises(kernels.KernelError):
        kernels.moe_routing_counts(4, 8, 9)
