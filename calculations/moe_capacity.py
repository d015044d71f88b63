"""Expert capacity of a mixture-of-experts layer: the fixed per-expert buffer that token
dispatch fills, its inverse, and the tokens that overflow it.

A MoE kernel and its all-to-all need buffer sizes fixed before the router runs. Switch
Transformer (Fedus et al., arXiv 2101.03961) sets each expert's capacity to the fair share
of the batch's tokens times a capacity factor; with top-k routing (GShard) each token makes
k assignments, so the fair share is T k / E:

    C = ceil(cf * T * k / E)

Inverse: the largest batch a buffer of C slots per expert takes without the factor's
headroom being eaten, T_max = floor(C * E / (cf * k)).

Overflow: a token assigned to an expert whose buffer is full is dropped (or rerouted). When
each token picks a given expert with probability p independently, the expert's load is
Binomial(T, p) and the expected overflow is E[max(0, X - C)]. Standard library only.
"""
from __future__ import annotations

import math


def _check(tokens, k, experts, factor):
    if tokens < 0 or k < 1 or experts < 1 or k > experts or factor <= 0:
        raise ValueError(f"need tokens >= 0, 1 <= k <= experts, factor > 0; got "
                         f"tokens={tokens}, k={k}, experts={experts}, factor={factor}")


def expert_capacity(tokens: int, k: int, experts: int, factor: float) -> int:
    """Slots per expert: ceil(factor * tokens * k / experts)."""
    _check(tokens, k, experts, factor)
    return math.ceil(factor * tokens * k / experts - 1e-9)


def max_tokens(capacity: int, k: int, experts: int, factor: float) -> int:
    """The inverse: the largest batch whose capacity at this factor fits `capacity` slots."""
    _check(0, k, experts, factor)
    if capacity < 0:
        raise ValueError(f"capacity must be >= 0, got {capacity}")
    t = math.floor(capacity * experts / (factor * k) + 1e-9)
    while t > 0 and expert_capacity(t, k, experts, factor) > capacity:
        t -= 1
    return t


def _log_pmf(n: int, p: float, x: int) -> float:
    return (math.lgamma(n + 1) - math.lgamma(x + 1) - math.lgamma(n - x + 1)
            + x * math.log(p) + (n - x) * math.log1p(-p))


def expected_overflow(n: int, p: float, capacity: int) -> float:
    """E[max(0, X - capacity)] for X ~ Binomial(n, p).

    The sum runs outwards from the most likely count above the capacity, each term from its
    neighbour by the pmf's ratio (n - x) / (x + 1) * p / (1 - p), and stops once a term no longer
    changes the sum: the same terms as summing exp(log pmf) over every x, without three log-gamma
    calls per term (a figure sweeps this over hundreds of batches)."""
    if not 0 <= p <= 1 or n < 0 or capacity < 0:
        raise ValueError(f"need n >= 0, 0 <= p <= 1, capacity >= 0; got {n}, {p}, {capacity}")
    if p == 0 or capacity >= n:
        return 0.0
    if p == 1:
        return float(n - capacity)
    odds = p / (1 - p)
    start = min(n, max(capacity + 1, math.floor((n + 1) * p)))
    peak = math.exp(_log_pmf(n, p, start))
    total = (start - capacity) * peak
    term, x = peak, start
    while x < n:                        # upwards: past the mode the terms only shrink
        term *= (n - x) / (x + 1) * odds
        x += 1
        total += (x - capacity) * term
        if (x - capacity) * term <= total * 1e-17:
            break
    term, x = peak, start
    while x > capacity + 1:             # downwards to the capacity: shrinking from the mode too
        term *= x / ((n - x + 1) * odds)
        x -= 1
        total += (x - capacity) * term
        if (x - capacity) * term <= total * 1e-17:
            break
    return total


def dropped_fraction(tokens: int, k: int, experts: int, factor: float,
                     groups: list[tuple[int, float]] | None = None) -> float:
    """Expected share of the batch's tokens x k assignments that overflow. `groups` lists
    (number of experts, share of all assignments they receive); the default is uniform
    routing. Each expert of a group is picked by a token with probability k * share / count."""
    _check(tokens, k, experts, factor)
    groups = groups or [(experts, 1.0)]
    if sum(c for c, _ in groups) != experts or abs(sum(s for _, s in groups) - 1) > 1e-9:
        raise ValueError(f"groups {groups} must cover {experts} experts and all assignments")
    cap = expert_capacity(tokens, k, experts, factor)
    over = sum(c * expected_overflow(tokens, min(1.0, k * s / c), cap) for c, s in groups)
    return over / (tokens * k) if tokens else 0.0
