"""Replacing an output folder as a whole, so readers never see a half-written one."""
from __future__ import annotations

import os
import shutil
from pathlib import Path


def swap_dir(new: Path, out: Path) -> None:
    """Put the finished folder `new` in place of `out` (two renames; the old tree is removed)."""
    old = out.with_name(out.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if out.exists():
        os.rename(out, old)
    os.rename(new, out)
    shutil.rmtree(old, ignore_errors=True)
