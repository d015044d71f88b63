"""Revision skew: which revision of the original a translation follows.

When many paragraphs are on one side only (:attr:`bookkit.check.compare.PairResult.skewed`),
the translation was likely made from another revision of the original. Where the original is
tracked by git, each of its recent revisions is aligned with the translation, and the one that
leaves the fewest paragraphs unmatched is named.
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from bookkit.check.compare import compare_pair

#: how far back to look (each revision is one alignment, some milliseconds per chapter)
MAX_REVISIONS = 40


@dataclass(frozen=True)
class Revision:
    commit: str
    date: str          # the commit date, YYYY-MM-DD
    one_sided: int     # paragraphs on one side only against this revision


def _git(cwd: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.decode("utf-8", "replace") if out.returncode == 0 else None


def best_revision(original_path: str | Path, translation_text: str, lang: str,
                  limit: int = MAX_REVISIONS) -> Revision | None:
    """The revision of ``original_path`` (among its last ``limit`` commits) that the
    translation matches best, or ``None`` when git cannot tell (not tracked, no history, or
    no revision matches better than the file as it is now)."""
    path = Path(original_path).resolve()
    top = _git(path.parent, "rev-parse", "--show-toplevel")
    if not top:
        return None
    root = Path(top.strip()).resolve()
    rel = path.relative_to(root).as_posix()
    # from the top of the repository: a pathspec is relative to git's working directory
    log = _git(root, "log", f"-n{limit}", "--format=%H %cs", "--", rel)
    if not log:
        return None
    try:
        current = path.read_text(encoding="utf-8")
    except OSError:
        return None
    def count(text: str) -> int:
        r = compare_pair(text, translation_text, lang)
        return r.only_original + r.only_translation
    best = Revision("working tree", "", count(current))
    for row in log.splitlines():
        commit, _, date = row.partition(" ")
        text = _git(root, "show", f"{commit}:{rel}")
        if text is None:
            continue
        n = count(text)
        if n < best.one_sided:
            best = Revision(commit, date, n)
    return best if best.commit != "working tree" else None
