"""One serving instance (chapter 8): batching under memory and SLO, chunked prefill, paged KV,
prefix caching, KV offload break-even, quantization, speculative decoding, Little's law.

Standard library only. Every time here is a roofline lower bound built on `formulas.forward` /
`formulas.decode_step` (sum of per-operator bounds), so the numbers agree with chapter 1's decode
step. `add_commands` registers this module's `calc.py` subcommands: batch, chunk, paged, prefix,
offload, quant, speculative, little.
"""
from __future__ import annotations

import math
from typing import Optional

from . import formulas as _f
from . import hardware as _hw
from .errors import CalcError

__all__ = [
    "ServingError", "PCIE5_X16_UNIDIRECTIONAL", "NVME_GEN5_READ", "QUANT_FORMATS",
    "decode_point", "decode_curve", "max_batch_memory", "max_batch_tpot", "batch_limits",
    "mixed_step", "max_chunk", "prefill_steps",
    "paged_kv_waste", "prefix_cache", "offload", "offload_breakeven_bandwidth",
    "quant_format", "quantized_decode",
    "spec_expected_tokens", "spec_speedup_ideal", "speculative",
    "little_concurrency", "little_rate", "instance_rate",
]


class ServingError(CalcError):
    """Bad argument to a serving formula (user-facing, reported without traceback)."""


# ---------------------------------------------------------------- cited constants
# PCIe 5.0 x16: NVIDIA lists "PCIe Gen5: 128GB/s" for H100 SXM (both directions added), i.e.
# 64 GB/s per direction. https://www.nvidia.com/en-us/data-center/h100/
PCIE5_X16_UNIDIRECTIONAL = 64e9
# One PCIe Gen5 x4 data-centre NVMe SSD, sequential read: Micron 9550, 14,000 MB/s
# (StorageReview, "Micron 9550 MAX review", specification table).
NVME_GEN5_READ = 14e9

# Weight / KV storage formats: (dtype the calculator stores the elements in, scale bits per element).
# int4-g128: one 16-bit scale per 128 weights (GPTQ/AWQ style group quantization).
# mxfp4: OCP Microscaling, FP4 E2M1 elements with one 8-bit E8M0 scale per 32 elements.
# nvfp4: FP4 E2M1 elements with one FP8 E4M3 scale per 16 elements (the per-tensor FP32 scale is
# negligible and not counted).
QUANT_FORMATS = {
    "bf16": ("bf16", 0.0),
    "fp8": ("fp8", 0.0),
    "int8": ("int8", 0.0),
    "int4-g128": ("int4", 16 / 128),
    "mxfp4": ("fp4", 8 / 32),
    "nvfp4": ("fp4", 8 / 16),
}


def _pos(v, name, zero_ok=False):
    if isinstance(v, bool) or not isinstance(v, int) or v < 0 or (v == 0 and not zero_ok):
        raise ServingError(f"{name} must be a {'non-negative' if zero_ok else 'positive'} integer, got {v!r}")
    return v


def _posf(v, name):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0 or v != v or v == float("inf"):
        raise ServingError(f"{name} must be a positive number, got {v!r}")
    return float(v)


def _frac(v, name, zero_ok=True):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 <= v <= 1) or (v == 0 and not zero_ok):
        raise ServingError(f"{name} must be in [0, 1], got {v!r}")
    return float(v)


# ======================================================= continuous batching
def decode_point(m, hw, batch: int, context: int, dtype: str = "bf16", kv_dtype: Optional[str] = None,
                 compute_eff: float = 1.0, memory_eff: float = 1.0) -> dict:
    """One decode step of `batch` sequences holding `context` tokens: the step time is the TPOT
    every sequence sees; throughput is batch / step time."""
    d = _f.decode_step(m, batch, context, hw, dtype=dtype, kv_dtype=kv_dtype,
                       compute_eff=compute_eff, memory_eff=memory_eff)
    return {"batch": batch, "context": context, "step_time_s": d.time_s, "tokens_per_s": d.tokens_per_s,
            "bound": d.bound, "flops": d.flops, "bytes": d.bytes, "weight_bytes": d.weight_bytes,
            "kv_read_bytes": d.kv_read_bytes, "compute_time_s": d.compute_time_s,
            "memory_time_s": d.memory_time_s, "intensity": d.intensity}


def decode_curve(m, hw, context: int, batches, dtype: str = "bf16", kv_dtype: Optional[str] = None,
                 compute_eff: float = 1.0, memory_eff: float = 1.0) -> list:
    """decode_point for each batch size in `batches`."""
    return [decode_point(m, hw, b, context, dtype, kv_dtype, compute_eff, memory_eff) for b in batches]


def max_batch_memory(m, hw, context: int, dtype: str = "bf16", kv_dtype: Optional[str] = None,
                     usable_fraction: float = 1.0) -> int:
    """Largest batch of `context`-token sequences whose KV (plus decode activations) fits next to
    the resident weights: `formulas.memory_plan(...).max_batch`."""
    return _f.memory_plan(m, hw, devices=1, batch=1, context=context, dtype=dtype, kv_dtype=kv_dtype,
                          usable_fraction=usable_fraction).max_batch


def _largest_within(t, budget: float, limit: int) -> int:
    """Largest n in [1, limit] with t(n) <= budget, for t growing with n (0 if t(1) misses):
    doubling to bracket it, then bisection."""
    if t(1) > budget:
        return 0
    lo, hi = 1, 2
    while hi <= limit and t(hi) <= budget:
        lo, hi = hi, hi * 2
    if hi > limit:
        return limit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if t(mid) <= budget:
            lo = mid
        else:
            hi = mid
    return lo


def max_batch_tpot(m, hw, context: int, tpot_s: float, dtype: str = "bf16", kv_dtype: Optional[str] = None,
                   compute_eff: float = 1.0, memory_eff: float = 1.0, limit: int = 1 << 16) -> int:
    """Largest batch whose decode step time stays within `tpot_s` (0 if even batch 1 does not).
    The step time grows with the batch, so this is a binary search."""
    _posf(tpot_s, "tpot_s")
    t = lambda b: _f.decode_step(m, b, context, hw, dtype=dtype, kv_dtype=kv_dtype,  # noqa: E731
                                 compute_eff=compute_eff, memory_eff=memory_eff).time_s
    return _largest_within(t, tpot_s, limit)


def batch_limits(m, hw, context: int, tpot_s: float, dtype: str = "bf16", kv_dtype: Optional[str] = None,
                 usable_fraction: float = 1.0, compute_eff: float = 1.0, memory_eff: float = 1.0) -> dict:
    """Both batch limits of one instance and which one binds."""
    bm = max_batch_memory(m, hw, context, dtype, kv_dtype, usable_fraction)
    bt = max_batch_tpot(m, hw, context, tpot_s, dtype, kv_dtype, compute_eff, memory_eff)
    b = min(bm, bt)
    out = {"model": m.id, "hardware": _hw.get(hw).id, "context": context, "tpot_target_s": tpot_s,
           "dtype": dtype, "kv_dtype": kv_dtype or "bf16", "usable_fraction": usable_fraction,
           "max_batch_memory": bm, "max_batch_tpot": bt, "max_batch": b,
           "binding": "memory" if bm < bt else ("tpot" if bt < bm else "both")}
    if b > 0:
        p = decode_point(m, hw, b, context, dtype, kv_dtype, compute_eff, memory_eff)
        out.update(step_time_s=p["step_time_s"], tokens_per_s=p["tokens_per_s"], bound=p["bound"])
    else:
        out.update(step_time_s=None, tokens_per_s=0.0, bound=None)
    return out


# ============================================================ chunked prefill
def mixed_step(m, hw, decode_batch: int, context: int, chunk: int, chunk_context: int = 0,
               dtype: str = "bf16", kv_dtype: Optional[str] = None,
               compute_eff: float = 1.0, memory_eff: float = 1.0) -> dict:
    """One engine step that decodes 1 token for each of `decode_batch` sequences (holding `context`
    tokens) and also prefills a chunk of `chunk` prompt tokens of one request (after
    `chunk_context` already-prefilled tokens). Weights are read once for both parts: per operator,
    FLOPs and activation/KV bytes add, weight bytes are counted once (for embedding rows, which
    are gathered per token, they add). chunk = 0 is a plain decode step; decode_batch = 0 a plain
    prefill chunk."""
    _pos(decode_batch, "decode_batch", zero_ok=True)
    _pos(chunk, "chunk", zero_ok=True)
    if decode_batch == 0 and chunk == 0:
        raise ServingError("a step needs decode_batch > 0 or chunk > 0")
    hw = _hw.get(hw)
    decode = _decode_part(m, hw, decode_batch, context, dtype, kv_dtype, compute_eff, memory_eff)
    return _mixed(m, hw, decode, decode_batch, context, chunk, chunk_context, dtype, kv_dtype,
                  compute_eff, memory_eff)


def _decode_part(m, hw, decode_batch: int, context: int, dtype: str, kv_dtype: Optional[str],
                 compute_eff: float, memory_eff: float):
    """The decode half of a mixed step (one token for each of `decode_batch` sequences)."""
    if not decode_batch:
        return None
    return _f.forward(m, 1, batch=decode_batch, context=context, dtype=dtype, hw=hw,
                      kv_dtype=kv_dtype, compute_eff=compute_eff, memory_eff=memory_eff)


def _mixed(m, hw, decode, decode_batch: int, context: int, chunk: int, chunk_context: int,
           dtype: str, kv_dtype: Optional[str], compute_eff: float, memory_eff: float) -> dict:
    """`mixed_step` with its decode part (`forward` of the decode batch, or None) given: a search
    over the chunk size (`max_chunk`) computes it once instead of once per trial chunk."""
    parts = [decode] if decode is not None else []
    if chunk:
        parts.append(_f.forward(m, chunk, batch=1, context=chunk_context, dtype=dtype, hw=hw,
                                kv_dtype=kv_dtype, compute_eff=compute_eff, memory_eff=memory_eff))
    prec = parts[0].precision
    ops = list(zip(*[p.operators for p in parts]))
    time = flops = nbytes = weight = 0
    for group in ops:
        names = {o.name.split(" (")[0] for o in group}
        assert len(names) == 1, names
        fl = sum(o.flops for o in group)
        if group[0].kind == "embedding":
            w = sum(o.weight_bytes for o in group)
        else:
            w = max(o.weight_bytes for o in group)
        b = sum(o.bytes - o.weight_bytes for o in group) + w
        t, _ = _f.roofline_time(fl, b, hw, prec, compute_eff, memory_eff)
        time += t
        flops += fl
        nbytes += b
        weight += w
    return {"decode_batch": decode_batch, "context": context, "chunk": chunk, "chunk_context": chunk_context,
            "time_s": time, "flops": flops, "bytes": nbytes, "weight_bytes": weight,
            "tokens": decode_batch + chunk}


def max_chunk(m, hw, decode_batch: int, context: int, tpot_s: float, chunk_context: int = 0,
              dtype: str = "bf16", kv_dtype: Optional[str] = None, compute_eff: float = 1.0,
              memory_eff: float = 1.0, limit: int = 1 << 17) -> int:
    """Largest prefill chunk that can ride along with a decode step of `decode_batch` sequences
    and keep the step within `tpot_s` (0 if the decode step alone already misses it)."""
    _posf(tpot_s, "tpot_s")
    _pos(decode_batch, "decode_batch", zero_ok=True)
    hw = _hw.get(hw)
    decode = _decode_part(m, hw, decode_batch, context, dtype, kv_dtype, compute_eff, memory_eff)
    t = lambda c: _mixed(m, hw, decode, decode_batch, context, c, chunk_context, dtype,  # noqa: E731
                         kv_dtype, compute_eff, memory_eff)["time_s"]
    if decode_batch and t(0) > tpot_s:
        return 0
    return _largest_within(t, tpot_s, limit)


def prefill_steps(m, hw, prompt: int, chunk: int, decode_batch: int, context: int,
                  dtype: str = "bf16", kv_dtype: Optional[str] = None,
                  compute_eff: float = 1.0, memory_eff: float = 1.0, tpot_s: Optional[float] = None) -> dict:
    """Prefill a `prompt`-token request in chunks of at most `chunk` tokens, each riding on a decode
    step of `decode_batch` sequences: number of steps, each step's time and the time until the last
    chunk is done (the TTFT floor without queueing). Later chunks attend to the part already
    prefilled, so they cost more; with `tpot_s`, every step takes the largest chunk (<= `chunk`)
    that keeps it within the target, as a token-budget scheduler does."""
    _pos(prompt, "prompt")
    _pos(chunk, "chunk")
    steps, done, total, times = 0, 0, 0.0, []
    while done < prompt:
        c = min(chunk, prompt - done)
        if tpot_s is not None:
            c = min(c, max_chunk(m, hw, decode_batch, context, tpot_s, done, dtype, kv_dtype, compute_eff,
                                 memory_eff))
            if c == 0:
                raise ServingError("no prefill chunk fits within the TPOT target at this point")
        t = mixed_step(m, hw, decode_batch, context, c, done, dtype, kv_dtype, compute_eff, memory_eff)["time_s"]
        times.append(t)
        total += t
        done += c
        steps += 1
    return {"prompt": prompt, "chunk": chunk, "steps": steps, "ttft_s": total, "step_times_s": times}


# ================================================================== paged KV
def paged_kv_waste(lengths, block: int, reserve: int) -> dict:
    """KV slots (tokens) held for sequences of the given `lengths`:
    paged allocation rounds each length up to a multiple of `block`; contiguous allocation reserves
    `reserve` tokens (the maximum length) per sequence. Waste = held - used, as a fraction of held."""
    _pos(block, "block")
    _pos(reserve, "reserve")
    lengths = list(lengths)
    if not lengths:
        raise ServingError("lengths must not be empty")
    for n in lengths:
        _pos(n, "length")
        if n > reserve:
            raise ServingError(f"a length ({n}) exceeds the reservation ({reserve})")
    used = sum(lengths)
    paged = sum(-(-n // block) * block for n in lengths)
    contiguous = reserve * len(lengths)
    return {"sequences": len(lengths), "block": block, "reserve": reserve, "used_tokens": used,
            "paged_tokens": paged, "contiguous_tokens": contiguous,
            "paged_waste": (paged - used) / paged, "contiguous_waste": (contiguous - used) / contiguous,
            "paged_utilization": used / paged, "contiguous_utilization": used / contiguous,
            "batch_gain": contiguous / paged}


# ============================================================= prefix caching
def prefix_cache(m, prompt: int, prefix: int, hit_rate: float = 1.0, hw=None, dtype: str = "bf16",
                 compute_eff: float = 1.0, memory_eff: float = 1.0) -> dict:
    """Prefill of a `prompt`-token request whose first `prefix` tokens may already be cached.
    On a hit only the suffix is prefilled (attending to the cached prefix); `hit_rate` is the
    fraction of requests that find the prefix cached. With `hw`, also prefill times (TTFT floors)."""
    _pos(prompt, "prompt")
    _pos(prefix, "prefix", zero_ok=True)
    _frac(hit_rate, "hit_rate")
    if prefix >= prompt:
        raise ServingError("prefix must be shorter than the prompt (at least one new token is prefilled)")
    full = _f.forward(m, prompt, dtype=dtype, hw=hw, compute_eff=compute_eff, memory_eff=memory_eff)
    hit = _f.forward(m, prompt - prefix, context=prefix, dtype=dtype, hw=hw, compute_eff=compute_eff,
                     memory_eff=memory_eff)
    f_full, f_hit = full.totals.flops, hit.totals.flops
    f_exp = hit_rate * f_hit + (1 - hit_rate) * f_full
    out = {"model": m.id, "prompt": prompt, "prefix": prefix, "hit_rate": hit_rate,
           "flops_miss": f_full, "flops_hit": f_hit, "flops_expected": f_exp,
           "saved_fraction_hit": 1 - f_hit / f_full, "saved_fraction_expected": 1 - f_exp / f_full,
           "prefix_fraction": prefix / prompt,
           "kv_prefix_bytes": _f.kv_cache_bytes(m, prefix, 1, full.kv_dtype)}
    if hw is not None:
        t_full, t_hit = full.totals.time_s, hit.totals.time_s
        out.update(ttft_miss_s=t_full, ttft_hit_s=t_hit, ttft_expected_s=hit_rate * t_hit + (1 - hit_rate) * t_full)
    return out


# ================================================================ KV offload
def offload(m, hw, context: int, link_bytes_per_s: float = PCIE5_X16_UNIDIRECTIONAL, dtype: str = "bf16",
            kv_dtype: Optional[str] = None, compute_eff: float = 1.0, memory_eff: float = 1.0) -> dict:
    """Bring back the KV of a `context`-token sequence: load it over a link (host memory over PCIe,
    or an SSD) versus recompute it with a fresh prefill on the accelerator."""
    _pos(context, "context")
    _posf(link_bytes_per_s, "link_bytes_per_s")
    fw = _f.forward(m, context, dtype=dtype, hw=hw, kv_dtype=kv_dtype, compute_eff=compute_eff,
                    memory_eff=memory_eff)
    kv = _f.kv_cache_bytes(m, context, 1, fw.kv_dtype)
    load = kv / link_bytes_per_s
    recompute = fw.totals.time_s
    return {"model": m.id, "hardware": _hw.get(hw).id, "context": context, "kv_bytes": kv,
            "link_bytes_per_s": link_bytes_per_s, "load_s": load, "recompute_s": recompute,
            "recompute_flops": fw.totals.flops, "recompute_over_load": recompute / load,
            "winner": "load" if load <= recompute else "recompute",
            "breakeven_bytes_per_s": kv / recompute,
            "flops_per_kv_byte": fw.totals.flops / kv}


def offload_breakeven_bandwidth(m, hw, context: int, dtype: str = "bf16", kv_dtype: Optional[str] = None,
                                compute_eff: float = 1.0) -> float:
    """Link bandwidth (B/s) at which loading a `context`-token KV takes as long as recomputing it:
    slower links should recompute, faster ones load."""
    return offload(m, hw, context, 1.0, dtype, kv_dtype, compute_eff)["breakeven_bytes_per_s"]


# ============================================================== quantization
def quant_format(name: str) -> tuple:
    key = str(name).lower()
    if key not in QUANT_FORMATS:
        raise ServingError(f"unknown format {name!r} (choose from {', '.join(QUANT_FORMATS)})")
    return QUANT_FORMATS[key]


def quantized_decode(m, hw, batch: int, context: int, weights: str = "bf16", kv: str = "bf16",
                     usable_fraction: float = 1.0, compute_eff: float = 1.0, memory_eff: float = 1.0) -> dict:
    """Decode step and memory limit with weights and KV stored in a QUANT_FORMATS format.
    Scale bytes (block formats) are added to the resident weights and to the bytes read per step
    (their time is added at memory bandwidth). Compute runs at the format's peak where the device
    has one, else in bf16 (weight-only quantization)."""
    hw = _hw.get(hw)
    w_dt, w_scale = quant_format(weights)
    kv_dt, kv_scale = quant_format(kv)
    if kv_scale:
        raise ServingError("KV formats with block scales are not modelled; use bf16, fp8 or int8 for KV")
    d = _f.decode_step(m, batch, context, hw, dtype=w_dt, kv_dtype=kv_dt, compute_eff=compute_eff,
                       memory_eff=memory_eff)
    bits = _f.DTYPE_BITS[w_dt]
    scale_read = math.ceil(d.weight_bytes * 8 / bits * w_scale / 8)
    step = d.time_s + scale_read / (hw.hbm_bandwidth * memory_eff)
    resident = _f.nbytes(m.params_total, w_dt) + math.ceil(m.params_total * w_scale / 8)
    a_dt = "bf16"
    per_seq = _f.kv_cache_bytes(m, context, 1, kv_dt) + _f.inference_activation_bytes(m, 1, 1, a_dt)
    usable = int(hw.hbm_bytes * usable_fraction)
    max_b = max(0, (usable - resident) // per_seq) if usable > resident else 0
    return {"model": m.id, "hardware": hw.id, "weights": weights, "kv": kv, "batch": batch, "context": context,
            "precision": d.precision, "bits_per_weight": bits + w_scale,
            "resident_weight_bytes": resident, "weight_bytes_read": d.weight_bytes + scale_read,
            "kv_read_bytes": d.kv_read_bytes, "step_time_s": step, "tokens_per_s": batch / step,
            "bound": d.bound, "max_batch": int(max_b)}


# ===================================================== speculative decoding
def spec_expected_tokens(alpha: float, k: int) -> float:
    """Expected tokens produced per target-model pass with draft length k and per-token acceptance
    rate alpha (i.i.d.): (1 - alpha^(k+1)) / (1 - alpha) (Leviathan et al. 2023); k + 1 at alpha = 1."""
    _frac(alpha, "alpha")
    _pos(k, "k", zero_ok=True)
    if alpha == 1:
        return float(k + 1)
    return (1 - alpha ** (k + 1)) / (1 - alpha)


def spec_speedup_ideal(alpha: float, k: int, c: float) -> float:
    """Leviathan et al.'s walltime improvement when a draft step costs c target steps and verifying
    k + 1 tokens costs one target step: E / (k c + 1)."""
    if isinstance(c, bool) or not isinstance(c, (int, float)) or c < 0:
        raise ServingError(f"c must be a non-negative number, got {c!r}")
    return spec_expected_tokens(alpha, k) / (k * c + 1)


def speculative(m, draft, hw, batch: int, context: int, alpha: float, k: int, dtype: str = "bf16",
                compute_eff: float = 1.0, memory_eff: float = 1.0) -> dict:
    """Speculative decoding for `batch` sequences at `context` tokens on one device: k draft decode
    steps (draft model, same batch) plus one target pass over k + 1 tokens per sequence, against
    plain decoding. Times are roofline bounds; the verify pass is a real (k+1)-token forward, so at
    large batch it becomes compute-bound and costs ~(k+1) plain steps."""
    _pos(k, "k")
    hw = _hw.get(hw)
    e = spec_expected_tokens(alpha, k)
    t_plain = _f.decode_step(m, batch, context, hw, dtype=dtype, compute_eff=compute_eff,
                             memory_eff=memory_eff).time_s
    t_draft_step = _f.decode_step(draft, batch, context, hw, dtype=dtype, compute_eff=compute_eff,
                                  memory_eff=memory_eff).time_s
    t_verify = _f.forward(m, k + 1, batch=batch, context=context, dtype=dtype, hw=hw,
                          compute_eff=compute_eff, memory_eff=memory_eff).totals.time_s
    t_round = k * t_draft_step + t_verify
    return {"model": m.id, "draft": draft.id, "hardware": hw.id, "batch": batch, "context": context,
            "alpha": alpha, "k": k, "expected_tokens": e, "plain_step_s": t_plain,
            "draft_step_s": t_draft_step, "verify_s": t_verify, "verify_over_plain": t_verify / t_plain,
            "round_s": t_round, "speedup": e * t_plain / t_round,
            "tokens_per_s": batch * e / t_round, "plain_tokens_per_s": batch / t_plain,
            "draft_cost_c": t_draft_step / t_plain,
            "speedup_ideal": spec_speedup_ideal(alpha, k, t_draft_step / t_plain)}


# ================================================================ Little's law
def little_concurrency(rate: float, ttft_s: float, tpot_s: float, output_tokens: int) -> float:
    """L = lambda W with W = TTFT + N_out x TPOT."""
    _posf(rate, "rate")
    _pos(output_tokens, "output_tokens")
    return rate * (ttft_s + output_tokens * tpot_s)


def little_rate(concurrency: float, ttft_s: float, tpot_s: float, output_tokens: int) -> float:
    """The arrival rate a batch of `concurrency` slots sustains: lambda = L / W."""
    _posf(concurrency, "concurrency")
    _pos(output_tokens, "output_tokens")
    return concurrency / (ttft_s + output_tokens * tpot_s)


def instance_rate(batch: int, step_s: float, output_tokens: int, ttft_s: float, prefill_s: float) -> dict:
    """Requests/s one instance sustains with `batch` decode slots when prefill shares the GPU:
    each request costs `prefill_s` of GPU time; the rest of the time runs decode steps of `step_s`,
    so the TPOT users see stretches to step_s / (1 - lambda x prefill_s). Little's law
    batch = lambda (ttft + N_out TPOT_eff) then gives
    ttft prefill_s lambda^2 - (ttft + N_out step_s + batch prefill_s) lambda + batch = 0 (smaller root)."""
    _pos(batch, "batch")
    _posf(step_s, "step_s")
    _pos(output_tokens, "output_tokens")
    if prefill_s < 0 or ttft_s < 0:
        raise ServingError("prefill_s and ttft_s must be non-negative")
    a = ttft_s * prefill_s
    b = ttft_s + output_tokens * step_s + batch * prefill_s
    if a == 0:
        lam = batch / b
    else:
        lam = (b - math.sqrt(b * b - 4 * a * batch)) / (2 * a)
    busy = lam * prefill_s
    tpot_eff = step_s / (1 - busy)
    return {"rate": lam, "prefill_busy": busy, "tpot_eff_s": tpot_eff,
            "residence_s": ttft_s + output_tokens * tpot_eff,
            "tokens_per_s": lam * output_tokens}


# ======================================================================= CLI
def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
    from calculations import cliargs
    from calculations.calc import DTYPES, positive, nonneg, _number, _fraction

    def effs(sp):
        sp.add_argument("--compute-eff", type=_fraction, default=1.0, help="achievable fraction of peak FLOPs")
        sp.add_argument("--memory-eff", type=_fraction, default=1.0, help="achievable fraction of bandwidth")

    prob = cliargs.probability

    s = sub.add_parser("batch", help="decode step time, throughput and batch limits (memory, TPOT) of one instance")
    common(s, hw=True, hw_required=True)
    s.add_argument("--context", "-c", type=nonneg, default=4096, help="tokens held per sequence")
    s.add_argument("--tpot", type=_number, default=0.05, help="TPOT target in seconds (default 0.05)")
    s.add_argument("--batches", type=positive, nargs="*", help="batch sizes to tabulate (default 1..512 by x2)")
    s.add_argument("--dtype", choices=DTYPES, default="bf16")
    s.add_argument("--kv-dtype", choices=DTYPES)
    s.add_argument("--usable", type=_fraction, default=1.0, help="usable fraction of device memory")
    effs(s)
    s.set_defaults(func=_cmd_batch)

    s = sub.add_parser("chunk", help="largest prefill chunk that fits in a decode step under a TPOT target")
    common(s, hw=True, hw_required=True)
    s.add_argument("--batch", "-b", type=nonneg, default=32, help="decode sequences in the step")
    s.add_argument("--context", "-c", type=nonneg, default=4096)
    s.add_argument("--tpot", type=_number, default=0.05)
    s.add_argument("--prompt", type=positive, help="also: steps and TTFT floor for a prompt of this length")
    s.add_argument("--dtype", choices=DTYPES, default="bf16")
    effs(s)
    s.set_defaults(func=_cmd_chunk)

    s = sub.add_parser("paged", help="KV slots wasted by contiguous max-length reservation vs paged blocks")
    common(s, model=False)
    s.add_argument("--lengths", type=positive, nargs="+", required=True, help="final sequence lengths")
    s.add_argument("--block", type=positive, default=16, help="tokens per block (vLLM default 16)")
    s.add_argument("--reserve", type=positive, required=True, help="contiguous reservation per sequence")
    s.set_defaults(func=_cmd_paged)

    s = sub.add_parser("prefix", help="prefill FLOPs and TTFT saved by a cached prefix")
    common(s, hw=True)
    s.add_argument("--prompt", type=positive, required=True)
    s.add_argument("--prefix", type=nonneg, required=True, help="shared prefix tokens")
    s.add_argument("--hit-rate", type=prob, default=1.0)
    s.add_argument("--dtype", choices=DTYPES, default="bf16")
    effs(s)
    s.set_defaults(func=_cmd_prefix)

    s = sub.add_parser("offload", help="load offloaded KV over a link vs recompute it (prefill)")
    common(s, hw=True, hw_required=True)
    s.add_argument("--contexts", type=positive, nargs="+", default=[1024, 4096, 16384, 65536])
    s.add_argument("--link-gb-s", type=_number, default=PCIE5_X16_UNIDIRECTIONAL / 1e9,
                   help="link bandwidth in GB/s (default: PCIe 5.0 x16 one way, 64)")
    s.add_argument("--dtype", choices=DTYPES, default="bf16")
    s.add_argument("--kv-dtype", choices=DTYPES)
    s.add_argument("--compute-eff", type=_fraction, default=1.0)
    s.set_defaults(func=_cmd_offload)

    s = sub.add_parser("quant", help="decode step and max batch for weight/KV storage formats")
    common(s, hw=True, hw_required=True)
    s.add_argument("--batch", "-b", type=positive, default=1)
    s.add_argument("--context", "-c", type=nonneg, default=4096)
    s.add_argument("--weights", nargs="+", default=["bf16", "fp8", "int4-g128", "mxfp4", "nvfp4"],
                   choices=list(QUANT_FORMATS))
    s.add_argument("--kv", default="bf16", choices=["bf16", "fp8", "int8"])
    s.add_argument("--usable", type=_fraction, default=1.0)
    s.set_defaults(func=_cmd_quant)

    s = sub.add_parser("speculative", help="speculative decoding: expected tokens per pass and speed-up")
    common(s, hw=True, hw_required=True)
    s.add_argument("--draft", required=True, help="draft model id")
    s.add_argument("--batch", "-b", type=positive, default=1)
    s.add_argument("--context", "-c", type=nonneg, default=4096)
    s.add_argument("--alpha", type=prob, nargs="+", default=[0.6, 0.7, 0.8, 0.9])
    s.add_argument("--k", type=positive, nargs="+", default=[2, 4, 6, 8])
    s.add_argument("--dtype", choices=DTYPES, default="bf16")
    s.set_defaults(func=_cmd_speculative)

    s = sub.add_parser("little", help="Little's law: concurrency from rate and SLOs, or rate from concurrency")
    common(s, model=False)
    s.add_argument("--rate", type=_number, help="requests per second (give this or --concurrency)")
    s.add_argument("--concurrency", type=_number, help="sequences in flight")
    s.add_argument("--ttft", type=_number, default=0.5)
    s.add_argument("--tpot", type=_number, default=0.05)
    s.add_argument("--output", type=positive, default=500, help="output tokens per request")
    s.set_defaults(func=_cmd_little)


def _cli():
    from calculations import calc, tables
    return calc, tables


def _cmd_batch(args):
    calc, tables = _cli()
    m, hw = calc._model(args), calc._hw(args)
    lim = batch_limits(m, hw, args.context, args.tpot, args.dtype, args.kv_dtype, args.usable,
                       args.compute_eff, args.memory_eff)
    bs = args.batches or [2 ** i for i in range(10)]
    rows = decode_curve(m, hw, args.context, bs, args.dtype, args.kv_dtype, args.compute_eff, args.memory_eff)
    if args.format == "json":
        return tables.dumps({"limits": lim, "curve": rows})
    cols = [("batch", "batch", "int"), ("step_time_s", "step = TPOT", "sec"), ("tokens_per_s", "tokens/s", "float"),
            ("weight_bytes", "weights read", "bytes"), ("kv_read_bytes", "KV read", "bytes"),
            ("compute_time_s", "compute time", "sec"), ("memory_time_s", "memory time", "sec"),
            ("bound", "bound", "str")]
    if args.format == "csv":
        return tables.render(rows, [(c[0], c[0], c[2]) for c in cols], "csv")
    head = (f"{m.id} on {hw.id}, {args.context}-token contexts: max batch {lim['max_batch_memory']} by memory "
            f"(usable {args.usable:.0%}), {lim['max_batch_tpot']} by TPOT <= {args.tpot * 1e3:g} ms; "
            f"binding: {lim['binding']}")
    return tables.render(rows, cols, args.format, title=head)


def _cmd_chunk(args):
    calc, tables = _cli()
    m, hw = calc._model(args), calc._hw(args)
    c = max_chunk(m, hw, args.batch, args.context, args.tpot, dtype=args.dtype,
                  compute_eff=args.compute_eff, memory_eff=args.memory_eff)
    plain = mixed_step(m, hw, args.batch, args.context, 0, dtype=args.dtype, compute_eff=args.compute_eff,
                       memory_eff=args.memory_eff)["time_s"] if args.batch else None
    with_c = mixed_step(m, hw, args.batch, args.context, c, dtype=args.dtype, compute_eff=args.compute_eff,
                        memory_eff=args.memory_eff)["time_s"] if c or args.batch else None
    items = [("model", "model", m.id, "str"), ("hardware", "hardware", hw.id, "str"),
             ("batch", "decode sequences", args.batch, "int"), ("context", "context tokens", args.context, "int"),
             ("tpot_target_s", "TPOT target", args.tpot, "sec"), ("decode_step_s", "decode step alone", plain, "sec"),
             ("max_chunk", "largest chunk", c, "int"), ("step_with_chunk_s", "step with that chunk", with_c, "sec")]
    if args.prompt and c:
        p = prefill_steps(m, hw, args.prompt, c, args.batch, args.context, args.dtype,
                          compute_eff=args.compute_eff, memory_eff=args.memory_eff, tpot_s=args.tpot)
        items += [("prompt", "prompt tokens", args.prompt, "int"), ("steps", "steps to prefill", p["steps"], "int"),
                  ("ttft_s", "TTFT floor (no queueing)", p["ttft_s"], "sec")]
    return tables.render_kv(items, args.format, title=f"chunked prefill, {m.id} on {hw.id}")


def _cmd_paged(args):
    calc, tables = _cli()
    r = paged_kv_waste(args.lengths, args.block, args.reserve)
    items = [(k, k.replace("_", " "), v, "float" if isinstance(v, float) else "int") for k, v in r.items()]
    return tables.render_kv(items, args.format, raw=r, title="paged vs contiguous KV")


def _cmd_prefix(args):
    calc, tables = _cli()
    m, hw = calc._model(args), calc._hw(args, required=False)
    r = prefix_cache(m, args.prompt, args.prefix, args.hit_rate, hw, args.dtype, args.compute_eff, args.memory_eff)
    kinds = {"model": "str", "flops_miss": "si", "flops_hit": "si", "flops_expected": "si",
             "kv_prefix_bytes": "bytes", "prompt": "int", "prefix": "int"}
    items = [(k, k.replace("_", " "), v, kinds.get(k, "sec" if k.endswith("_s") else "float")) for k, v in r.items()]
    return tables.render_kv(items, args.format, raw=r, title=f"prefix cache, {m.id}")


def _cmd_offload(args):
    calc, tables = _cli()
    m, hw = calc._model(args), calc._hw(args)
    rows = [offload(m, hw, c, args.link_gb_s * 1e9, args.dtype, args.kv_dtype, args.compute_eff)
            for c in args.contexts]
    cols = [("context", "context", "int"), ("kv_bytes", "KV", "bytes"), ("load_s", "load", "sec"),
            ("recompute_s", "recompute", "sec"), ("recompute_over_load", "recompute/load", "float"),
            ("breakeven_bytes_per_s", "break-even B/s", "si"), ("winner", "faster", "str")]
    return tables.render(rows, cols, args.format, raw=rows,
                         title=f"{m.id} on {hw.id}: load over {args.link_gb_s:g} GB/s vs recompute")


def _cmd_quant(args):
    calc, tables = _cli()
    m, hw = calc._model(args), calc._hw(args)
    rows = [quantized_decode(m, hw, args.batch, args.context, w, args.kv, args.usable) for w in args.weights]
    cols = [("weights", "weights", "str"), ("kv", "KV", "str"), ("bits_per_weight", "bits/weight", "float"),
            ("precision", "compute", "str"), ("resident_weight_bytes", "resident weights", "bytes"),
            ("step_time_s", "step", "sec"), ("tokens_per_s", "tokens/s", "float"),
            ("max_batch", f"max batch at {args.context}", "int")]
    return tables.render(rows, cols, args.format, raw=rows,
                         title=f"{m.id} on {hw.id}, batch {args.batch}, context {args.context}")


def _cmd_speculative(args):
    calc, tables = _cli()
    from calculations import models
    m, hw = calc._model(args), calc._hw(args)
    d = models.get(args.draft)
    rows = [speculative(m, d, hw, args.batch, args.context, a, k, args.dtype) for a in args.alpha for k in args.k]
    cols = [("alpha", "alpha", "float"), ("k", "k", "int"), ("expected_tokens", "tokens/pass", "float"),
            ("draft_step_s", "draft step", "sec"), ("verify_s", "verify", "sec"), ("plain_step_s", "plain step", "sec"),
            ("speedup", "speed-up", "float")]
    return tables.render(rows, cols, args.format, raw=rows,
                         title=f"{m.id} + draft {d.id} on {hw.id}, batch {args.batch}, context {args.context}")


def _cmd_little(args):
    calc, tables = _cli()
    if (args.rate is None) == (args.concurrency is None):
        raise ServingError("give exactly one of --rate or --concurrency")
    w = args.ttft + args.output * args.tpot
    if args.rate is not None:
        r = {"rate": args.rate, "residence_s": w,
             "concurrency": little_concurrency(args.rate, args.ttft, args.tpot, args.output)}
    else:
        r = {"concurrency": args.concurrency, "residence_s": w,
             "rate": little_rate(args.concurrency, args.ttft, args.tpot, args.output)}
    items = [("rate", "requests/s", r["rate"], "float"), ("residence_s", "W = TTFT + N x TPOT", w, "sec"),
             ("concurrency", "L = lambda W", r["concurrency"], "float")]
    return tables.render_kv(items, args.format, raw=r, title="Little's law")
