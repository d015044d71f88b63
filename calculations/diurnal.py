"""Chapter 3's day of traffic: a pool sized for the daily peak, what the online requests use of
it on average, what a preemptible batch tier can fill in the troughs, and what an elastic pool
that follows the curve would need instead.

Standard library only, like the rest of `calculations/`.
"""
from __future__ import annotations

import math

from .errors import CalcError

__all__ = ["DiurnalError", "peak_sized_pool"]


class DiurnalError(CalcError):
    """Bad argument to a diurnal-pool formula."""


def _pos(v, name):
    if (not isinstance(v, (int, float)) or isinstance(v, bool) or math.isnan(v)
            or math.isinf(v) or v <= 0):
        raise DiurnalError(f"{name} must be a positive number, got {v!r}")


def peak_sized_pool(rates, rho: float, fill_price: float = 0.5) -> dict:
    """A day cut into equal periods with arrival rates `rates` (requests/s). The fixed pool
    serves rate max(rates) / rho; the online requests use mean(rates) / capacity of it on
    average. `fill` is the capacity a preemptible batch tier can take in each period
    (capacity - rate); `revenue_*` are the revenue per unit of capacity in online prices when
    the pool serves only online requests, when the rest is filled at `fill_price`, and when an
    elastic pool follows rate / rho in every period (its capacity averages mean / rho)."""
    rates = list(rates)
    if not rates:
        raise DiurnalError("rates must not be empty")
    for r in rates:
        _pos(r, "rate")
    _pos(rho, "rho")
    if rho > 1:
        raise DiurnalError(f"rho must be at most 1, got {rho!r}")
    if not 0 <= fill_price <= 1:
        raise DiurnalError(f"fill_price must be in [0, 1], got {fill_price!r}")
    mean = sum(rates) / len(rates)
    capacity = max(rates) / rho
    util = mean / capacity
    elastic = mean / rho
    return {"capacity": capacity, "utilization": util, "idle": 1 - util,
            "fill": [capacity - r for r in rates],
            "elastic_capacity": elastic, "elastic_saving": 1 - elastic / capacity,
            "revenue_online": util, "revenue_fill": util + fill_price * (1 - util),
            "revenue_elastic": mean / elastic}
