"""Chapter 10's added mechanisms: the range of low-precision formats (FP16 loss scaling, FP8
block scaling), an MoE layer's capacity factor and the tokens it drops, and packing sequences
into fixed-length rows instead of padding them, and the straggler tax of a synchronous step
(the expected maximum of many ranks' step times).

Standard library only, like the rest of `calculations/`. The format limits are the formats'
definitions (IEEE 754 binary16; the FP8 E4M3/E5M2 formats of Micikevicius et al., 2022, which
the OCP 8-bit floating point specification adopted), not measurements.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import CalcError

__all__ = ["FloatFormat", "FORMATS", "fmt", "loss_scale", "scale_for_block", "zero_below",
           "scale_overhead", "capacity", "dropped_tokens", "routed_counts", "pad_batches",
           "pack_rows", "expected_max_normal", "rank_quantiles",
           "batch_tradeoff"]


class TrainingExtrasError(CalcError):
    """Bad argument to one of chapter 10's added formulas."""


@dataclass(frozen=True)
class FloatFormat:
    id: str
    exponent_bits: int
    mantissa_bits: int
    max_normal: float
    min_normal: float
    min_subnormal: float
    source: str

    @property
    def range_binades(self) -> float:
        """log2(max / smallest subnormal): how many factors of two the format spans."""
        return math.log2(self.max_normal / self.min_subnormal)


FORMATS = {
    "fp16": FloatFormat("fp16", 5, 10, 65504.0, 2.0 ** -14, 2.0 ** -24,
                        "IEEE 754-2008 binary16"),
    "bf16": FloatFormat("bf16", 8, 7, (2 - 2 ** -7) * 2.0 ** 127, 2.0 ** -126, 2.0 ** -133,
                        "bfloat16: FP32's exponent, 7 stored mantissa bits"),
    "fp8-e4m3": FloatFormat("fp8-e4m3", 4, 3, 448.0, 2.0 ** -6, 2.0 ** -9,
                            "Micikevicius et al., FP8 Formats for Deep Learning, arXiv:2209.05433, Table 1"),
    "fp8-e5m2": FloatFormat("fp8-e5m2", 5, 2, 57344.0, 2.0 ** -14, 2.0 ** -16,
                            "Micikevicius et al., FP8 Formats for Deep Learning, arXiv:2209.05433, Table 1"),
}


def fmt(format_id: str) -> FloatFormat:
    try:
        return FORMATS[format_id]
    except KeyError:
        raise TrainingExtrasError(f"unknown format {format_id!r}; one of {sorted(FORMATS)}") from None


def _pos(v, name):
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not v > 0 or math.isinf(v):
        raise TrainingExtrasError(f"{name} must be a positive number, got {v!r}")


def loss_scale(largest_grad: float, format_id: str = "fp16") -> float:
    """The largest power of two S with largest_grad * S <= the format's largest normal value:
    the static loss scale that lifts small gradients out of the underflow zone without
    overflowing the largest one."""
    _pos(largest_grad, "largest_grad")
    f = fmt(format_id)
    return 2.0 ** math.floor(math.log2(f.max_normal / largest_grad))


def scale_for_block(amax: float, format_id: str = "fp8-e4m3") -> float:
    """The scale that maps a block's largest magnitude onto the format's largest value
    (stored value = x / scale): one FP32 number per block."""
    _pos(amax, "amax")
    return amax / fmt(format_id).max_normal


def zero_below(amax: float, format_id: str = "fp8-e4m3") -> float:
    """With one scale for amax, magnitudes below half the smallest subnormal (in real units)
    round to zero: this is that threshold."""
    return scale_for_block(amax, format_id) * fmt(format_id).min_subnormal / 2


def scale_overhead(block_elems: int, scale_bytes: int = 4, elem_bytes: int = 1) -> float:
    """Bytes of scales per byte of data when every `block_elems` values share one scale."""
    _pos(block_elems, "block_elems")
    return scale_bytes / (block_elems * elem_bytes)


# ---------------------------------------------------------------- MoE capacity factor
def capacity(tokens: int, experts: int, k: int, factor: float) -> int:
    """Slots per expert: ceil(factor * tokens * k / experts) (GShard / Switch Transformer)."""
    for v, n in ((tokens, "tokens"), (experts, "experts"), (k, "k"), (factor, "factor")):
        _pos(v, n)
    return math.ceil(factor * tokens * k / experts)


def dropped_tokens(loads: list, cap: int) -> dict:
    """Each expert keeps at most `cap` of the token copies routed to it; the rest are
    dropped (they skip the expert through the residual path)."""
    if not loads:
        raise TrainingExtrasError("loads: one count per expert, got none")
    routed = sum(loads)
    dropped = sum(max(0, x - cap) for x in loads)
    return {"routed": routed, "kept": routed - dropped, "dropped": dropped,
            "dropped_share": dropped / routed, "slots": cap * len(loads),
            "slot_use": (routed - dropped) / (cap * len(loads)),
            "overfull_experts": sum(1 for x in loads if x > cap)}


def routed_counts(tokens: int, k: int, shares: list) -> list:
    """Token copies per expert for `tokens` tokens routed to k experts each, split by
    `shares` (summing to 1), rounded so that the counts add up to tokens * k."""
    total = tokens * k
    raw = [total * s for s in shares]
    out = [math.floor(x) for x in raw]
    rest = total - sum(out)
    for i in sorted(range(len(raw)), key=lambda i: raw[i] - out[i], reverse=True)[:rest]:
        out[i] += 1
    return out


# ---------------------------------------------------------------- sequence packing
def pad_batches(lengths: list, batch: int) -> dict:
    """Sequences taken `batch` at a time in the given order, each padded to its batch's
    longest: tokens stored vs tokens that are real."""
    if not lengths or batch < 1:
        raise TrainingExtrasError("pad_batches needs lengths and a batch of at least 1")
    stored = 0
    for i in range(0, len(lengths), batch):
        group = lengths[i:i + batch]
        stored += max(group) * len(group)
    real = sum(lengths)
    return {"real": real, "stored": stored, "waste": 1 - real / stored}


def pack_rows(lengths: list, row: int) -> dict:
    """First-fit decreasing: each sequence goes into the first row of `row` tokens it still
    fits in (a sequence longer than a row is an error: cut it first). Returns the rows as
    lists of (sequence index, start, length) and the share of slots left empty."""
    if any(n > row for n in lengths):
        raise TrainingExtrasError(f"a sequence of {max(lengths)} tokens does not fit a row of {row}")
    rows: list[list] = []
    used: list[int] = []
    for i in sorted(range(len(lengths)), key=lambda i: -lengths[i]):
        n = lengths[i]
        for r, u in enumerate(used):
            if u + n <= row:
                rows[r].append((i, u, n))
                used[r] += n
                break
        else:
            rows.append([(i, 0, n)])
            used.append(n)
    real = sum(lengths)
    return {"rows": rows, "count": len(rows), "real": real, "stored": len(rows) * row,
            "waste": 1 - real / (len(rows) * row)}


# ---------------------------------------------------------------- stragglers
def expected_max_normal(n: int, points: int = 4000) -> float:
    """E[max of n independent standard normals], by integrating x d(Phi(x)^n) over [-8, 8]
    (midpoint rule; the tails beyond contribute below 1e-12 for n <= 1e6). No closed form
    exists; sqrt(2 ln n) is its large-n approximation, about 11-15 % high at n = 10^3..10^4."""
    from statistics import NormalDist
    if not isinstance(n, int) or n < 1:
        raise TrainingExtrasError(f"n must be a positive integer, got {n!r}")
    if n == 1:
        return 0.0
    nd, lo, hi = NormalDist(), -8.0, 8.0
    h = (hi - lo) / points
    total = 0.0
    for i in range(points):
        x = lo + (i + 0.5) * h
        total += x * n * nd.cdf(x) ** (n - 1) * nd.pdf(x) * h
    return total


def rank_quantiles(n: int) -> list:
    """The expected order statistics of n standard normals, by Blom's approximation
    Phi^-1((i - 0.375) / (n + 0.25)), i = 1..n: a deterministic 'typical' spread of n ranks."""
    from statistics import NormalDist
    if not isinstance(n, int) or n < 1:
        raise TrainingExtrasError(f"n must be a positive integer, got {n!r}")
    return [NormalDist().inv_cdf((i - 0.375) / (n + 0.25)) for i in range(1, n + 1)]


# ---------------------------------------------------------------- critical batch size
def batch_tradeoff(b_over_bcrit: float) -> dict:
    """McCandlish et al. (2018), eq. 2.11: training to a given loss with batch B takes
    S = S_min (1 + B_crit / B) steps and E = E_min (1 + B / B_crit) examples. Returns both
    ratios for B / B_crit."""
    _pos(b_over_bcrit, "b_over_bcrit")
    return {"steps": 1 + 1 / b_over_bcrit, "examples": 1 + b_over_bcrit}
