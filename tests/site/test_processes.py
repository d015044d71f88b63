"""Nothing outlives a killed build: forked workers, the search indexer and KaTeX's Node process
all end with it, whether it is stopped by SIGTERM (a CI timeout, a service manager) or SIGKILL
(the OOM killer), and a stopped build leaves the previous site as it was."""
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import SHARED_CACHE, copy_book

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _processes() -> dict[int, tuple[int, str]]:
    """{pid: (parent pid, command line)} of every live process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] == "Z":     # a zombie holds nothing; its parent reaps it
            continue
        found[int(entry.name)] = (int(fields[1]), cmdline)
    return found


def _children(pid: int) -> list[str]:
    return [cmd for ppid, cmd in _processes().values() if ppid == pid]


def _leftovers(marker: str, timeout: float = 10.0) -> list[str]:
    """Processes whose command line names the book copy, once they had `timeout` s to exit.
    Forked workers carry their parent's command line; Node carries the copy's script path."""
    deadline = time.monotonic() + timeout
    while True:
        left = [f"{pid}: {cmd}" for pid, (_, cmd) in _processes().items() if marker in cmd]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def _book_with_cache(tmp_path: Path, drop_kinds: tuple[str, ...] | None) -> Path:
    """A copy of the book whose cache lacks `drop_kinds` (None: no cache at all), so that the
    build spends its first seconds in the stage that those kinds skip."""
    book = copy_book(tmp_path / "book")
    if drop_kinds is not None:
        from bookkit.util.cache import copy_cache
        cache = book / ".cache" / "bookkit"
        copy_cache(SHARED_CACHE, cache)
        with sqlite3.connect(cache / "cache.sqlite3") as db:
            db.executemany("DELETE FROM entries WHERE kind = ?", [(k,) for k in drop_kinds])
        db.close()
    return book


def _wait_for_children(pid: int, want, what: str, timeout: float = 120.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        children = _children(pid)
        if want(children):
            return children
        time.sleep(0.02)
    pytest.fail(f"the build never reached the moment to stop it: {what}")


def _python_workers(children):
    return [c for c in children if "build_site.py" in c]


def _node(children):
    return [c for c in children if "katex_render.js" in c]


# (what the cache lacks, the moment to stop the build, the signal)
MOMENTS = [
    (None, "cells running in forked workers", lambda c: _python_workers(c), signal.SIGTERM),
    (None, "cells running in forked workers", lambda c: _python_workers(c), signal.SIGKILL),
    (("figures", "math", "search"), "two figure workers",
     lambda c: len(_python_workers(c)) >= 2, signal.SIGTERM),
    (("math", "search"), "the search indexer and KaTeX's Node",
     lambda c: _python_workers(c) and _node(c), signal.SIGTERM),
    (("math", "search"), "the search indexer and KaTeX's Node",
     lambda c: _python_workers(c) and _node(c), signal.SIGKILL),
]


@pytest.mark.parametrize("drop, moment, want, sig", MOMENTS,
                         ids=[f"{m[3].name}-{m[1].split()[0]}-{i}" for i, m in enumerate(MOMENTS)])
def test_a_killed_build_leaves_no_process_and_the_previous_site(tmp_path, built_site,
                                                                drop, moment, want, sig):
    book = _book_with_cache(tmp_path, drop)
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("the previous site\n")
    proc = subprocess.Popen([sys.executable, str(book / "scripts" / "build_site.py"),
                             "--out", str(out), "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        children = _wait_for_children(proc.pid, want, moment)
        proc.send_signal(sig)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(f"{sig.name} did not stop the build within 30 s")
        assert proc.returncode != 0
        if sig == signal.SIGTERM:
            assert proc.returncode == 128 + signal.SIGTERM, err.decode()[-2000:]
        assert children, "nothing was running when the build was stopped"
        left = _leftovers(str(book))
        assert not left, f"after {sig.name} during {moment}, still running:\n" + "\n".join(left)
        assert (out / "index.html").read_text() == "the previous site\n"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_sigterm_stops_serve_cleanly(tmp_path, built_site):
    book = _book_with_cache(tmp_path, ())
    proc = subprocess.Popen([sys.executable, str(book / "scripts" / "build_site.py"), "--serve",
                             "--port", str(_free_port()), "--out", str(tmp_path / "site")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        for line in proc.stderr:
            if line.startswith("serving http://") or time.monotonic() > deadline:
                break
        assert proc.poll() is None, "the preview server stopped by itself"
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pytest.fail("SIGTERM did not stop --serve within 15 s")
        assert proc.returncode == 0
        assert not _leftovers(str(book))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
