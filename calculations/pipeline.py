"""Pipeline schedules (chapter 10): how many micro-batches a bubble target needs.

Standard library only. Kept apart from `training.py` so that the bound the book states
("below 5 %") is computed exactly: the bubble fraction is a ratio of integers, so the
threshold is found with `fractions.Fraction` rather than floats, where 15/300 could land
on either side of 0.05.
"""
from __future__ import annotations

import math
from fractions import Fraction

from .errors import CalcError

__all__ = ["PipelineError", "bubble_fraction_exact", "microbatches_for_bubble"]


class PipelineError(CalcError):
    """Bad argument to a pipeline-schedule formula."""


def _pos_int(v, name):
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise PipelineError(f"{name} must be a positive integer, got {v!r}")
    return v


def _target(v) -> Fraction:
    # A float target such as 0.05 is read as the decimal the author typed (1/20), not as the
    # binary float 0.05000000000000000277..., so "below 5 %" means below exactly 1/20.
    if isinstance(v, bool) or not isinstance(v, (int, float, Fraction)):
        raise PipelineError(f"target must be a number in (0, 1), got {v!r}")
    t = Fraction(str(v)) if isinstance(v, float) else Fraction(v)
    if not 0 < t < 1:
        raise PipelineError(f"target must be in (0, 1), got {v!r}")
    return t


def bubble_fraction_exact(pp: int, microbatches: int, virtual: int = 1) -> Fraction:
    """Idle fraction of a 1F1B / GPipe step as an exact fraction: ((p-1)/v) / (m + (p-1)/v)
    = (p-1) / (v m + p - 1)."""
    p, m, v = _pos_int(pp, "pp"), _pos_int(microbatches, "microbatches"), _pos_int(virtual, "virtual")
    return Fraction(p - 1, v * m + p - 1)


def microbatches_for_bubble(pp: int, target, virtual: int = 1, strict: bool = True) -> int:
    """Fewest micro-batches m whose bubble is below `target` (strict=True: bubble < target;
    strict=False: bubble <= target). From (p-1)/(v m + p-1) < t: m > (p-1)(1-t)/(v t)."""
    p, v = _pos_int(pp, "pp"), _pos_int(virtual, "virtual")
    t = _target(target)
    if p == 1:
        return 1                      # no pipeline, no bubble
    bound = Fraction(p - 1) * (1 - t) / (v * t)
    m = math.floor(bound) + 1 if strict else max(1, math.ceil(bound))
    return max(1, m)
