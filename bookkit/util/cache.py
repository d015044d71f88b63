"""Content-addressed cache for executed cells, rendered figures and rendered math.

An entry is keyed on what the caller knows before running (code, edition, library versions) and
carries the files the run actually touched (imported local modules, data files read) with their
hashes. A lookup is a hit only if every recorded dependency still has the same hash: that is how
editing one model config re-runs exactly the cells and figures that read it.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import pickle
import sqlite3
import sys
from pathlib import Path

CACHE_VERSION = "4"


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


@functools.lru_cache(maxsize=1)
def library_versions() -> dict[str, str]:
    """Versions that key cached cells and figures (memoised: importlib.metadata scans the
    installed distributions on each call)."""
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
        # Within one build each path is looked at once: ~900 figures record the same dozen
        # files (their script, the diagram vocabulary), and a --serve rebuild made 9,000 stat
        # calls checking them. `new_build` forgets; a file saved during a build is seen by the
        # rebuild its save triggers.
        self._this_build: dict[str, str | None] = {}

    def new_build(self) -> None:
        self._this_build.clear()

    def __call__(self, path: str) -> str | None:
        try:
            return self._this_build[path]
        except KeyError:
            digest = self._this_build[path] = self._digest(path)
            return digest

    def _digest(self, path: str) -> str | None:
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
    """Entries live in one SQLite file (``<root>/cache.sqlite3``); `put` stages in memory and
    `flush` writes everything staged in one transaction.

    Why not a file per entry: on this kind of VM creating a file (and its shard directory)
    costs ~0.6 ms, and a cold build stores an entry per formula: 117 files were 70 ms of a
    one-second build. Only the parent process uses the cache (forked jobs never touch it).
    """

    def __init__(self, root: Path, enabled: bool = True, base: Path | None = None) -> None:
        self.root = root
        self.base = base          # recorded dependencies are relative to this (the book root)
        self.enabled = enabled
        self.hasher = FileHasher()
        self._db: sqlite3.Connection | None = None
        self._pid = 0
        self._staged: dict[tuple[str, str], bytes] = {}
        # (kind, key) -> (deps, value) for the entries read with `keep=True`: the same object
        # again while its dependencies are unchanged, without unpickling (a --serve rebuild
        # unpickled every chapter's cell values, 0.12 s, for one edited paragraph).
        self._kept: dict[tuple[str, str], tuple[dict, object]] = {}

    def _conn(self) -> sqlite3.Connection:
        if self._db is None or self._pid != os.getpid():
            self.root.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.root / "cache.sqlite3", timeout=60, isolation_level=None)
            # A cache may lose the writes of a crashed build (and a damaged file is replaced,
            # see `flush`), so no fsync and the rollback journal in memory: each transaction
            # would otherwise create and delete a journal file (~0.5 ms each on this VM).
            db.execute("PRAGMA synchronous=OFF")
            db.execute("PRAGMA journal_mode=MEMORY")
            db.execute("CREATE TABLE IF NOT EXISTS entries (kind TEXT NOT NULL, key TEXT NOT NULL,"
                       " value BLOB NOT NULL, PRIMARY KEY (kind, key)) WITHOUT ROWID")
            self._db, self._pid = db, os.getpid()
        return self._db

    def _load(self, kind: str, key: str) -> bytes | None:
        staged = self._staged.get((kind, key))
        if staged is not None:
            return staged
        if not (self.root / "cache.sqlite3").exists() and self._db is None:
            return None   # a cold cache: do not create the file just to find nothing
        try:
            row = self._conn().execute("SELECT value FROM entries WHERE kind = ? AND key = ?",
                                       (kind, key)).fetchone()
        except sqlite3.DatabaseError:   # not a database (a torn copy...): a miss
            return None
        return row[0] if row else None

    def get(self, kind: str, key: str, deps_out: dict | None = None, keep: bool = False):
        """The stored value, if present and every dependency it recorded is unchanged.

        `deps_out`, if given, receives the recorded dependencies of a hit. `keep`: the value is
        kept in memory and the same object returned next time; only for values nobody mutates.
        """
        if not self.enabled:
            return None
        kept = self._kept.get((kind, key)) if keep else None
        if kept is not None:
            deps, value = kept
        else:
            blob = self._load(kind, key)
            if blob is None:
                return None
            try:
                deps, value = pickle.loads(blob)
            except (EOFError, pickle.UnpicklingError, ValueError, AttributeError, ImportError):
                return None
        for dep, digest in deps.items():
            path = os.path.join(self.base, dep) if self.base else dep
            if self.hasher(path) != digest:
                return None
        if keep:
            if len(self._kept) > 4096:   # a long --serve session: old keys are not wanted again
                self._kept.clear()
            self._kept[(kind, key)] = (deps, value)
        if deps_out is not None:
            deps_out.update(deps)
        return value

    def put(self, kind: str, key: str, value, deps: dict[str, str] | None = None) -> None:
        """Stage an entry; `flush` stores it (a reader in this process sees it at once)."""
        self._staged[(kind, key)] = pickle.dumps((deps or {}, value),
                                                 protocol=pickle.HIGHEST_PROTOCOL)

    def put_pickled(self, kind: str, key: str, blob: bytes) -> None:
        """Stage an entry another process pickled (`staged`)."""
        self._staged[(kind, key)] = blob

    def staged(self, kind: str) -> dict[tuple[str, str], bytes]:
        """The entries of `kind` staged and not yet flushed, pickled."""
        return {k: blob for k, blob in self._staged.items() if k[0] == kind}

    def flush(self) -> None:
        if not self._staged:
            return
        rows = [(kind, key, blob) for (kind, key), blob in self._staged.items()]
        try:
            self._write(rows)
        except sqlite3.DatabaseError:   # the file is not a database: start a new one
            self.close_connection()
            (self.root / "cache.sqlite3").unlink(missing_ok=True)
            self._write(rows)
        self._staged.clear()

    def _write(self, rows: list[tuple[str, str, bytes]]) -> None:
        db = self._conn()
        with db:   # one transaction
            db.execute("BEGIN")
            db.executemany("INSERT OR REPLACE INTO entries (kind, key, value) VALUES (?, ?, ?)",
                           rows)

    def close(self) -> None:
        self.flush()
        self.close_connection()

    def close_connection(self) -> None:
        if self._db is not None and self._pid == os.getpid():
            self._db.close()
        self._db = None


def copy_cache(src: Path, dest: Path) -> None:
    """A consistent copy of the cache in folder `src` into folder `dest`, even while another
    process writes to it (SQLite's online backup; copying the files could tear)."""
    dest.mkdir(parents=True, exist_ok=True)
    source = src / "cache.sqlite3"
    if not source.exists():
        return
    with sqlite3.connect(source, timeout=60) as a, sqlite3.connect(dest / "cache.sqlite3") as b:
        a.backup(b)
    a.close()
    b.close()
