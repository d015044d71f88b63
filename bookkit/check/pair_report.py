"""The number check's findings for people and for CI: ranked text lines, a per-section summary,
the revision-skew and precision summary lines, and GitHub workflow annotations. The
side-by-side HTML view is :mod:`bookkit.check.pair_html`."""

from __future__ import annotations

import re
from collections import Counter

from bookkit.check.compare import SEVERITIES, Difference


_SEVERITY_RANK = {"high": 0, "medium": 1, "low": 2}


def rank(findings: list[Difference]) -> list[Difference]:
    """Most severe first; within one severity, in the order of the translation."""
    return sorted(findings, key=lambda f: (_SEVERITY_RANK.get(f.severity, 1), f.translation_line or 0,
                                           f.original_line or 0, f.kind))


def format_text(findings: list[Difference], translation_path: str) -> str:
    """One line per finding, most severe first: ``TRANSLATION.md:LINE: kind [severity]: message``."""
    out = []
    for f in rank(findings):
        line = f.translation_line if f.translation_line is not None else 1
        out.append(f"{translation_path}:{line}: {f.kind} [{f.severity}]: {f.message}")
    return "\n".join(out)


def format_summary(findings: list[Difference]) -> str:
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


def reported(findings: list[Difference], precision: bool = False) -> list[Difference]:
    """The findings a report lists: differences of precision only (2,796 for 2,795.66) are
    left to :func:`precision_line` unless ``precision``."""
    return [f for f in findings if precision or f.kind != "precision"]


def precision_line(findings: list[Difference], precision: bool = False) -> str:
    """One line for the differences of precision only that :func:`reported` leaves out."""
    n = sum(f.kind == "precision" for f in findings)
    if precision or not n:
        return ""
    return (f"{n} number(s) written at another precision (e.g. {_example(findings)}); "
            f"not listed (--precision lists them)")


def _example(findings: list[Difference]) -> str:
    f = next(f for f in findings if f.kind == "precision")
    m = re.search(r"original '([^']*)'.*translation '([^']*)'", f.message)
    return f"{m.group(1)} as {m.group(2)}" if m else str(f.value)


def skew_line(result, revision=None) -> str:
    """The revision-skew note, once at the top: how many paragraphs are on one side only and,
    where git can tell, the original's revision the translation matches best."""
    if not result.skewed:
        return ""
    line = (f"revision skew: {result.only_original} paragraph(s) only in the original, "
            f"{result.only_translation} only in the translation ({result.aligned} aligned); "
            f"the translation likely follows another revision of the original")
    if revision is not None:
        line += (f"; it matches the original of {revision.commit[:12]} ({revision.date}) best "
                 f"({revision.one_sided} paragraph(s) one-sided there)")
    return line


def _escape_property(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A") \
        .replace(":", "%3A").replace(",", "%2C")


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def format_github(findings: list[Difference], translation_path: str) -> str:
    """GitHub Actions workflow commands, one per finding (``::error file=…,line=…,title=…::…``):
    a pull request shows each on its line of the translation. High findings are errors, the
    rest warnings (low: notices)."""
    level = {"high": "error", "medium": "warning", "low": "notice"}
    out = []
    for f in rank(findings):
        line = f.translation_line if f.translation_line is not None else 1
        title = f"translation {f.kind} [{f.severity}]"
        where = f" (original line {f.original_line})" if f.original_line else ""
        out.append(f"::{level.get(f.severity, 'warning')} file={_escape_property(translation_path)},"
                   f"line={line},title={_escape_property(title)}::{_escape_data(f.message + where)}")
    return "\n".join(out)
