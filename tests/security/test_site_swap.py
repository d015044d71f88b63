"""Issue 27, lesser: the site swap has no moment without `build/site`, and a build killed between
its steps (the env hook `BOOKKIT_TEST_SWAP_STOP` makes it SIGKILL itself there) leaves a whole
site, the old one or the new one."""
import os
import signal
import subprocess
import sys
import threading

import pytest

from bookkit.util import fsutil
from conftest import ROOT, TRANSLATION, build_site


@pytest.mark.parametrize("step, expect", [("before-swap", "old"), ("after-swap", "new")])
def test_a_build_killed_between_the_steps_leaves_a_whole_site(attacked, step, expect):
    root = attacked(translation=TRANSLATION.replace("The text has", "The new text has"))
    res = subprocess.run([str(ROOT / ".venv/bin/python"), "scripts/build_site.py", "--quiet"],
                         cwd=root, capture_output=True, text=True,
                         env={**os.environ, fsutil.STOP_ENV: step})
    assert res.returncode == -signal.SIGKILL
    page = (root / "build" / "site" / "en" / "x.html").read_text(encoding="utf-8")
    assert ("The new text has" in page) == (expect == "new")
    assert (root / "build" / "site" / "index.html").is_file()
    assert build_site(root).returncode == 0          # the next build finishes the job
    assert "The new text has" in (root / "build/site/en/x.html").read_text(encoding="utf-8")
    assert sorted(p.name for p in (root / "build").iterdir() if p.name.startswith("site")) \
        == ["site"]


def _tree(path, text):
    path.mkdir()
    (path / "index.html").write_text(text)
    for i in range(20):
        (path / f"p{i}.html").write_text(text)


def test_no_moment_without_a_site(tmp_path):
    """A reader polling the site while it is replaced 300 times never finds it missing."""
    out = tmp_path / "site"
    _tree(out, "0")
    missing, done = [], threading.Event()

    def reader():
        while not done.is_set():
            if not (out / "index.html").is_file():
                missing.append(1)

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for n in range(1, 301):
            new = tmp_path / "site.new"
            _tree(new, str(n))
            fsutil.swap_dir(new, out)
    finally:
        done.set()
        thread.join()
    assert missing == []
    assert (out / "index.html").read_text() == "300" and not (tmp_path / "site.new").exists()


def test_without_the_exchange_a_kill_between_the_renames_is_repaired(tmp_path):
    """The fallback (no renameat2): killed between its two renames, the next swap puts the old
    tree back first, then swaps in the new one."""
    out, new = tmp_path / "site", tmp_path / "site.new"
    _tree(out, "old")
    _tree(new, "new")
    script = ("import sys; from pathlib import Path; from bookkit.util import fsutil\n"
              "fsutil._exchange = lambda a, b: False\n"
              f"fsutil.swap_dir(Path({str(new)!r}), Path({str(out)!r}))\n")
    res = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                         env={**os.environ, fsutil.STOP_ENV: "between-renames"})
    assert res.returncode == -signal.SIGKILL
    assert not out.exists() and (tmp_path / "site.old" / "index.html").read_text() == "old"
    _tree(tmp_path / "next", "next")
    fsutil.swap_dir(tmp_path / "next", out)
    assert (out / "index.html").read_text() == "next"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site", "site.new"]


@pytest.mark.parametrize("exchange", [True, False])
def test_a_deferred_cleanup_keeps_the_new_site_whole_and_tidy_removes_the_old(
        tmp_path, monkeypatch, exchange):
    """`--serve` leaves the replaced tree for later (`TreeWriter.defer_cleanup`): the site is
    the new one at once, the next write still works with the old tree lying there, and `tidy`
    leaves nothing but the site; with or without the atomic exchange."""
    from bookkit.pipeline.write import TreeWriter
    if not exchange:
        monkeypatch.setattr(fsutil, "_exchange", lambda a, b: False)
    out = tmp_path / "site"
    writer = TreeWriter(out)
    writer.defer_cleanup = True
    writer.write({"index.html": b"one", "a/p.html": b"page"})
    writer.write({"index.html": b"two", "a/p.html": b"page"})
    assert (out / "index.html").read_bytes() == b"two"
    assert sorted(p.name for p in tmp_path.iterdir()) != ["site"]   # the old tree, kept
    writer.write({"index.html": b"three", "a/p.html": b"page"})    # over a kept old tree
    assert (out / "index.html").read_bytes() == b"three"
    assert (out / "a/p.html").read_bytes() == b"page"
    writer.tidy()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    assert (out / "index.html").read_bytes() == b"three"
