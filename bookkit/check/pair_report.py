"""The number check's findings as text: ranked, one line each, and a per-section summary."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from .compare import (Finding, SEVERITIES)


_SEVERITY_RANK = {"high": 0, "medium": 1, "low": 2}


def rank(findings: list[Finding]) -> list[Finding]:
    """Most severe first; within one severity, in the order of the translation."""
    return sorted(findings, key=lambda f: (_SEVERITY_RANK.get(f.severity, 1), f.translation_line or 0,
                                           f.original_line or 0, f.kind))


def format_text(findings: list[Finding], translation_path: str) -> str:
    """One line per finding, most severe first: ``TRANSLATION.md:LINE: kind [severity]: message``."""
    out = []
    for f in rank(findings):
        line = f.translation_line if f.translation_line is not None else 1
        out.append(f"{translation_path}:{line}: {f.kind} [{f.severity}]: {f.message}")
    return "\n".join(out)


def format_summary(findings: list[Finding]) -> str:
    """A per-section count by severity, sections in the order of the translation, so a reader
    sees first where the important findings are."""
    if not findings:
        return ""
    per: dict[str, Counter] = {}
    first: dict[str, tuple[int, str]] = {}
    for f in findings:
        name = f.section or "(whole chapter)"
        per.setdefault(name, Counter())[f.severity] += 1
        # the translation's line where there is one (a section the translation lacks has only
        # the original's)
        where = (f.translation_line, "line") if f.translation_line else (f.original_line or 0, "original line")
        first[name] = min(first.get(name, (10**9, "")), where)
    total = Counter(f.severity for f in findings)
    head = (f"{len(findings)} finding(s): " + ", ".join(f"{total[s]} {s}" for s in SEVERITIES)
            + f", in {len(per)} section(s)")
    rows = []
    for name in sorted(per, key=lambda n: first[n]):
        counts = ", ".join(f"{per[name][s]} {s}" for s in SEVERITIES if per[name][s])
        rows.append(f"  {name} ({first[name][1]} {first[name][0]}): {counts}")
    return "\n".join([head, *rows])
