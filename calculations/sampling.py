"""Sampling and KV-sharing arithmetic for chapter 8: speculative decoding's acceptance rule
(rejection sampling, why the output keeps the target's distribution), copy-on-write of shared
KV blocks, and the size of LoRA adapters. Standard library only, like the rest of the package."""
from __future__ import annotations

from .errors import CalcError


class SamplingError(CalcError):
    pass


def _dist(v, name):
    v = [float(x) for x in v]
    if not v or any(x < 0 for x in v) or abs(sum(v) - 1) > 1e-9:
        raise SamplingError(f"{name} must be a probability distribution (non-negative, summing to 1), "
                            f"got {v}")
    return v


def rejection_step(p, q) -> dict:
    """One position of speculative sampling: the draft proposes x ~ q; it is kept with probability
    min(1, p(x)/q(x)); if not, a token is drawn from the residual max(0, p - q), normalised.
    Returns the per-token keep probabilities, the acceptance rate alpha = sum min(p, q), the
    residual and the distribution of the emitted token, which is p exactly (the proof, term by
    term: q(x) min(1, p/q) + (1 - alpha) r(x) = min(p, q) + max(0, p - q) = p)."""
    p, q = _dist(p, "p (target)"), _dist(q, "q (draft)")
    if len(p) != len(q):
        raise SamplingError(f"p and q must cover the same vocabulary ({len(p)} vs {len(q)} tokens)")
    keep = [min(1.0, pi / qi) if qi > 0 else 0.0 for pi, qi in zip(p, q)]
    alpha = sum(min(pi, qi) for pi, qi in zip(p, q))
    excess = [max(0.0, pi - qi) for pi, qi in zip(p, q)]
    rest = sum(excess)
    residual = [e / rest for e in excess] if rest > 0 else [0.0] * len(p)
    out = [qi * k + (1 - alpha) * r for qi, k, r in zip(q, keep, residual)]
    return {"keep": keep, "alpha": alpha, "tv_distance": 1 - alpha, "residual": residual,
            "output": out, "max_error": max(abs(o - pi) for o, pi in zip(out, p))}


def cow_fork(prompt: int, samples: int, block: int) -> dict:
    """`samples` sequences decoded from one `prompt` (parallel sampling) in paged KV with
    blocks of `block` tokens. At the fork every prompt block is shared (reference count =
    samples). The first token each sample writes lands in the last prompt block; if that block
    is only partly filled and still shared, the writer copies it first (copy-on-write): samples-1
    copies, the last writer keeps the original once its count has dropped to 1."""
    for v, n in ((prompt, "prompt"), (samples, "samples"), (block, "block")):
        if not isinstance(v, int) or v < 1:
            raise SamplingError(f"{n} must be a positive integer, got {v!r}")
    full, part = divmod(prompt, block)
    prompt_blocks = full + (1 if part else 0)
    copies = samples - 1 if part else 0
    shared_after = full if part else prompt_blocks
    held = prompt_blocks + copies
    unshared = samples * prompt_blocks
    return {"prompt_blocks": prompt_blocks, "full_blocks": full, "partial_tokens": part,
            "copies": copies, "shared_blocks": shared_after, "refcount": samples,
            "blocks_held": held, "blocks_unshared": unshared, "saving": 1 - held / unshared}


def lora_params(m, rank: int, targets=("q", "k", "v", "o", "gate", "up", "down")) -> int:
    """Parameters of one LoRA adapter of `rank` on the given projections of every layer of a
    dense model: each d_in x d_out matrix gets A (d_in x r) and B (r x d_out), r (d_in + d_out)."""
    if not isinstance(rank, int) or rank < 1:
        raise SamplingError(f"rank must be a positive integer, got {rank!r}")
    h, hd = m.hidden_size, m.head_dim
    shapes = {"q": (h, m.num_heads * hd), "k": (h, m.num_kv_heads * hd),
              "v": (h, m.num_kv_heads * hd), "o": (m.num_heads * hd, h),
              "gate": (h, m.intermediate_size), "up": (h, m.intermediate_size),
              "down": (m.intermediate_size, h)}
    unknown = [t for t in targets if t not in shapes]
    if unknown:
        raise SamplingError(f"unknown LoRA target(s) {unknown}; known: {sorted(shapes)}")
    return m.num_layers * sum(rank * sum(shapes[t]) for t in targets)


def spec_round_tokens(alpha: float, k: int) -> dict:
    """Tokens one speculative round emits, N, with draft length k and an i.i.d. per-position
    acceptance rate alpha: N = j (j = 1..k) when the first j - 1 drafts pass and the j-th is
    rejected, probability alpha^(j-1) (1 - alpha); N = k + 1 when all k pass, alpha^k.
    Returns that distribution (index 0 is N = 1), its mean (equal to (1 - alpha^(k+1)) / (1 - alpha)),
    its standard deviation, the drafts accepted and discarded per round (the discarded ones' KV
    is rolled back), and the share of the k + 1 verified positions that become output."""
    if not isinstance(k, int) or k < 0:
        raise SamplingError(f"k must be a non-negative integer, got {k!r}")
    if not 0 <= alpha <= 1:
        raise SamplingError(f"alpha must be in [0, 1], got {alpha!r}")
    probs = [alpha ** (j - 1) * (1 - alpha) for j in range(1, k + 1)] + [alpha ** k]
    mean = sum(j * pj for j, pj in enumerate(probs, start=1))
    var = sum((j - mean) ** 2 * pj for j, pj in enumerate(probs, start=1))
    accepted = mean - 1
    return {"probs": probs, "mean": mean, "std": var ** 0.5, "p_one": probs[0],
            "p_all": probs[-1], "drafts_accepted": accepted, "drafts_discarded": k - accepted,
            "discarded_share": (k - accepted) / k if k else 0.0,
            "verify_yield": mean / (k + 1)}


def lora_swap(adapter_bytes: float, link_bw: float, kv_bytes_per_token: float,
              step_s: float, distinct_per_step: int) -> dict:
    """What moving one LoRA adapter of `adapter_bytes` over a host link of `link_bw` costs:
    the copy time, how many such copies the link can carry per second, the adapter's size in
    tokens of KV (its share of a unified page pool), and the time to stream `distinct_per_step`
    adapters from the host on every decode step of `step_s` (the no-cache case)."""
    for v, n in ((adapter_bytes, "adapter_bytes"), (link_bw, "link_bw"),
                 (kv_bytes_per_token, "kv_bytes_per_token"), (step_s, "step_s")):
        if not v > 0:
            raise SamplingError(f"{n} must be positive, got {v!r}")
    if not isinstance(distinct_per_step, int) or distinct_per_step < 0:
        raise SamplingError(f"distinct_per_step must be a non-negative integer, got {distinct_per_step!r}")
    load_s = adapter_bytes / link_bw
    stream_s = distinct_per_step * load_s
    return {"load_s": load_s, "loads_per_s": link_bw / adapter_bytes,
            "kv_tokens": adapter_bytes / kv_bytes_per_token, "load_in_steps": load_s / step_s,
            "stream_s": stream_s, "stream_over_step": stream_s / step_s}
