"""The commit the book is built from (for the errata links). Standard library only: the
no-op fast path (`uptodate`) also calls it, before the pipeline is imported."""
from __future__ import annotations

import subprocess
from pathlib import Path


def source_commit(root: Path) -> str | None:
    """`git rev-parse HEAD` of the book's checkout, or None without git or outside a checkout
    (the pages then name no commit). The same commit always gives the same pages."""
    try:
        result = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "-q", "HEAD"],
                                capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = result.stdout.strip()
    return commit if result.returncode == 0 and len(commit) in (40, 64) else None
