"""Write a built tree atomically: build the new tree beside the old one, then swap.

Unchanged files are hard-linked from the previous tree (found through its manifest of
sha256 digests), so an edit rewrites one page; an unchanged build writes nothing. Under
`--serve` (`update_in_place`) a build that changes a few files writes just those into the
served tree, each replaced atomically.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from bookkit.util.fsutil import swap_dir

MANIFEST = ".manifest.json"
#: `update_in_place`: at most this many changed files are written into the served tree; more
#: (a template or style sheet edited: every page) get a new tree, swapped in at once
IN_PLACE_MAX = 64


class TreeWriter:
    def __init__(self, out: Path) -> None:
        self.out = out
        self._last_manifest: dict[str, str] | None = None
        self._manifest_stat: tuple | None = None   # (inode, mtime, size) of that manifest file
        # path -> (the bytes object last written there, its digest): the renderers hand back
        # the very objects they made before for whatever did not change, so under --serve only
        # the edited pages are hashed again (hashing the whole tree was 0.13 s a rebuild).
        self._digests: dict[str, tuple[bytes, str]] = {}
        # The paths the last write added, changed or removed: `--serve` tells open pages, so
        # that a page none of whose files changed is left alone.
        self.changed_paths: list[str] = []
        # `--serve`: the replaced tree is removed when the server is idle (`tidy`), not before
        # the open pages are told (removing ~1,000 links was ~15 % of a one-paragraph rebuild)
        self.defer_cleanup = False
        # `--serve`: a build that changes a few files replaces just those (each atomically)
        # instead of linking a whole new tree (~1,100 links and directories: ~60 ms of a
        # rebuild the open page waits for); see `_update_in_place`
        self.update_in_place = False

    def write(self, files: dict[str, bytes]) -> tuple[bool, int]:
        """(whether anything changed, how many files were written rather than linked)."""
        out = self.out
        manifest = {path: self._digest(path, data) for path, data in files.items()}
        self._digests = {path: (files[path], digest) for path, digest in manifest.items()}
        if self._last_manifest == manifest and out.is_dir():
            self.changed_paths = []
            return False, 0
        # the manifest this writer wrote last, unless the tree is not the one it wrote
        old = (self._last_manifest if self._last_manifest is not None
               and self._manifest_stat == _stat(out / MANIFEST) else _read_manifest(out))
        self.changed_paths = sorted({path for path, digest in manifest.items()
                                     if old.get(path) != digest} | (old.keys() - manifest.keys()))
        if (self.update_in_place and old and out.is_dir()
                and len(self.changed_paths) <= IN_PLACE_MAX):
            written = self._update_in_place(files, manifest)
            self._last_manifest = manifest
            return True, written
        new = out.with_name(out.name + ".new")
        if new.exists():
            shutil.rmtree(new)
        new.mkdir(parents=True)
        written = 0
        for path in sorted(files):
            target = new / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if old.get(path) == manifest[path]:
                try:
                    os.link(out / path, target)
                    continue
                except OSError:
                    pass
            target.write_bytes(files[path])
            written += 1
        (new / MANIFEST).write_text(json.dumps(manifest, sort_keys=True, indent=0))
        swap_dir(new, out, keep_old=self.defer_cleanup)
        self._last_manifest = manifest
        self._manifest_stat = _stat(out / MANIFEST)
        return True, written

    def _update_in_place(self, files: dict[str, bytes], manifest: dict[str, str]) -> int:
        """Write the changed files into the served tree, each through a temporary file and a
        rename (a reader sees the old file or the new one, never half of one), then drop the
        removed ones, then the manifest. Unlike the swap, the tree as a whole is not replaced
        at one instant: for the few milliseconds of the writes a page may load a new image
        beside an old one. The previous files are not touched (a rename replaces the name,
        not the inode a kept tree may share), and a build that fails writes nothing."""
        out = self.out
        for path in self.changed_paths:
            target = out / path
            if path not in files:
                try:
                    target.unlink()
                except FileNotFoundError:
                    pass
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            tmp.write_bytes(files[path])
            os.replace(tmp, target)
        tmp = out / f".{MANIFEST}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(manifest, sort_keys=True, indent=0))
        os.replace(tmp, out / MANIFEST)
        self._manifest_stat = _stat(out / MANIFEST)
        return sum(1 for path in self.changed_paths if path in files)

    def tidy(self) -> None:
        """Remove the tree the last write replaced, if `defer_cleanup` left it."""
        for left in (self.out.with_name(self.out.name + ".new"),
                     self.out.with_name(self.out.name + ".old")):
            if left.exists():
                shutil.rmtree(left, ignore_errors=True)

    def _digest(self, path: str, data: bytes) -> str:
        known = self._digests.get(path)
        if known is not None and known[0] is data:
            return known[1]
        return hashlib.sha256(data).hexdigest()


def _stat(path: Path) -> tuple | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def _read_manifest(out: Path) -> dict:
    try:
        return json.loads((out / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
