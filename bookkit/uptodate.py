"""The no-op fast path: skip a build whose inputs have not changed since the last one.

A full pipeline run costs ~1 s even when every stage hits its cache (parsing Markdown is most of
it). Before importing any of the pipeline, `build_site.py` compares a fingerprint of every input
file (path, size, mtime) and the options with the one stored after the last successful build.
Standard library only, so the check itself costs a few milliseconds.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from .gitinfo import source_commit

INPUTS = ("manuscripts", "book-en", "book-zh-tw", "website/templates", "website/static",
          "calculations", "bookkit", "website/package-lock.json", "requirements.txt")


def fingerprint(root: Path, options: list[str]) -> str:
    # the pages name the commit they were built from (errata links): a new commit rebuilds
    h = hashlib.sha256(json.dumps([sys.version, options, source_commit(root)]).encode())
    for name in INPUTS:
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
        stored = stamp_path(out).read_text()
    except OSError:
        return False
    return (out / ".manifest.json").is_file() and stored == fingerprint(root, options)


def record(root: Path, out: Path, options: list[str]) -> None:
    stamp_path(out).write_text(fingerprint(root, options))
