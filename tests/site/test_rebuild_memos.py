"""What a `--serve` builder keeps in memory from one build to the next (the llms.txt texts, the
search index keys, the figure tasks, the configs and chapter texts, the files looked at once
per build) follows every kind of edit: each edit below shows in exactly the outputs it
should, and undoing it brings the first bytes back."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from bookkit.pipeline.build import BuildOptions, Builder
from bookkit.util import fsutil


def _read(site: Path, name: str) -> bytes:
    return (site / name).read_bytes()


def _search_files(site: Path, prefix: str) -> dict[str, bytes]:
    folder = site / prefix if prefix else site
    return {p.name: p.read_bytes() for p in folder.glob("search-index*")}


def test_a_serve_builder_shows_each_edit_in_every_output_it_reaches(book_copy, warm_cache,
                                                                    tmp_path):
    site = tmp_path / "site"
    builder = Builder(BuildOptions(root=book_copy, out=site, quiet=True, cache_dir=warm_cache))
    builder.defer_housekeeping()
    chapter = book_copy / "book-en" / "04-accelerators.md"
    words = book_copy / "book-en" / "figures.yml"
    edition = book_copy / "book-en" / "edition.yml"
    script = book_copy / "manuscripts" / "figures" / "ch07_ring_allreduce.py"
    texts = {p: p.read_text(encoding="utf-8") for p in (chapter, words, edition, script)}
    watched = ("en/accelerators.html.md", "en/llms-full.txt", "accelerators.html.md",
               "zh-tw/llms-full.txt", "en/llms.txt")
    try:
        builder.build()
        first = {name: _read(site, name) for name in watched}
        first_search = {p: _search_files(site, p) for p in ("", "en", "zh-tw")}
        assert first_search["en"], "no search index files found"

        # a paragraph of the English chapter: its plain text, the whole edition's, the English
        # search index; no other edition's file
        paragraph = texts[chapter].index("\n\n", len(texts[chapter]) // 2)
        chapter.write_text(texts[chapter][:paragraph] + " Quokkamemo seventeen."
                           + texts[chapter][paragraph:], encoding="utf-8")
        builder.build()
        for name in ("en/accelerators.html.md", "en/llms-full.txt"):
            assert b"Quokkamemo seventeen." in _read(site, name), name
        for name in ("accelerators.html.md", "zh-tw/llms-full.txt", "en/llms.txt"):
            assert _read(site, name) == first[name], name
        search = {p: _search_files(site, p) for p in ("", "en", "zh-tw")}
        assert any(b"quokkamemo" in data.lower() for data in search["en"].values())
        assert search[""] == first_search[""] and search["zh-tw"] == first_search["zh-tw"]

        # undone: the first bytes again, from memory or the cache
        chapter.write_text(texts[chapter], encoding="utf-8")
        builder.build()
        assert {name: _read(site, name) for name in watched} == first
        assert _search_files(site, "en") == first_search["en"]

        # the edition's own words: the title in llms.txt (edition.yml, read once per text)
        edition.write_text(texts[edition].replace(
            "title:", "title: Memo", 1), encoding="utf-8")
        builder.build()
        assert _read(site, "en/llms.txt").startswith(b"# Memo")
        edition.write_text(texts[edition], encoding="utf-8")
        builder.build()
        assert _read(site, "en/llms.txt") == first["en/llms.txt"]

        # a figure's words (figures.yml): the figure tasks are made again with the new table,
        # the image redrawn with the new word, its text alternative in the chapter's text
        words.write_text(texts[words].replace(
            "  alt: 'Ring all-reduce over {n} GPUs:", "  alt: 'Wombatmemo ring over {n} GPUs:",
            1), encoding="utf-8")
        builder.build()
        assert "fig-datacenter-networks-ring-steps|en" in builder.resolver.drawn_figures
        assert b"Wombatmemo ring" in _read(site, "en/datacenter-networks.html.md")
        assert b"Wombatmemo ring" in _read(site, "en/datacenter-networks.html")
        words.write_text(texts[words], encoding="utf-8")
        builder.build()
        assert b"Wombatmemo" not in _read(site, "en/datacenter-networks.html.md")

        # a script that starts reading a value of its chapter (INPUTS): its tasks carry it,
        # and no longer once the line is gone
        def ring_inputs():
            return [t.inputs for t in builder.resolver.figure_tasks(_resolved(builder))
                    if t.script == script and t.lang == "en"]
        assert ring_inputs() == [None]
        script.write_text(texts[script] + '\nINPUTS = ("gpus_per_node",)\n', encoding="utf-8")
        builder.build()
        assert [sorted(i) for i in ring_inputs()] == [["gpus_per_node"]]
        script.write_text(texts[script], encoding="utf-8")
        builder.build()
        assert ring_inputs() == [None]
    finally:
        for path, text in texts.items():
            path.write_text(text, encoding="utf-8")
        builder.close()


def _resolved(builder: Builder):
    """The book resolved by `builder`'s resolver, without drawing (for its figure tasks)."""
    from bookkit.load.config import load_book
    book = load_book(builder.root)
    cells = builder.resolver.run_cells(book)
    resolved = builder.resolver.start(book, cells)
    for key in book.editions:
        resolved.editions[key] = builder.resolver.number_edition(book, key, cells)
    return resolved


def test_inside_a_build_each_file_is_looked_at_once_and_a_rewritten_one_again(tmp_path,
                                                                             monkeypatch):
    path = tmp_path / "a.txt"
    path.write_text("one", encoding="utf-8")
    stats = []
    real_stat = os.stat
    monkeypatch.setattr(fsutil.os, "stat", lambda p, *a, **k: stats.append(p)
                        or real_stat(p, *a, **k))

    def read(p: Path) -> str:
        return p.read_text(encoding="utf-8")

    # outside a build: every call looks, and sees a change at once
    assert fsutil.kept_while_unchanged(path, read) == "one"
    path.write_text("two!", encoding="utf-8")
    assert fsutil.kept_while_unchanged(path, read) == "two!"
    assert len(stats) == 2
    with fsutil.one_look_per_build():
        stats.clear()
        for _ in range(5):
            assert fsutil.kept_while_unchanged(path, read) == "two!"
        assert len(stats) == 1
        path.write_text("three", encoding="utf-8")        # not seen until the next build...
        assert fsutil.kept_while_unchanged(path, read) == "two!"
        fsutil.rewritten(path)                           # ...unless the build wrote it
        assert fsutil.kept_while_unchanged(path, read) == "three"
        missing = tmp_path / "missing.txt"
        for _ in range(2):
            with pytest.raises(FileNotFoundError):
                fsutil.kept_while_unchanged(missing, read)
    path.write_text("four!", encoding="utf-8")
    assert fsutil.kept_while_unchanged(path, read) == "four!"
    # a process forked inside a build (a kept drawing worker) looks again at every call
    with fsutil.one_look_per_build():
        assert fsutil.kept_while_unchanged(path, read) == "four!"
        read_end, write_end = os.pipe()
        child = os.fork()
        if child == 0:      # the child: sees a change made after the build looked
            os.close(read_end)
            path.write_text("five!", encoding="utf-8")
            os.write(write_end, fsutil.kept_while_unchanged(path, read).encode())
            os._exit(0)
        os.close(write_end)
        os.waitpid(child, 0)
        with os.fdopen(read_end, "rb") as seen:
            assert seen.read() == b"five!"
