"""Prefill and decode sharing one GPU (chapter 8): what a chunked prefill really displaces, and
what speculative decoding does to throughput at a given batch.

Standard library only. `serving.instance_rate` charges every request `prefill_s` of GPU time
taken away from decoding. That is right when a prompt runs on its own between decode steps; with
chunked prefill the chunks ride on decode steps that read the weights anyway, so only the extra
time those mixed steps take is taken from decoding. This module measures that extra time with
`serving.prefill_steps` (the same per-operator roofline as chapter 8's chunking section).
"""
from __future__ import annotations

from . import formulas, serving
from . import hardware as _hw
from .errors import CalcError

__all__ = ["ColocationError", "chunked_prefill_cost", "speculative_throughput_gain"]


class ColocationError(CalcError):
    """Bad argument to a colocation formula."""


def chunked_prefill_cost(m, hw, prompt: int, decode_batch: int, context: int, tpot_s: float,
                         chunk=None, dtype: str = "bf16") -> dict:
    """GPU time a `prompt`-token request takes from `decode_batch` decoding sequences when its
    prefill is chunked onto their decode steps (each step kept within `tpot_s`; `chunk` caps the
    chunk, default the largest that fits the first step). Returns the prefill run alone
    (`alone_s`), the time the mixed steps add over plain decode steps (`added_s`, the part that
    displaces decoding) and the steps it takes (its TTFT floor without queueing, `ttft_s`)."""
    if isinstance(tpot_s, bool) or not isinstance(tpot_s, (int, float)) or tpot_s <= 0:
        raise ColocationError(f"tpot_s must be a positive number of seconds, got {tpot_s!r}")
    hw = _hw.get(hw)
    decode_s = serving.mixed_step(m, hw, decode_batch, context, 0, dtype=dtype)["time_s"]
    if decode_s > tpot_s:
        raise ColocationError(f"a decode step of {decode_batch} sequences already takes {decode_s:.4f} s, "
                              f"more than the TPOT target {tpot_s} s: no room for a chunk")
    if chunk is None:
        chunk = serving.max_chunk(m, hw, decode_batch, context, tpot_s, dtype=dtype)
    ps = serving.prefill_steps(m, hw, prompt, chunk, decode_batch, context, dtype=dtype, tpot_s=tpot_s)
    added = ps["ttft_s"] - ps["steps"] * decode_s
    alone = formulas.forward(m, prompt, hw=hw, dtype=dtype).totals.time_s
    return {"prompt": prompt, "chunk": chunk, "steps": ps["steps"], "decode_step_s": decode_s,
            "alone_s": alone, "added_s": added, "ttft_s": ps["ttft_s"],
            "hidden_fraction": 1 - added / alone}


def speculative_throughput_gain(m, draft, hw, batch: int, context: int, alpha: float, k: int, **kw) -> float:
    """Tokens per second with speculative decoding over plain decoding, both at `batch` sequences:
    batch x E / (k t_d + t_v) against batch / t_1, which is the per-sequence speedup S itself.
    Above 1 (small batches) speculative decoding raises throughput as much as it cuts latency."""
    s = serving.speculative(m, draft, hw, batch, context, alpha, k, **kw)
    return s["tokens_per_s"] / s["plain_tokens_per_s"]
