"""Chapter 10's asynchronous RL loop: generator GPUs produce rollout batches with the policy
version they hold when they start, a learner consumes the batches in order and publishes a new
version after each update, and a staleness bound (at most `max_staleness` versions between the
policy that generated a batch and the one that learns from it, as AReaL bounds it) holds the
generators back. Times, policy versions and the learner's busy share.

Standard library only, like the rest of `calculations/`.
"""
from __future__ import annotations

import math

from .errors import CalcError

__all__ = ["RLAsyncError", "async_schedule"]


class RLAsyncError(CalcError):
    """Bad argument to the asynchronous RL schedule."""


def _pos(v, name, zero_ok=False, integer=False):
    if (not isinstance(v, (int, float)) or isinstance(v, bool) or math.isnan(v) or math.isinf(v)
            or v < 0 or (v == 0 and not zero_ok) or (integer and int(v) != v)):
        raise RLAsyncError(f"{name} must be a {'non-negative' if zero_ok else 'positive'} "
                           f"{'integer' if integer else 'number'}, got {v!r}")


def async_schedule(rollout_s: float, learner_s: float, generators: int, batches: int,
                   max_staleness: int) -> dict:
    """Batch j goes to the generator free first; it may start only once the policy is at version
    j - max_staleness or later (version v = the number of updates finished), and is generated
    with the version current at its start. The learner takes batches in order: update j starts
    when update j - 1 has ended and batch j is ready, and publishes version j + 1. The lag of
    batch j is j minus its generating version (the learner is at version j when it learns from
    it), so it never exceeds max_staleness. Weight transfer is taken as instant."""
    _pos(rollout_s, "rollout_s")
    _pos(learner_s, "learner_s")
    _pos(generators, "generators", integer=True)
    _pos(batches, "batches", integer=True)
    _pos(max_staleness, "max_staleness", zero_ok=True, integer=True)
    free = [0.0] * int(generators)
    gen, learn, lags = [], [], []
    l_end = []
    for j in range(int(batches)):
        g = min(range(len(free)), key=lambda k: (free[k], k))
        start = free[g]
        need = j - max_staleness - 1          # update that must have finished
        if need >= 0:
            start = max(start, l_end[need])
        version = sum(1 for e in l_end if e <= start + 1e-12)
        end = start + rollout_s
        free[g] = end
        gen.append((g, start, end, version, j))
        ls = max(l_end[-1] if l_end else 0.0, end)
        le = ls + learner_s
        l_end.append(le)
        learn.append((ls, le, j, j + 1))
        lags.append(j - version)
    span = learn[-1][1] - learn[0][0]
    busy = len(learn) * learner_s / span
    return {"gen": gen, "learn": learn, "lags": lags, "max_lag": max(lags),
            "learner_busy": busy, "span_s": learn[-1][1]}
