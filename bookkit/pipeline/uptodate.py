"""The no-op fast path: skip a build whose inputs have not changed since the last one.

A full pipeline run costs ~1 s even when every stage hits its cache (parsing Markdown is most of
it). Before importing any of the pipeline, `build_site.py` compares a fingerprint of every input
file (path, size, mtime) and the options with the one stored after the last successful build.
Standard library only, so the check itself costs a few milliseconds: the edition folders to
fingerprint (from the registry in manuscripts/book.yml, which needs PyYAML) are stored with the
fingerprint after a build; a new edition changes book.yml, so the next check rebuilds anyway.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from bookkit.load.gitinfo import source_commit
from bookkit.model import CONFIG_DIR

#: inputs besides the edition folders
INPUTS = (CONFIG_DIR, "website/templates", "website/static", "calculations", "bookkit",
          "website/package-lock.json", "requirements.txt")


def fingerprint(root: Path, options: list[str], dirs: list[str]) -> str:
    """A hash of every input file's path, size and mtime; `dirs`: the edition folders."""
    # the pages name the commit they were built from (errata links): a new commit rebuilds
    h = hashlib.sha256(json.dumps([sys.version, options, source_commit(root)]).encode())
    for name in dict.fromkeys((*dirs, *INPUTS)):
        base = root / name
        if base.is_file():
            st = base.stat()
            h.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for file in sorted(filenames):
                if file.endswith((".pyc", "~", ".swp")):
                    continue
                path = os.path.join(dirpath, file)
                st = os.stat(path)
                rel = os.path.relpath(path, root)
                h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def stamp_path(out: Path) -> Path:
    return out.parent / f".{out.name}.inputs"


def is_up_to_date(root: Path, out: Path, options: list[str]) -> bool:
    try:
        stored = json.loads(stamp_path(out).read_text())
        dirs, digest = list(stored["dirs"]), stored["fingerprint"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return (out / ".manifest.json").is_file() and digest == fingerprint(root, options, dirs)


def record(root: Path, out: Path, options: list[str], dirs: list[str], digest: str) -> None:
    """Store `digest` (the fingerprint taken before the build) and the folders it covers."""
    stamp_path(out).write_text(json.dumps({"dirs": dirs, "fingerprint": digest}))
