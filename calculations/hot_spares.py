"""Chapter 10's hot spares: a synchronous job of many nodes stops when one fails; a failed node
is out for a repair time, and the job restarts at once only if a spare node is ready. Failures
arrive as a Poisson process, so the nodes out for repair at any moment are Poisson distributed
with mean nodes x rate x repair time; the spares needed are a quantile of that distribution.

Standard library only, like the rest of `calculations/`.
"""
from __future__ import annotations

import math

from .errors import CalcError

__all__ = ["HotSpareError", "poisson_quantile", "nodes_in_repair", "spares_needed"]


class HotSpareError(CalcError):
    """Bad argument to a hot-spare formula."""


def _pos(v, name, zero_ok=False):
    if (not isinstance(v, (int, float)) or isinstance(v, bool) or math.isnan(v) or math.isinf(v)
            or v < 0 or (v == 0 and not zero_ok)):
        raise HotSpareError(f"{name} must be a {'non-negative' if zero_ok else 'positive'} "
                            f"number, got {v!r}")


def poisson_quantile(mean: float, p: float) -> int:
    """The smallest k with P(X <= k) >= p for X ~ Poisson(mean)."""
    _pos(mean, "mean", zero_ok=True)
    if not 0 < p < 1:
        raise HotSpareError(f"p is a probability in (0, 1), got {p!r}")
    if mean == 0:
        return 0
    k, term = 0, math.exp(-mean)
    if term == 0.0:
        raise HotSpareError(f"mean {mean} too large for the direct sum")
    total = term
    while total < p:
        k += 1
        term *= mean / k
        total += term
    return k


def nodes_in_repair(nodes: int, rate_per_node_h: float, repair_h: float) -> float:
    """Mean number of nodes out for repair: failures per hour times hours each is out."""
    _pos(nodes, "nodes")
    _pos(rate_per_node_h, "rate_per_node_h")
    _pos(repair_h, "repair_h")
    return nodes * rate_per_node_h * repair_h


def spares_needed(nodes: int, rate_per_node_h: float, repair_h: float,
                  availability: float = 0.999) -> int:
    """Spare nodes that cover the nodes out for repair with probability `availability`."""
    return poisson_quantile(nodes_in_repair(nodes, rate_per_node_h, repair_h), availability)
