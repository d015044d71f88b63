"""Argument types for calc.py's commands: numbers and integers checked against a range, with
one message per kind, shared by calc.py and every chapter's command module.

argparse calls a `type` with the raw string and turns an ArgumentTypeError into a usage error
(exit 2, no traceback), which is what a reader who mistypes a flag should see.
"""
from __future__ import annotations

import argparse
import math

__all__ = ["positive", "nonneg", "positive_number", "nonneg_number", "fraction", "probability",
           "size"]


def _parse_float(s: str) -> float | None:
    try:
        return float(str(s).replace("_", "").replace(",", ""))
    except ValueError:
        return None


def _number(kind: str, ok) -> "callable":
    def conv(s):
        v = _parse_float(s)
        if v is None or math.isnan(v) or math.isinf(v) or not ok(v):
            raise argparse.ArgumentTypeError(f"expected {kind}, got {s!r}")
        return v
    conv.__name__ = kind
    return conv


def _integer(kind: str, least: int) -> "callable":
    def conv(s):
        try:
            v = int(str(s).replace("_", "").replace(",", ""))   # exact, however large
        except ValueError:
            f = _parse_float(s)      # 1e6 is fine when it is a whole number
            v = int(f) if f is not None and math.isfinite(f) and f.is_integer() else None
        if v is None or v < least:
            raise argparse.ArgumentTypeError(f"expected {kind}, got {s!r}")
        return v
    conv.__name__ = kind
    return conv


positive = _integer("a positive integer", 1)
nonneg = _integer("a non-negative integer", 0)
positive_number = _number("a positive number", lambda v: v > 0)
nonneg_number = _number("a non-negative number", lambda v: v >= 0)
fraction = _number("a fraction in (0, 1]", lambda v: 0 < v <= 1)
probability = _number("a fraction in [0, 1]", lambda v: 0 <= v <= 1)
size = _number("a non-negative size in bytes", lambda v: v >= 0)
