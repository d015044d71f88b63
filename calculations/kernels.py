"""Kernels and the runtime (chapter 5): per-operator rooflines, fusion savings, attention IO (naive vs tiled), launch overhead, wave quantization.

Standard library only. `add_commands` registers this module's `calc.py` subcommands.

Conventions: bytes are exact ints (HBM traffic, decimal units when printed); times are seconds;
a multiply-add is 2 FLOPs. Every function validates its arguments and raises `KernelError`
(a `CalcError`) on bad input, so `calc.py` prints one line instead of a traceback.
"""
from __future__ import annotations

from calculations import cliargs

import math
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Optional

from . import formulas as _f
from . import hardware as _hw
from .errors import CalcError

__all__ = [
    "KernelError", "H100_SMS", "H100_SMEM_PER_SM", "H100_LATENCY_CYCLES", "H100_BOOST_CLOCK_HZ", "LAUNCH_S_MEASURED", "GRAPH_NODE_S_MEASURED", "MEASURED_GRAPH_CPU_S",
    "gemm_intensity", "elementwise_intensity", "operator_rows",
    "fused_chain_bytes", "attention_io", "Kernel", "decode_kernels", "pipeline_time", "decode_launch",
    "waves", "overlap_time",
    "H100_MAX_WARPS_PER_SM", "H100_REGS_PER_SM", "H100_SCHEDULERS_PER_SM", "SMEM_BANKS",
    "SMEM_BANK_BYTES", "latency_hiding", "bank_conflict_ways", "online_softmax",
    "padded_rows", "moe_routing_counts",
]

# H100 SXM5: 132 SMs (Hopper architecture whitepaper); up to 228 KiB shared memory per SM
# (Hopper tuning guide). The same facts chapter 4 uses.
H100_SMS = 132
H100_SMEM_PER_SM = 228 * 1024

# Measured load latencies on an H100 SXM, in clock cycles (pointer-chasing microbenchmark,
# markdewing/AI_kernels latency/README.md at commit 0d701add13c82ea0533d5fc0c5755c72b28a287b;
# clocks not locked): L1 40, L2 291, main memory (HBM) 700. Chapters 1 and 4 both use them.
# Converted to time at the H100 SXM's maximum boost clock, 1.98 GHz (NVIDIA H100 architecture whitepaper): the
# run did not lock clocks, so the time is an estimate of the idle latency, not a second measurement.
H100_LATENCY_CYCLES = {"l1": 40, "l2": 291, "hbm": 700}
H100_BOOST_CLOCK_HZ = 1.98e9

# A public measurement (CUDA.jl documentation, "Graphs"): 10 RK4 steps of a small ODE, 80 small
# broadcast kernels, take 260 us end to end launched one by one and 70 us launched as one graph,
# of which the CPU is busy 3.5 us. Both are end-to-end times: they include the kernels' GPU work
# and, eagerly, Julia's per-broadcast dispatch; they are not a bare cudaLaunchKernel.
MEASURED_KERNELS = 80
MEASURED_EAGER_S = 260e-6
MEASURED_GRAPH_S = 70e-6
MEASURED_GRAPH_CPU_S = 3.5e-6
LAUNCH_S_MEASURED = MEASURED_EAGER_S / MEASURED_KERNELS        # 3.25 us per kernel
GRAPH_NODE_S_MEASURED = MEASURED_GRAPH_S / MEASURED_KERNELS    # 0.875 us per kernel


class KernelError(CalcError):
    """Bad argument to a kernel/runtime formula (user-facing)."""


def _pos_int(v, name, zero_ok=False):
    if isinstance(v, bool) or not isinstance(v, int) or v < 0 or (v == 0 and not zero_ok):
        raise KernelError(f"{name} must be a {'non-negative' if zero_ok else 'positive'} integer, got {v!r}")
    return v


def _pos_num(v, name, zero_ok=False):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v == float("inf") \
            or v < 0 or (v == 0 and not zero_ok):
        raise KernelError(f"{name} must be a {'non-negative' if zero_ok else 'positive'} number, got {v!r}")
    return v


def _dtype_bytes(dtype) -> float:
    try:
        bits = _f.DTYPE_BITS[_f._dtype(dtype)]
    except CalcError as e:
        raise KernelError(str(e)) from None
    return bits / 8


# ============================================================ per-operator roofline
def gemm_intensity(m: int, k: int, n: int, dtype: str = "bf16") -> float:
    """FLOP/byte of C[m x n] = A[m x k] @ B[k x n] when A and B are read once and C written once:
    2mkn / (b (mk + kn + mn))."""
    for v, nm in ((m, "m"), (k, "k"), (n, "n")):
        _pos_int(v, nm)
    b = _dtype_bytes(dtype)
    return 2 * m * k * n / (b * (m * k + k * n + m * n))


def elementwise_intensity(flops_per_element: float, reads: int, writes: int, dtype: str = "bf16") -> float:
    """FLOP/byte of an elementwise operator that does `flops_per_element` FLOPs per output element
    and reads `reads`, writes `writes` tensors of the output's size."""
    _pos_num(flops_per_element, "flops_per_element")
    _pos_int(reads, "reads", zero_ok=True)
    _pos_int(writes, "writes", zero_ok=True)
    if reads + writes == 0:
        raise KernelError("an operator must read or write something")
    return flops_per_element / (_dtype_bytes(dtype) * (reads + writes))


def operator_rows(m, tokens: int, hw="h100", batch: int = 1, context: int = 0, dtype: str = "bf16") -> list:
    """Per-layer operator table (FLOPs, bytes, intensity, roofline time, bound) of one forward pass,
    from `formulas.forward`; rows that aggregate L layers are divided by L (exact: FLOPs and bytes
    are linear in the layer count)."""
    h = _hw.get(hw)
    fw = _f.forward(m, tokens, batch=batch, context=context, dtype=dtype, hw=h)
    ridge = h.ridge_point(fw.precision)
    rows = []
    for o in fw.operators:
        n = o.layers
        fl, by = o.flops // n, o.bytes // n
        rows.append({"name": o.name.replace(f" (x{n} layers)", ""), "kind": o.kind, "layers": n,
                     "flops": fl, "bytes": by, "intensity": (fl / by) if by else None,
                     "time_s": o.time_s / n, "bound": o.bound, "ridge": ridge})
    return rows


# ======================================================================== fusion
def fused_chain_bytes(elements: int, ops: list, dtype: str = "bf16") -> dict:
    """HBM bytes of a chain of elementwise operators, unfused and fused into one kernel.

    `elements`: size of every tensor in the chain. `ops`: one entry per operator, either an int
    (extra inputs besides the previous operator's output) or a pair (extra_inputs, keep) where
    keep=True means the operator's output is needed later and must still be written when fused.
    The first operator reads the chain input; the last one's output is always written.

    Unfused: operator k reads 1 + extra_k tensors and writes 1.
    Fused: the chain input and every extra input are read once; kept outputs and the final output
    are written once. Saved = 2 x (intermediates not kept) x tensor bytes."""
    _pos_int(elements, "elements")
    if not isinstance(ops, (list, tuple)) or not ops:
        raise KernelError("ops must be a non-empty list")
    extras, keeps = [], []
    for i, op in enumerate(ops):
        if isinstance(op, (list, tuple)):
            if len(op) != 2:
                raise KernelError(f"op {i}: expected (extra_inputs, keep), got {op!r}")
            e, keep = op
            if not isinstance(keep, bool):
                raise KernelError(f"op {i}: keep must be True or False, got {keep!r}")
        else:
            e, keep = op, False
        _pos_int(e, f"op {i} extra inputs", zero_ok=True)
        extras.append(e)
        keeps.append(keep)
    keeps[-1] = True
    t = _f.nbytes(elements, dtype)
    unfused = sum(2 + e for e in extras) * t
    fused = (1 + sum(extras) + sum(keeps)) * t
    return {"elements": elements, "ops": len(ops), "tensor_bytes": t, "unfused_bytes": unfused,
            "fused_bytes": fused, "saved_bytes": unfused - fused, "ratio": unfused / fused,
            "kernels_unfused": len(ops), "kernels_fused": 1}


# ================================================================ attention IO
def attention_io(seq_len: int, head_dim: int, heads: int = 1, batch: int = 1, sram_bytes: int = H100_SMEM_PER_SM,
                 dtype: str = "bf16", stat_bytes: int = 4, causal: bool = False) -> dict:
    """HBM bytes of one attention forward pass (softmax(QK^T) V, N = seq_len queries and keys),
    naive vs tiled, after Dao et al. 2022 (FlashAttention, Algorithms 0 and 1).

    naive (Algorithm 0): S = QK^T written, read; P = softmax(S) written, read; O = PV written:
        4 N d + 4 N^2 elements per head (Theta(Nd + N^2)). A causal mask does not shrink it.
    tiled, K/V outer loop (Algorithm 1): M = sram_bytes / element size, B_c = ceil(M / 4d),
        B_r = min(B_c, d). K and V are read once (2Nd); each of the T_c = ceil(N / B_c) passes reads
        Q and O, writes O (3 N d elements) and reads and writes the row statistics l, m
        (4 N values of `stat_bytes`): Theta(N^2 d^2 / M).
    tiled, Q outer loop (FlashAttention-2 order, same block size B = ceil(M / 4d) for both):
        Q read once, O written once, row statistic (logsumexp) written once, K and V read once
        per query block: 2 N d + T_r x 2 N d elements, T_r = ceil(N / B).
    causal=True lets the tiled kernels skip blocks above the diagonal (exact block counts).
    Per-head counts are multiplied by heads x batch (query heads: K/V are counted per query head).
    """
    N, d = _pos_int(seq_len, "seq_len"), _pos_int(head_dim, "head_dim")
    _pos_int(heads, "heads")
    _pos_int(batch, "batch")
    _pos_int(sram_bytes, "sram_bytes")
    _pos_int(stat_bytes, "stat_bytes")
    b = _dtype_bytes(dtype)
    M = int(sram_bytes // b)
    if M < 4 * d:
        raise KernelError(f"SRAM of {sram_bytes} B holds {M} elements: too small for one block of "
                          f"head_dim {d} (needs at least 4 x d = {4 * d})")
    el = lambda n: _f.nbytes(n, dtype)  # noqa: E731
    naive = el(4 * N * d + 4 * N * N)
    Bc = math.ceil(M / (4 * d))
    Br = min(Bc, d)
    Tc = math.ceil(N / Bc)
    # rows of Q visited by each K/V block (all N, or those at or below the block's first key)
    rows_per_kv = [N if not causal else N - j * Bc for j in range(Tc)]
    q_rows = sum(rows_per_kv)
    kv_outer = el(2 * N * d) + el(3 * q_rows * d) + 4 * q_rows * stat_bytes
    B = Bc
    Tr = math.ceil(N / B)
    kv_rows = sum(N if not causal else min(N, (i + 1) * B) for i in range(Tr))
    q_outer = el(2 * N * d) + el(2 * kv_rows * d) + N * stat_bytes
    scale = heads * batch
    return {"seq_len": N, "head_dim": d, "heads": heads, "batch": batch, "dtype": dtype,
            "sram_bytes": sram_bytes, "sram_elements": M, "block_c": Bc, "block_r": Br,
            "passes_kv_outer": Tc, "passes_q_outer": Tr, "causal": bool(causal),
            "naive_bytes": naive * scale, "kv_outer_bytes": kv_outer * scale, "q_outer_bytes": q_outer * scale,
            "score_matrix_bytes": el(N * N) * scale,
            "naive_over_kv_outer": naive / kv_outer, "naive_over_q_outer": naive / q_outer,
            "flops": 4 * N * N * d * scale}


# ============================================================= launch overhead
@dataclass
class Kernel:
    """One GPU kernel of a step: FLOPs, HBM bytes and its roofline time on the device."""
    name: str
    flops: int
    bytes: int
    time_s: float
    parts: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


# Which operator-table rows a fused decode kernel absorbs (dense decoder layers): a row whose key
# is listed here is merged into the kernel opened by the row named by the value.
_FUSE_INTO = {"k_proj": "q_proj", "v_proj": "q_proj", "rope": "q_norm+k_norm", "kv_cache_write": "q_norm+k_norm",
              "softmax": "attn_scores", "attn_x_V": "attn_scores", "post_attention_norm": "residual_add"}


def _row_key(name: str) -> str:
    base = name.split("] ", 1)[1] if name.startswith("L[") else name
    return base.split(" ")[0]


def decode_kernels(m, batch: int = 1, context: int = 8192, hw="h100", dtype: str = "bf16",
                   fusion: str = "none") -> list:
    """The kernels of one decode step, layer by layer, with their roofline times.

    fusion="none": one kernel per row of the operator table, eager attention (QK^T, softmax, PV
    as three kernels writing scores to memory): the granularity of a framework running operator
    by operator.
    fusion="fused": the usual inference-engine fusions: QKV as one GEMM; q/k norm + RoPE + KV-cache
    write as one kernel; attention (QK^T, softmax, PV) as one FlashAttention-style kernel;
    residual add + the next RMSNorm as one kernel (the last residual add goes with the final norm).
    A fused kernel's bytes are the sum of its parts (an upper bound: the intermediates it no
    longer writes are a few KB per layer at decode)."""
    if fusion not in ("none", "fused"):
        raise KernelError("fusion must be 'none' or 'fused'")
    if m.is_moe or m.is_mla:
        raise KernelError(f"{m.id}: decode_kernels covers dense GQA/MHA decoders only")
    h = _hw.get(hw)
    fw = _f.forward(m, 1, batch=batch, context=context, dtype=dtype, hw=h,
                    attention_impl="eager" if fusion == "none" else "flash")
    # expand the per-group rows into the per-layer sequence
    seq = [("embedding", fw.operators[0])]
    layer_rows = [o for o in fw.operators[1:] if o.name.startswith("L[")]
    tail = [o for o in fw.operators[1:] if not o.name.startswith("L[")]
    groups: list = []
    for o in layer_rows:
        pre = o.name.split("] ", 1)[0]
        if not groups or groups[-1][0] != pre:
            groups.append((pre, []))
        groups[-1][1].append(o)
    for _, rows in groups:
        n = rows[0].layers
        for _ in range(n):
            for o in rows:
                seq.append((_row_key(o.name), o))
    for o in tail:
        seq.append((_row_key(o.name), o))
    kernels: list = []
    pending_residual = None
    for key, o in seq:
        n = o.layers
        fl, by, t = o.flops // n, o.bytes // n, o.time_s / n
        if fusion == "fused":
            if key in _FUSE_INTO and kernels and kernels[-1].parts[0] == _FUSE_INTO[key]:
                k = kernels[-1]
                k.flops += fl
                k.bytes += by
                k.time_s += t
                k.parts.append(key)
                continue
            if key == "residual_add" and kernels and kernels[-1].parts[0] != "o_proj":
                # the MLP's residual add joins the next layer's input norm (or the final norm)
                pending_residual = (fl, by, t)
                continue
            if key in ("input_norm", "final_norm") and pending_residual is not None:
                fl2, by2, t2 = pending_residual
                pending_residual = None
                kernels.append(Kernel(key, fl + fl2, by + by2, t + t2, ["residual_add", key]))
                continue
        kernels.append(Kernel(key, fl, by, t, [key]))
    if pending_residual is not None:
        raise KernelError("internal: a residual add was left without a following norm")
    return kernels


def pipeline_time(gpu_times: list, launch_s: float, serialize: bool = False) -> float:
    """Wall time of a sequence of kernels submitted one at a time by one CPU thread.

    The CPU spends `launch_s` submitting each kernel; submission is asynchronous, so it runs ahead
    while the GPU works. Kernel i starts when it has been submitted and kernel i-1 has finished:
        submit_i = (i + 1) launch_s,  start_i = max(submit_i, end_{i-1}),  end_i = start_i + g_i.
    serialize=True models a host that waits for each kernel before submitting the next (a
    synchronisation per operator): time = sum(launch_s + g_i)."""
    _pos_num(launch_s, "launch_s", zero_ok=True)
    if not isinstance(gpu_times, (list, tuple)) or not gpu_times:
        raise KernelError("gpu_times must be a non-empty list")
    for g in gpu_times:
        _pos_num(g, "kernel time", zero_ok=True)
    if serialize:
        return sum(launch_s + g for g in gpu_times)
    end = 0.0
    for i, g in enumerate(gpu_times):
        end = max((i + 1) * launch_s, end) + g
    return end


@lru_cache(maxsize=64)
def _kernel_times(m, batch: int, context: int, hw, dtype: str, fusion: str) -> tuple:
    """The roofline time of each kernel of one decode step (`decode_kernels`), memoised: they do
    not depend on the launch costs, which a sweep over the host's cost per launch varies (the
    figure of chapter 5 asks for 244 points of 4 kernel lists). Models and devices are frozen
    dataclasses, so the arguments key the memo."""
    return tuple(k.time_s for k in decode_kernels(m, batch=batch, context=context, hw=hw,
                                                  dtype=dtype, fusion=fusion))


def decode_launch(m, hw="h100", batch: int = 1, context: int = 8192, dtype: str = "bf16", fusion: str = "none",
                  launch_s: float = LAUNCH_S_MEASURED, min_kernel_s: float = GRAPH_NODE_S_MEASURED,
                  graph_launch_s: float = LAUNCH_S_MEASURED) -> dict:
    """Launch overhead against bandwidth time for one decode step.

    launch_s: host time to submit one kernel (CUDA alone: a few us; a Python framework adds its
    own per-operator overhead). min_kernel_s: the shortest time a kernel occupies the GPU however
    little it does (a graph of tiny kernels runs at this pace).
    gpu_time_s: the sum of the kernels' roofline times (the step if launches were free).
    gpu_floor_s: the same with every kernel lasting at least min_kernel_s.
    launch_total_s: kernels x launch_s, the host's submission time.
    eager_s: pipelined submission (`pipeline_time`); serialized_s: a synchronisation per kernel.
    graph_s: the whole step captured as one CUDA graph: one launch, then the kernels back to back.
    break_even_launch_s: the host cost per kernel at which submission takes as long as the GPU work."""
    _pos_num(launch_s, "launch_s", zero_ok=True)
    _pos_num(min_kernel_s, "min_kernel_s", zero_ok=True)
    _pos_num(graph_launch_s, "graph_launch_s", zero_ok=True)
    try:
        g = list(_kernel_times(m, batch, context, _hw.get(hw), dtype, fusion))
    except TypeError:   # an unhashable model or device made by hand: no memo, same numbers
        g = [k.time_s for k in decode_kernels(m, batch=batch, context=context, hw=hw,
                                              dtype=dtype, fusion=fusion)]
    gf = [max(t, min_kernel_s) for t in g]
    gpu, floor = sum(g), sum(gf)
    eager = pipeline_time(gf, launch_s)
    serial = pipeline_time(gf, launch_s, serialize=True)
    graph = graph_launch_s + floor
    n = len(g)
    return {"model": m.id, "hardware": _hw.get(hw).id, "batch": batch, "context": context, "fusion": fusion,
            "kernels": n, "kernels_shorter_than_launch": sum(1 for t in g if t < launch_s),
            "launch_s": launch_s, "min_kernel_s": min_kernel_s,
            "gpu_time_s": gpu, "gpu_floor_s": floor, "launch_total_s": n * launch_s,
            "launch_over_gpu": n * launch_s / gpu, "break_even_launch_s": floor / n,
            "eager_s": eager, "serialized_s": serial, "graph_s": graph,
            "eager_over_gpu": eager / gpu, "graph_speedup": eager / graph}


# ============================================================ wave quantization
def waves(m: int, n: int, tile_m: int = 128, tile_n: int = 128, sms: int = H100_SMS, ctas_per_sm: int = 1) -> dict:
    """Tiles and waves of a GEMM whose output C[m x n] is cut into tile_m x tile_n tiles, one tile
    per CTA, `ctas_per_sm` CTAs resident per SM.

    tiles = ceil(m / tile_m) ceil(n / tile_n); slots = sms x ctas_per_sm; waves = ceil(tiles / slots);
    wave_efficiency = tiles / (waves x slots) (the last wave's idle slots);
    tile_efficiency = m n / (tiles tile_m tile_n) (padding in the edge tiles);
    efficiency = the product: the fraction of the GPU's tile slots doing useful work."""
    for v, nm in ((m, "m"), (n, "n"), (tile_m, "tile_m"), (tile_n, "tile_n"), (sms, "sms"),
                  (ctas_per_sm, "ctas_per_sm")):
        _pos_int(v, nm)
    tiles = math.ceil(m / tile_m) * math.ceil(n / tile_n)
    slots = sms * ctas_per_sm
    w = math.ceil(tiles / slots)
    we = tiles / (w * slots)
    te = m * n / (tiles * tile_m * tile_n)
    return {"m": m, "n": n, "tile_m": tile_m, "tile_n": tile_n, "sms": sms, "ctas_per_sm": ctas_per_sm,
            "tiles": tiles, "slots": slots, "waves": w, "full_waves": tiles // slots, "last_wave_tiles": tiles - (w - 1) * slots,
            "wave_efficiency": we, "tile_efficiency": te, "efficiency": we * te}


# ================================================================ streams/overlap
def overlap_time(compute_s: float, copy_s: float, chunks: int = 1) -> dict:
    """Compute and a copy on two streams, split into `chunks` equal pieces where piece i's compute
    needs piece i's copy (a two-stage pipeline):
        serial = compute + copy;  overlapped = (compute + copy) / chunks + (chunks - 1) max(c, x) / chunks.
    With one chunk there is no overlap; as chunks grow it tends to max(compute, copy)."""
    _pos_num(compute_s, "compute_s", zero_ok=True)
    _pos_num(copy_s, "copy_s", zero_ok=True)
    _pos_int(chunks, "chunks")
    serial = compute_s + copy_s
    over = serial / chunks + (chunks - 1) * max(compute_s, copy_s) / chunks
    return {"compute_s": compute_s, "copy_s": copy_s, "chunks": chunks, "serial_s": serial,
            "overlapped_s": over, "bound_s": max(compute_s, copy_s),
            "hidden_fraction": (serial - over) / min(compute_s, copy_s) if min(compute_s, copy_s) > 0 else 1.0}


# ======================================================= occupancy and latency hiding
# Compute capability 9.0 (H100): at most 64 resident warps and 64K 32-bit registers per SM, four
# warp schedulers (SM sub-partitions) per SM; shared memory in 32 banks of 4 bytes, successive
# 4-byte words in successive banks (CUDA C++ Programming Guide, "Compute Capabilities" table and
# the shared-memory section of compute capability 5.x onward; Hopper architecture whitepaper).
H100_MAX_WARPS_PER_SM = 64
H100_REGS_PER_SM = 65536
H100_SCHEDULERS_PER_SM = 4
SMEM_BANKS = 32
SMEM_BANK_BYTES = 4


def latency_hiding(latency_cycles: float, work_cycles: float, warps: int) -> dict:
    """One warp scheduler round-robins `warps` warps; each warp issues `work_cycles` of
    independent instructions, then waits `latency_cycles` for a load its next work depends on.
    A warp's period is work + latency; in that time the scheduler can issue for `warps` x work
    cycles, so busy = min(1, warps x work / (work + latency)) and the warps needed to keep it
    busy are ceil((work + latency) / work). The model of Little's law applied to warps: the
    latency is hidden when there is enough independent work in flight."""
    _pos_num(latency_cycles, "latency_cycles", zero_ok=True)
    _pos_num(work_cycles, "work_cycles")
    _pos_int(warps, "warps")
    period = work_cycles + latency_cycles
    return {"latency_cycles": latency_cycles, "work_cycles": work_cycles, "warps": warps,
            "period_cycles": period, "busy": min(1.0, warps * work_cycles / period),
            "warps_needed": math.ceil(period / work_cycles)}


def bank_conflict_ways(stride_words: int, threads: int = 32, banks: int = SMEM_BANKS) -> int:
    """Thread i of a warp reads the 4-byte word i x stride_words of shared memory; word w lives in
    bank w mod banks. Distinct words in one bank are served one after another, so the access
    takes as many passes as the busiest bank has words (1 = conflict-free)."""
    _pos_int(stride_words, "stride_words")
    _pos_int(threads, "threads")
    _pos_int(banks, "banks")
    per_bank: dict = {}
    for i in range(threads):
        per_bank.setdefault((i * stride_words) % banks, set()).add(i * stride_words)
    return max(len(v) for v in per_bank.values())


def online_softmax(scores: list, tile: int) -> dict:
    """Softmax statistics of one row of scores arriving `tile` at a time (FlashAttention's online
    softmax): after each tile, the running max m and the running sum l of exp(s - m). When the
    max grows from m_old to m_new, the old sum is rescaled by exp(m_old - m_new) before the
    tile's own terms are added; the final (m, l) equals the one-pass max and sum exactly (up to
    rounding)."""
    if not scores:
        raise KernelError("scores: need at least one score")
    _pos_int(tile, "tile")
    m, l, steps = -math.inf, 0.0, []
    for at in range(0, len(scores), tile):
        chunk = scores[at:at + tile]
        m_new = max(m, max(chunk))
        scale = math.exp(m - m_new) if m != -math.inf else 0.0
        l = l * scale + sum(math.exp(s - m_new) for s in chunk)
        steps.append({"m": m_new, "l": l, "scale": scale, "tile_max": max(chunk)})
        m = m_new
    full_m = max(scores)
    full_l = sum(math.exp(s - full_m) for s in scores)
    return {"steps": steps, "m": m, "l": l, "full_m": full_m, "full_l": full_l}


# ================================================================ padding waste
def padded_rows(rows: list, tile: int) -> dict:
    """Groups of rows (one matmul each, e.g. the tokens routed to each expert) computed in tiles
    of `tile` rows: each group is padded up to a multiple of the tile (an empty group costs
    nothing). useful = sum(rows) / sum(padded)."""
    _pos_int(tile, "tile")
    if not rows or any(not isinstance(r, int) or r < 0 for r in rows):
        raise KernelError(f"rows: need non-negative integers, got {rows!r}")
    padded = [math.ceil(r / tile) * tile for r in rows]
    total = sum(padded)
    return {"rows": list(rows), "tile": tile, "padded": padded, "used": sum(rows),
            "padded_total": total, "useful": sum(rows) / total if total else 1.0}


def moe_routing_counts(tokens: int, experts: int, top_k: int, seed: int = 0) -> list:
    """Tokens per expert when each of `tokens` tokens picks `top_k` distinct experts uniformly at
    random (a seeded draw, so the book's numbers do not change between builds): the balanced case,
    with no popular experts; real routers are more skewed (chapter 9)."""
    import random
    for v, nm in ((tokens, "tokens"), (experts, "experts"), (top_k, "top_k")):
        _pos_int(v, nm)
    if top_k > experts:
        raise KernelError(f"top_k {top_k} > experts {experts}")
    rng = random.Random(seed)
    counts = [0] * experts
    for _ in range(tokens):
        for e in rng.sample(range(experts), top_k):
            counts[e] += 1
    return counts


# ===================================================================== CLI
def sm_split_overlap(compute_s: float, comm_bytes: float, sms: int, comm_sms: int,
                     link_bw: float, per_sm_bw: float) -> dict:
    """A communication kernel that moves data with SM threads (NCCL, DeepEP) running beside a
    compute kernel on the same GPU. `compute_s` is the compute time on all `sms` SMs (scaling with
    the SM count); the communication kernel holds `comm_sms` of them and moves `comm_bytes` at
    min(link_bw, comm_sms x per_sm_bw). Serial: compute on every SM, then communicate at the link
    rate. Overlapped: compute on the remaining SMs while the communication runs, the longer of the
    two. Overlap beats serial while the compute it slows down, compute_s x s / (S - s), is less than
    the communication it hides; the largest such s is S x X / (C + X) (X at the link rate)."""
    _pos_num(compute_s, "compute_s", zero_ok=True)
    _pos_num(comm_bytes, "comm_bytes", zero_ok=True)
    _pos_int(sms, "sms")
    _pos_int(comm_sms, "comm_sms")
    _pos_num(link_bw, "link_bw")
    _pos_num(per_sm_bw, "per_sm_bw")
    if comm_sms >= sms:
        raise ValueError(f"comm_sms must be below sms, got {comm_sms} of {sms}")
    comm_link_s = comm_bytes / link_bw
    comm_s = comm_bytes / min(link_bw, comm_sms * per_sm_bw)
    compute_slow_s = compute_s * sms / (sms - comm_sms)
    serial = compute_s + comm_link_s
    overlapped = max(compute_slow_s, comm_s)
    total = compute_s + comm_link_s
    return {"serial_s": serial, "overlapped_s": overlapped, "comm_s": comm_s,
            "comm_link_s": comm_link_s, "compute_slow_s": compute_slow_s,
            "compute_extra_s": compute_slow_s - compute_s,
            "sms_to_saturate": math.ceil(link_bw / per_sm_bw),
            "max_comm_sms": sms * comm_link_s / total if total > 0 else 0.0,
            "speedup": serial / overlapped if overlapped > 0 else 1.0}


def _model(args):
    from calculations import models
    if getattr(args, "config", None):
        return models.load_config(args.config)
    return models.get(args.model or "qwen3-8b")


def _hwarg(args):
    if getattr(args, "hardware_config", None):
        return _hw.load(args.hardware_config)
    return _hw.get(args.hardware or "h100")


def _cmd_attention_io(args):
    from calculations import tables
    rows = []
    for n in args.seq_len:
        r = attention_io(n, args.head_dim, heads=args.heads, batch=args.batch, sram_bytes=args.sram_bytes,
                         dtype=args.dtype, causal=args.causal)
        rows.append(r)
    cols = [("seq_len", "N", "int"), ("head_dim", "d", "int"), ("heads", "heads", "int"),
            ("block_c", "B_c", "int"), ("passes_kv_outer", "passes (K/V outer)", "int"),
            ("naive_bytes", "naive HBM", "bytes"), ("kv_outer_bytes", "tiled, K/V outer", "bytes"),
            ("q_outer_bytes", "tiled, Q outer", "bytes"), ("naive_over_kv_outer", "naive / K/V outer", "float"),
            ("naive_over_q_outer", "naive / Q outer", "float"), ("score_matrix_bytes", "N x N scores", "bytes")]
    return tables.render(rows, cols, args.format,
                         title=f"attention HBM traffic, SRAM {args.sram_bytes:,} B, {args.dtype}"
                         + (", causal" if args.causal else ""))


def _cmd_fusion(args):
    from calculations import tables
    ops = [int(x) for x in args.extra_inputs] if args.extra_inputs else [0] * args.ops
    r = fused_chain_bytes(args.elements, ops, dtype=args.dtype)
    items = [("elements", "elements per tensor", r["elements"], "int"), ("ops", "operators", r["ops"], "int"),
             ("unfused_bytes", "unfused HBM bytes", r["unfused_bytes"], "bytes"),
             ("fused_bytes", "fused HBM bytes", r["fused_bytes"], "bytes"),
             ("saved_bytes", "saved", r["saved_bytes"], "bytes"), ("ratio", "unfused / fused", r["ratio"], "float")]
    return tables.render_kv(items, args.format, raw=r, title="elementwise chain: unfused vs one fused kernel")


def _cmd_launch(args):
    from calculations import tables
    m = _model(args)
    hw = _hwarg(args)
    rows = [decode_launch(m, hw, batch=args.batch, context=args.context, fusion=f, launch_s=args.launch_us * 1e-6,
                          min_kernel_s=args.min_kernel_us * 1e-6, graph_launch_s=args.launch_us * 1e-6)
            for f in (["none", "fused"] if args.fusion == "both" else [args.fusion])]
    cols = [("fusion", "fusion", "str"), ("kernels", "kernels", "int"),
            ("kernels_shorter_than_launch", "shorter than a launch", "int"),
            ("gpu_time_s", "GPU (roofline) time", "sec"), ("gpu_floor_s", "with kernel floor", "sec"),
            ("launch_total_s", "kernels x launch", "sec"), ("break_even_launch_s", "break-even launch", "sec"),
            ("eager_s", "eager, pipelined", "sec"), ("serialized_s", "eager, sync per kernel", "sec"),
            ("graph_s", "CUDA graph", "sec"), ("graph_speedup", "graph speed-up", "float")]
    return tables.render(rows, cols, args.format,
                         title=f"{m.id} decode step on {hw.id}, batch {args.batch}, context {args.context}, "
                               f"launch {args.launch_us} us")


def _cmd_waves(args):
    from calculations import tables
    rows = [waves(mm, args.n, args.tile_m, args.tile_n, args.sms, args.ctas_per_sm) for mm in args.m]
    cols = [("m", "M", "int"), ("n", "N", "int"), ("tiles", "tiles", "int"), ("slots", "slots", "int"),
            ("waves", "waves", "int"), ("last_wave_tiles", "tiles in last wave", "int"),
            ("wave_efficiency", "wave eff.", "float"), ("tile_efficiency", "tile eff.", "float"),
            ("efficiency", "efficiency", "float")]
    return tables.render(rows, cols, args.format,
                         title=f"tiles {args.tile_m}x{args.tile_n} on {args.sms} SMs x {args.ctas_per_sm} CTA")


_posint = cliargs.positive


_nonneg_float = cliargs.nonneg_number


def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
    dts = tuple(_f.DTYPE_BITS)
    s = sub.add_parser("attention-io", help="HBM bytes of attention: naive vs tiled (FlashAttention)")
    common(s, model=False)
    s.add_argument("--seq-len", "-N", type=_posint, nargs="+", default=[8192, 32768, 131072])
    s.add_argument("--head-dim", type=_posint, default=128)
    s.add_argument("--heads", type=_posint, default=1, help="query heads (x batch) to multiply by")
    s.add_argument("--batch", "-b", type=_posint, default=1)
    s.add_argument("--sram-bytes", type=_posint, default=H100_SMEM_PER_SM, help="on-chip SRAM per SM (H100: 228 KiB)")
    s.add_argument("--dtype", choices=dts, default="bf16")
    s.add_argument("--causal", action="store_true", help="tiled kernels skip blocks above the diagonal")
    s.set_defaults(func=_cmd_attention_io)

    s = sub.add_parser("fusion", help="HBM bytes of an elementwise chain, unfused vs fused")
    common(s, model=False)
    s.add_argument("--elements", "-e", type=_posint, required=True, help="elements per tensor")
    s.add_argument("--ops", type=_posint, default=2, help="operators in the chain (each reads only the previous output)")
    s.add_argument("--extra-inputs", nargs="+", help="extra inputs per operator, e.g. 0 1 for SiLU then x up")
    s.add_argument("--dtype", choices=dts, default="bf16")
    s.set_defaults(func=_cmd_fusion)

    s = sub.add_parser("launch", help="decode step: kernel launches vs bandwidth time, CUDA graphs")
    common(s, hw=True)
    s.add_argument("--batch", "-b", type=_posint, default=1)
    s.add_argument("--context", "-c", type=_posint, default=8192)
    s.add_argument("--fusion", choices=("none", "fused", "both"), default="both")
    s.add_argument("--launch-us", type=_nonneg_float, default=LAUNCH_S_MEASURED * 1e6, help="CPU cost per launch, us")
    s.add_argument("--min-kernel-us", type=_nonneg_float, default=GRAPH_NODE_S_MEASURED * 1e6,
                   help="shortest time a kernel occupies the GPU, us")
    s.set_defaults(func=_cmd_launch)

    s = sub.add_parser("waves", help="GEMM tiles and waves on a GPU's SMs (wave quantization)")
    common(s, model=False)
    s.add_argument("--m", "-M", type=_posint, nargs="+", required=True, help="rows of C (tokens)")
    s.add_argument("--n", "-N", type=_posint, required=True, help="columns of C")
    s.add_argument("--tile-m", type=_posint, default=128)
    s.add_argument("--tile-n", type=_posint, default=128)
    s.add_argument("--sms", type=_posint, default=H100_SMS)
    s.add_argument("--ctas-per-sm", type=_posint, default=1)
    s.set_defaults(func=_cmd_waves)
