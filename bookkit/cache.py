"""Content-addressed cache for executed cells, rendered figures and rendered math.

An entry is keyed on what the caller knows before running (code, edition, library versions) and
carries the files the run actually touched (imported local modules, data files read) with their
hashes. A lookup is a hit only if every recorded dependency still has the same hash: that is how
editing one model config re-runs exactly the cells and figures that read it.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
from pathlib import Path

CACHE_VERSION = "3"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def key_of(*parts: object) -> str:
    h = hashlib.sha256(CACHE_VERSION.encode())
    for part in parts:
        data = part if isinstance(part, bytes) else json.dumps(part, sort_keys=True,
                                                               ensure_ascii=False).encode()
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def library_versions() -> dict[str, str]:
    import importlib.metadata as md
    versions = {"python": sys.version.split()[0]}
    for name in ("matplotlib", "numpy", "markdown-it-py", "pygments"):
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            versions[name] = "absent"
    return versions


class FileHasher:
    """sha256 of files, memoised on (size, mtime_ns) so a warm build rereads nothing."""

    def __init__(self) -> None:
        self._memo: dict[str, tuple[int, int, str]] = {}

    def __call__(self, path: str) -> str | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        memo = self._memo.get(path)
        if memo and memo[0] == st.st_size and memo[1] == st.st_mtime_ns:
            return memo[2]
        with open(path, "rb") as fh:
            digest = sha256_bytes(fh.read())
        self._memo[path] = (st.st_size, st.st_mtime_ns, digest)
        return digest


class Cache:
    def __init__(self, root: Path, enabled: bool = True, base: Path | None = None) -> None:
        self.root = root
        self.base = base          # recorded dependencies are relative to this (the book root)
        self.enabled = enabled
        self.hasher = FileHasher()

    def _path(self, kind: str, key: str) -> Path:
        return self.root / kind / key[:2] / key

    def get(self, kind: str, key: str, deps_out: dict | None = None):
        """The stored value, if present and every dependency it recorded is unchanged.

        `deps_out`, if given, receives the recorded dependencies of a hit.
        """
        if not self.enabled:
            return None
        path = self._path(kind, key)
        try:
            with open(path, "rb") as fh:
                deps, value = pickle.load(fh)
        except (OSError, EOFError, pickle.UnpicklingError, ValueError):
            return None
        for dep, digest in deps.items():
            path = os.path.join(self.base, dep) if self.base else dep
            if self.hasher(path) != digest:
                return None
        if deps_out is not None:
            deps_out.update(deps)
        return value

    def put(self, kind: str, key: str, value, deps: dict[str, str] | None = None) -> None:
        path = self._path(kind, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        with open(tmp, "wb") as fh:
            pickle.dump((deps or {}, value), fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
