"""Replacing an output folder as a whole, so readers never see a half-written one, nor none."""
from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import signal
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")

#: Tests stop a swap between its steps with this set to a step's name (see `_step`): the
#: process kills itself there, as a power cut or SIGKILL would.
STOP_ENV = "BOOKKIT_TEST_SWAP_STOP"
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def swap_dir(new: Path, out: Path, keep_old: bool = False) -> None:
    """Put the finished folder `new` in place of `out`; the old tree is removed (`keep_old`:
    left for the caller to remove, under the name `new` or `<out>.old`).

    One atomic exchange of the two names (Linux renameat2 RENAME_EXCHANGE): at every moment
    `out` is the old tree or the new one, complete, so a server, a check or a release reading
    it never finds it missing, and a build killed at any step leaves a whole site. Chosen over
    a symlinked `out` switched by renaming a new link over it (also atomic), because `out`
    stays a plain folder for everything that reads it (tar, copytree, static servers). Where
    the exchange is not available (another OS, a file system without it), two renames, and
    a next swap first puts back an old tree that a kill between them left aside.
    """
    old = out.with_name(out.name + ".old")
    if not out.exists() and old.is_dir():      # a kill between the two renames, last time
        os.rename(old, out)
    if old.exists():
        shutil.rmtree(old)
    _step("before-swap")
    if out.exists() and _exchange(new, out):
        _step("after-swap")
        if not keep_old:
            shutil.rmtree(new, ignore_errors=True)   # the old tree, now under the new one's name
        return
    if out.exists():
        os.rename(out, old)
        _step("between-renames")
    os.rename(new, out)
    if not keep_old:
        shutil.rmtree(old, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap the names `a` and `b` atomically; False if this system cannot."""
    renameat2 = getattr(_libc(), "renameat2", None)
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(a), None, str(b))


_LIBC: list = []


def _libc():
    if not _LIBC:
        try:
            _LIBC.append(ctypes.CDLL(None, use_errno=True))
        except OSError:
            _LIBC.append(None)
    return _LIBC[0]


def _step(name: str) -> None:
    if os.environ.get(STOP_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


# (path, reader) -> (the file's inode, size and mtime, what the reader made of it)
_KEPT: dict[tuple[str, Callable], tuple[tuple[int, int, int], object]] = {}
# Inside `one_look_per_build`: path -> its stamp (None: missing), each file looked at once
_LOOKED: dict[str, tuple[int, int, int] | None] | None = None


def _forget_looks_in_child() -> None:
    # A process forked during a build (a drawing worker kept for later builds, a cell job)
    # is not inside that build: it looks at every file again.
    global _LOOKED
    _LOOKED = None


os.register_at_fork(after_in_child=_forget_looks_in_child)


@contextlib.contextmanager
def one_look_per_build():
    """`with one_look_per_build():` around a build: `kept_while_unchanged` looks at each file
    once (one `stat`) for the whole build instead of at every call. A `--serve` rebuild asked
    about the ~200 figure scripts ~1,500 times (every image and edition, ~15 ms). A file saved
    during the build is seen by the rebuild that its save triggers, as with the cache's
    `FileHasher.new_build`. Outside the block every call looks again (tests and checks that
    change a file between two calls)."""
    global _LOOKED
    outer, _LOOKED = _LOOKED, {}
    try:
        yield
    finally:
        _LOOKED = outer


def rewritten(path: Path) -> None:
    """The build wrote `path`: the next `kept_while_unchanged` of it looks at the file again."""
    if _LOOKED is not None:
        _LOOKED.pop(os.fspath(path), None)


def _stamp(path: str) -> tuple[int, int, int] | None:
    looked = _LOOKED
    if looked is not None and path in looked:
        return looked[path]
    try:
        stat = os.stat(path)
        stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
    except FileNotFoundError:
        stamp = None
    if looked is not None:
        looked[path] = stamp
    return stamp


def kept_while_unchanged(path: Path, read: Callable[[Path], T]) -> T:
    """`read(path)`, the same object again while the file is unchanged (its inode, size and
    modification time). `--serve` rebuilds after every save; this is how it skips re-reading
    and re-parsing the files the save did not touch (figure scripts' `INPUTS`, glossaries,
    figures.yml, and file bytes the tree writer then knows without hashing them again).
    A missing file raises FileNotFoundError; a reader's error is raised and nothing kept."""
    name = os.fspath(path)
    stamp = _stamp(name)
    if stamp is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name)
    key = (name, read)
    known = _KEPT.get(key)
    if known is not None and known[0] == stamp:
        return known[1]
    value = read(Path(path))
    _KEPT[key] = (stamp, value)
    return value


def read_bytes_kept(path: Path) -> bytes:
    """`path.read_bytes()`, the same bytes object while the file is unchanged."""
    return kept_while_unchanged(path, Path.read_bytes)
