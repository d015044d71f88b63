"""The commit the book is built from (for the errata links). Standard library only: the
no-op fast path (`uptodate`) also calls it, before the pipeline is imported."""
from __future__ import annotations

import subprocess
from pathlib import Path


_HEX = frozenset("0123456789abcdef")


def _read_head(root: Path) -> str | None:
    """HEAD read from the files of a plain checkout (`.git/HEAD`, a loose ref or
    `packed-refs`). Why not only `git rev-parse`: the no-op build would pay ~5-10 ms for the
    process; anything unusual (a worktree's `.git` file, a symbolic ref chain) returns None and
    the caller asks git."""
    git = Path(root) / ".git"
    try:
        head = (git / "HEAD").read_text().strip()
        if head.startswith("ref: "):
            ref = head[5:]
            loose = git / ref
            if loose.is_file():
                head = loose.read_text().strip()
            else:
                head = next((line.split()[0] for line in (git / "packed-refs").read_text()
                             .splitlines() if line.endswith(" " + ref)), "")
    except OSError:
        return None
    return head if len(head) in (40, 64) and set(head) <= _HEX else None


def source_commit(root: Path) -> str | None:
    """The commit HEAD names in the book's checkout, or None without git or outside a checkout
    (the pages then name no commit). The same commit always gives the same pages."""
    head = _read_head(root)
    if head:
        return head
    try:
        result = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "-q", "HEAD"],
                                capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = result.stdout.strip()
    return commit if result.returncode == 0 and len(commit) in (40, 64) else None
