"""Issue 27, lesser: the site swap has no moment without `build/site`, and a build killed between
its steps (the env hook `BOOKKIT_TEST_SWAP_STOP` makes it SIGKILL itself there) leaves a whole
site, the old one or the new one."""
import os
import signal
import subprocess
import sys
import json
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


def test_under_serve_a_few_changed_files_are_replaced_in_the_served_tree(tmp_path):
    """`TreeWriter.update_in_place` (`--serve`): a write that changes a few files replaces just
    those in the served tree (no new tree: its directory stays), each by a rename, so a
    reader never finds a page missing or half written; a file also linked from the kept old
    tree keeps its old bytes there; a removed file goes; many changes get a new tree again."""
    from bookkit.pipeline.write import IN_PLACE_MAX, MANIFEST, TreeWriter
    out = tmp_path / "site"
    writer = TreeWriter(out)
    writer.defer_cleanup = writer.update_in_place = True
    pages = {f"p{i}.html": b"page %d" % i for i in range(IN_PLACE_MAX + 1)}
    writer.write({"index.html": b"0" * 4096, "a/q.html": b"q", **pages})
    writer.write({"index.html": b"1" * 4096, "a/q.html": b"q",
                  **{k: v + b"!" for k, v in pages.items()}})      # many: a new tree
    kept = next(tmp_path / name for name in ("site.new", "site.old")
                if (tmp_path / name).is_dir())        # the replaced tree, under either name
    assert (kept / "a" / "q.html").stat().st_ino == (out / "a" / "q.html").stat().st_ino
    inode = out.stat().st_ino
    seen, done = set(), threading.Event()

    def reader():
        while not done.is_set():
            try:
                seen.add(len((out / "index.html").read_bytes()))
            except FileNotFoundError:
                seen.add("missing")

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for n in range(2, 60):
            changed, written = writer.write({"index.html": b"%d" % (n % 10) * 4096,
                                             "a/q.html": b"q2",
                                             **{k: v + b"!" for k, v in pages.items()}})
            assert changed and written == (2 if n == 2 else 1)
    finally:
        done.set()
        thread.join()
    assert seen == {4096} and out.stat().st_ino == inode
    assert (kept / "a" / "q.html").read_bytes() == b"q"      # the kept tree's copy
    assert (out / "a" / "q.html").read_bytes() == b"q2"
    writer.write({"index.html": b"x", "b/r.html": b"r",
                  **{k: v + b"!" for k, v in pages.items()}})
    assert not (out / "a" / "q.html").exists() and (out / "b" / "r.html").read_bytes() == b"r"
    assert out.stat().st_ino == inode and writer.changed_paths == ["a/q.html", "b/r.html",
                                                                  "index.html"]
    assert sorted(json.loads((out / MANIFEST).read_text())) == sorted(
        ["index.html", "b/r.html", *pages])
    assert not [p for p in out.rglob(".*.tmp")]
    writer.write({"index.html": b"y", "b/r.html": b"r", **pages})   # many again: a new tree
    assert out.stat().st_ino != inode and (out / "p0.html").read_bytes() == b"page 0"
