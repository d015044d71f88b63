"""The execution cache: keyed on code, imported local modules, data files read and versions."""
import json
from pathlib import Path

import pytest

from bookkit.pipeline.build import BuildOptions, Builder
from bookkit.model import BuildError

PROBE = """
```calc
from calculations import models, formulas
probe_kv = formulas.kv_bytes_per_token(models.get("{model}"))
```
"""


@pytest.fixture
def book(book_copy):
    """Chapters 11 and 12 each gain a cell that reads one model config (the probe)."""
    for file, model in (("11-scheduling-environments.md", "qwen3-32b"), ("12-device-edge-cloud.md", "mixtral-8x7b")):
        path = book_copy / "manuscripts" / file
        path.write_text(path.read_text() + PROBE.format(model=model))
    return book_copy


def build(book: Path, cache: Path, tmp: Path, **kw) -> Builder:
    builder = Builder(BuildOptions(root=book, out=tmp / "site", quiet=True, cache_dir=cache, **kw))
    builder.build()
    return builder


def test_warm_build_executes_nothing(book, warm_cache, tmp_path):
    first = build(book, warm_cache, tmp_path)
    assert first.executed_cells == [11, 12]          # only the chapters this test changed
    second = build(book, warm_cache, tmp_path)
    assert second.executed_cells == [] and second.drawn_figures == []


def test_model_config_edit_reruns_exactly_its_dependents(book, warm_cache, tmp_path):
    first = build(book, warm_cache, tmp_path)
    config = "calculations/data/configs/Qwen--Qwen3-32B.json"
    readers = sorted(n for n, d in first.cell_deps.items() if config in d)
    figure_readers = sorted(n for n, d in first.figure_deps.items() if config in d)
    assert 11 in readers and len(readers) < 13     # the probe reads it; some chapters do not
    path = book / config
    data = json.loads(path.read_text())
    data["num_hidden_layers"] -= 4     # smaller: every chapter's asserts (it fits, ...) still hold
    path.write_text(json.dumps(data, indent=2))
    again = build(book, warm_cache, tmp_path)
    assert again.executed_cells == readers
    assert sorted(again.drawn_figures) == figure_readers
    assert len(figure_readers) < len(first.figure_deps)


def test_one_builder_reuses_its_cells_until_a_file_they_read_changes(book, warm_cache,
                                                                      tmp_path):
    """Under --serve (one Builder), a rebuild with the same original chapters and the same
    files read takes the last cell results as they are; a model config edit reruns exactly
    its readers, and a translation's edit reruns none."""
    builder = Builder(BuildOptions(root=book, out=tmp_path / "site", quiet=True,
                                   cache_dir=warm_cache))
    builder.defer_housekeeping()
    try:
        builder.build()
        loaded = builder.resolver._cells_memo
        assert loaded is not None
        config = "calculations/data/configs/Qwen--Qwen3-32B.json"
        readers = sorted(n for n, d in builder.cell_deps.items() if config in d)
        assert 11 in readers and config in loaded[2]
        chapter = book / "book-en" / "04-accelerators.md"
        chapter.write_text(chapter.read_text(encoding="utf-8") + "\n\nOne more line.\n",
                           encoding="utf-8")
        builder.build()
        assert builder.executed_cells == [] and builder.resolver._cells_memo is loaded
        path = book / config
        data = json.loads(path.read_text())
        data["num_hidden_layers"] -= 4
        path.write_text(json.dumps(data, indent=2))
        builder.build()
        assert builder.executed_cells == readers
        assert builder.resolver._cells_memo is not loaded
    finally:
        builder.close()


def test_data_file_and_local_module_edits_invalidate(book, warm_cache, tmp_path):
    """A data file a cell reads and a local module it imports are dependencies too."""
    (book / "calculations" / "probe_module.py").write_text("FACTOR = 2\n")
    (book / "calculations" / "data" / "probe.json").write_text('{"tokens": 512}\n')
    path = book / "manuscripts" / "10-training-systems.md"
    path.write_text(path.read_text() + """
```calc
import json
from calculations.probe_module import FACTOR
with open("calculations/data/probe.json") as fh:
    probe_tokens = json.load(fh)["tokens"] * FACTOR
```
""")
    first = build(book, warm_cache, tmp_path)
    assert 10 in first.executed_cells
    assert {"calculations/probe_module.py", "calculations/data/probe.json"} <= set(
        first.cell_deps[10])
    assert build(book, warm_cache, tmp_path).executed_cells == []
    (book / "calculations" / "data" / "probe.json").write_text('{"tokens": 1024}\n')
    assert build(book, warm_cache, tmp_path).executed_cells == [10]
    (book / "calculations" / "probe_module.py").write_text("FACTOR = 3\n")
    again = build(book, warm_cache, tmp_path)
    assert again.executed_cells == [10] and again.drawn_figures == []


def test_cell_code_edit_reruns_that_chapter_only(book, warm_cache, tmp_path):
    cell = "\n```calc\nprobe_rate = 1000\nprobe_per_day = probe_rate * 172800\n```\n"
    for edition, text in (("manuscripts", cell + "\n每天 {{ probe_per_day | int }}。\n"),
                          ("book-en", "\nPer day {{ probe_per_day | int }}.\n"),
                          ("book-zh-tw", "\n每天 {{ probe_per_day | int }}。\n")):
        path = book / edition / "08-inference-optimization.md"
        path.write_text(path.read_text() + text)
    build(book, warm_cache, tmp_path)
    path = book / "manuscripts" / "08-inference-optimization.md"
    path.write_text(path.read_text().replace("probe_rate = 1000", "probe_rate = 2000"))
    assert build(book, warm_cache, tmp_path).executed_cells == [8]
    assert "345,600,000" in (tmp_path / "site" / "en" / "inference-optimization.html").read_text()


def test_cell_time_limit(book, warm_cache, tmp_path):
    path = book / "manuscripts" / "09-distributed-inference.md"
    path.write_text(path.read_text() + "\n```calc\nimport time\ntime.sleep(30)\n```\n")
    with pytest.raises(BuildError) as err:
        build(book, warm_cache, tmp_path, cell_timeout=1.0)
    assert "09-distributed-inference.md" in err.value.render() and "stopped after 1 s" in err.value.render()


def test_dependencies_are_recorded_even_if_the_parent_imported_them(tmp_path):
    """A forked job must not inherit `calculations` (and its loaded configs) unrecorded."""
    from bookkit.resolve.cells import execute_cells
    from bookkit.resolve.workers import run_jobs
    from calculations import formulas, models
    formulas.kv_bytes_per_token(models.get("qwen3-8b"))       # parent loads the config first
    root = str(Path(__file__).resolve().parents[2])
    cells = [(1, "from calculations import models\nm = models.get('qwen3-8b')\n")]
    result = run_jobs([("x", execute_cells, (str(tmp_path / "x.md"), cells, root))])["x"]
    assert "calculations/data/configs/Qwen--Qwen3-8B.json" in result.deps
    assert "calculations/models.py" in result.deps


def test_byte_code_caches_are_not_dependencies(tmp_path):
    """A job that imports a byte-compiled local module records its source, never the .pyc (a
    copy of the book has no __pycache__: recording it made every copy miss the cache)."""
    import compileall
    from bookkit.resolve.cells import execute_cells
    from bookkit.resolve.workers import run_jobs
    (tmp_path / "localmod.py").write_text("VALUE = 42\n")
    compileall.compile_dir(str(tmp_path), quiet=1)
    assert list((tmp_path / "__pycache__").glob("localmod.*.pyc"))
    cells = [(1, "import localmod\nv = localmod.VALUE\n")]
    result = run_jobs([("x", execute_cells, (str(tmp_path / "x.md"), cells, str(tmp_path)))])["x"]
    assert result.ok, result.error
    assert "localmod.py" in result.deps
    assert not [d for d in result.deps if "__pycache__" in d], result.deps


def test_a_copy_of_the_book_uses_its_own_calculations(book_copy, tmp_path):
    """The test process imported the repository's `calculations`; a job for a copy of the book
    must import the copy's (and record it), not reuse the parent's."""
    import calculations  # noqa: F401  (the repository's, as a test process would have)
    from bookkit.resolve.cells import execute_cells
    from bookkit.resolve.workers import run_jobs
    (book_copy / "calculations" / "only_in_copy.py").write_text("VALUE = 42\n")
    cells = [(1, "from calculations.only_in_copy import VALUE\nv = VALUE\n")]
    result = run_jobs([("x", execute_cells, (str(tmp_path / "x.md"), cells,
                                             str(book_copy)))])["x"]
    assert result.ok, result.error
    assert result.value["v"].value == 42
    assert "calculations/only_in_copy.py" in result.deps


def test_cache_store_stages_flushes_and_survives_a_corrupt_file(tmp_path):
    from bookkit.util.cache import Cache, copy_cache

    cache = Cache(tmp_path / "c")
    assert cache.get("math", "k") is None
    assert not (tmp_path / "c" / "cache.sqlite3").exists()   # a miss creates nothing
    cache.put("math", "k", "<span>x</span>")
    assert cache.get("math", "k") == "<span>x</span>"        # staged: visible at once
    assert Cache(tmp_path / "c").get("math", "k") is None     # ...but not stored yet
    cache.flush()
    assert Cache(tmp_path / "c").get("math", "k") == "<span>x</span>"
    copy_cache(tmp_path / "c", tmp_path / "copy")
    assert Cache(tmp_path / "copy").get("math", "k") == "<span>x</span>"
    cache.close()

    (tmp_path / "c" / "cache.sqlite3").write_bytes(b"not a database" * 100)
    broken = Cache(tmp_path / "c")
    assert broken.get("math", "k") is None                    # a miss, not a crash
    broken.put("math", "k2", 2)
    broken.flush()                                            # replaces the broken file
    assert Cache(tmp_path / "c").get("math", "k2") == 2


def test_a_new_process_reads_each_chapter_parse_from_the_cache(book_copy, tmp_path, monkeypatch):
    """A chapter parsed once is read back from the cache in a new process (a new Resolver on
    the same cache) with the same tokens; an edit parses that chapter alone again, and its one
    cache entry is replaced, not added to."""
    from bookkit.load.config import load_book
    from bookkit.resolve import book as resolve_book
    from bookkit.source import markdown
    from bookkit.util.cache import Cache

    root = book_copy
    chapters = load_book(root, ["zh"]).original.chapters
    cache_dir = tmp_path / "cache"

    def parse_all() -> tuple[list, list]:
        parsed: list = []
        real = markdown.parse
        monkeypatch.setattr(resolve_book, "parse", lambda text: parsed.append(text) or real(text))
        cache = Cache(cache_dir)
        resolver = resolve_book.Resolver(root, cache, 1, 60.0)
        tokens = [resolver.parsed(c)[1] for c in load_book(root, ["zh"]).original.chapters]
        cache.close()
        return parsed, tokens

    first, tokens_first = parse_all()
    assert len(first) == len(chapters) > 10
    again, tokens_again = parse_all()
    assert again == []                                  # every chapter from the cache
    assert [[t.as_dict() for t in ts] for ts in tokens_again] == [
        [t.as_dict() for t in ts] for ts in tokens_first]
    entries = Cache(cache_dir)._conn().execute(
        "SELECT COUNT(*) FROM entries WHERE kind = 'parsed'").fetchone()[0]
    edited = chapters[3].path
    edited.write_text(edited.read_text(encoding="utf-8") + "\n\nOne more sentence.\n",
                      encoding="utf-8")
    after_edit, tokens_edit = parse_all()
    assert len(after_edit) == 1 and after_edit[0].endswith("One more sentence.\n")
    assert any("One more sentence." in t.content for t in tokens_edit[3])
    assert Cache(cache_dir)._conn().execute(
        "SELECT COUNT(*) FROM entries WHERE kind = 'parsed'").fetchone()[0] == entries
    # a change to the parser's code is a different key: everything is parsed again
    monkeypatch.setattr(resolve_book, "parser_digest", lambda: "another parser")
    changed_parser, _ = parse_all()
    assert len(changed_parser) == len(chapters)


def test_a_first_builds_fork_stores_the_parses_as_the_parser_left_them(book_copy, warm_cache,
                                                                        tmp_path, monkeypatch):
    """A first build leaves the parses of the original and of the forked editions to the
    search indexer's fork: after it, every chapter of every edition is in the cache, as the
    parser returned it (not numbered), and a new process parses nothing."""
    import sqlite3

    from bookkit.load.config import load_book
    from bookkit.resolve import book as resolve_book
    from bookkit.source import markdown
    from bookkit.util.cache import Cache

    with sqlite3.connect(warm_cache / "cache.sqlite3") as db:
        db.execute("DELETE FROM entries WHERE kind = 'parsed'")
    db.close()
    builder = Builder(BuildOptions(root=book_copy, out=tmp_path / "site", quiet=True,
                                   cache_dir=warm_cache, workers=2))
    builder.build()
    assert builder.resolver.parses_stored_by_fork == frozenset()
    book = load_book(book_copy, None)
    chapters = [c for e in book.editions.values() for c in e.chapters]
    assert len(book.editions) == 3 and len(chapters) > 30
    parsed: list = []
    real = markdown.parse
    monkeypatch.setattr(resolve_book, "parse", lambda text: parsed.append(text) or real(text))
    resolver = resolve_book.Resolver(book_copy, Cache(warm_cache), 1, 60.0)
    for chapter in chapters:
        _digest, tokens, env = resolver.parsed(chapter)
        fresh_tokens, _env = real(chapter.text)
        assert [t.as_dict() for t in tokens] == [t.as_dict() for t in fresh_tokens], \
            chapter.path
    assert parsed == []


def test_a_saved_diagram_re_renders_only_the_chapters_that_show_it(book_copy, warm_cache,
                                                                     tmp_path, monkeypatch):
    """Under --serve (one Builder), saving a diagram script redraws it and re-renders the one
    chapter per edition that shows it, with its new text alternative; the other chapters'
    HTML comes from memory."""
    from bookkit.render.site import renderer
    builder = Builder(BuildOptions(root=book_copy, out=tmp_path / "site", quiet=True,
                                   cache_dir=warm_cache))
    builder.build()
    rendered = []
    real = renderer.render_chapter
    monkeypatch.setattr(renderer, "render_chapter",
                        lambda tokens, env, ctx: rendered.append(ctx.chapter.path.name)
                        or real(tokens, env, ctx))
    script = book_copy / "manuscripts" / "figures" / "ch07_ring_allreduce.py"
    script.write_text(script.read_text(encoding="utf-8") + (
        "\n_describe_before = describe\n\n\ndef describe(t):\n"
        "    return _describe_before(t) + ' MARK-7431'\n"), encoding="utf-8")
    builder.build()
    assert sorted(builder.resolver.drawn_figures) == [
        f"fig-datacenter-networks-ring-steps|{lang}" for lang in ("en", "zh-Hans", "zh-Hant")]
    assert rendered == ["07-datacenter-networks.md"] * 3
    for page in ("datacenter-networks.html", "en/datacenter-networks.html",
                 "zh-tw/datacenter-networks.html"):
        assert "MARK-7431" in (tmp_path / "site" / page).read_text(encoding="utf-8"), page


def test_a_saved_diagram_is_drawn_first_for_the_open_pages_edition(book_copy, warm_cache,
                                                                      tmp_path):
    """Under --serve, a saved diagram script is drawn first in the language of the page open
    in a browser: that build draws one image, publishes the page with the new drawing, and
    leaves the other editions' images as they were (their pages untouched); the next build
    draws those two, and changes nothing of the open page."""
    builder = Builder(BuildOptions(root=book_copy, out=tmp_path / "site", quiet=True,
                                   cache_dir=warm_cache))
    builder.build()
    site = tmp_path / "site"
    pages = {"zh-Hans": "datacenter-networks.html", "en": "en/datacenter-networks.html",
             "zh-Hant": "zh-tw/datacenter-networks.html"}
    image = "fig-datacenter-networks-ring-steps"
    before = {lang: (site / page).read_bytes() for lang, page in pages.items()}
    script = book_copy / "manuscripts" / "figures" / "ch07_ring_allreduce.py"
    script.write_text(script.read_text(encoding="utf-8") + (
        "\n_describe_before, _draw_before = describe, draw\n\n\ndef describe(t):\n"
        "    return _describe_before(t) + ' MARK-5120'\n\n\ndef draw(fig, t):\n"
        "    _draw_before(fig, t)\n    fig.text(0.01, 0.01, 'MARK-5120', fontsize=6)\n"),
        encoding="utf-8")

    report = builder.build(open_pages=["/en/datacenter-networks.html"])
    assert builder.resolver.drawn_figures == [f"{image}|en"]
    assert report.figures_deferred == 2
    assert sorted(builder.resolver.deferred_figures) == [f"{image}|zh-Hans", f"{image}|zh-Hant"]
    assert "MARK-5120" in (site / pages["en"]).read_text(encoding="utf-8")
    for lang in ("zh-Hans", "zh-Hant"):
        assert (site / pages[lang]).read_bytes() == before[lang], lang
    assert pages["en"] in report.changed_paths and f"en/figures/{image}.en.svg" in report.changed_paths
    assert not any(p in report.changed_paths for p in (pages["zh-Hans"], pages["zh-Hant"]))

    report = builder.build()
    assert sorted(builder.resolver.drawn_figures) == [f"{image}|zh-Hans", f"{image}|zh-Hant"]
    assert report.figures_deferred == 0
    for lang, page in pages.items():
        assert "MARK-5120" in (site / page).read_text(encoding="utf-8"), lang
    assert pages["zh-Hant"] in report.changed_paths
    assert not any(p.startswith("en/") for p in report.changed_paths)


def test_under_serve_a_saved_diagram_is_drawn_while_the_book_is_loaded(book_copy, warm_cache,
                                                                       tmp_path, monkeypatch):
    """`--serve` (`defer_housekeeping`): a saved diagram script starts drawing for the open
    page's language before the build runs the cells (`EarlyDrawing`), and the figure stage
    takes that drawing instead of drawing again; the page shows it, written into the served
    tree in place; the other editions follow in the next build; the script restored is not
    drawn at all (its first drawing is in the cache)."""
    from bookkit.resolve import workers
    builder = Builder(BuildOptions(root=book_copy, out=tmp_path / "site", quiet=True,
                                   cache_dir=warm_cache))
    builder.defer_housekeeping()
    site, image = tmp_path / "site", "fig-datacenter-networks-ring-steps"
    page = site / "en" / "datacenter-networks.html"
    try:
        builder.build()
        events, drawn_by_pool = [], []
        start_early, run_pool, run_cells = (workers.KeptWorkers.start_early, workers.run_pool,
                                            builder.resolver.run_cells)
        monkeypatch.setattr(workers.KeptWorkers, "start_early", lambda self, items, *a, **k: (
            events.append(("early", [name for name, _ in items]))
            or start_early(self, items, *a, **k)))
        monkeypatch.setattr(builder.resolver, "run_cells",
                            lambda book: events.append(("cells",)) or run_cells(book))

        def counting_pool(items, *a, **k):
            results = run_pool(items, *a, **k)
            drawn_by_pool.append(sorted(results))
            return results
        from bookkit.resolve import figures
        monkeypatch.setattr(figures, "run_pool", counting_pool)
        script = book_copy / "manuscripts" / "figures" / "ch07_ring_allreduce.py"
        original = script.read_text(encoding="utf-8")
        script.write_text(original + (
            "\n_describe_before = describe\n\n\ndef describe(t):\n"
            "    return _describe_before(t) + ' MARK-6604'\n"), encoding="utf-8")
        inode = site.stat().st_ino
        report = builder.build(open_pages=["/en/datacenter-networks.html"])
        assert events == [("early", [f"{image}|en"]), ("cells",)]
        assert builder.resolver.drawn_figures == [f"{image}|en"]
        assert drawn_by_pool == [[f"{image}|en"]]       # the early drawing, handed over
        assert report.figures_deferred == 2
        assert "MARK-6604" in page.read_text(encoding="utf-8")
        assert site.stat().st_ino == inode                 # written into the served tree

        events.clear()
        builder.build(behind=True)                          # the other editions: not early
        assert events == [("cells",)]
        assert "MARK-6604" in (site / "zh-tw" / "datacenter-networks.html").read_text(
            encoding="utf-8")

        events.clear()
        script.write_text(original, encoding="utf-8")
        builder.build(open_pages=["/en/datacenter-networks.html"])
        assert events == [("early", []), ("cells",)]
        assert builder.resolver.drawn_figures == []
        assert "MARK-6604" not in page.read_text(encoding="utf-8")
    finally:
        builder.close()


def test_under_serve_a_warm_first_build_still_leaves_warm_drawing_workers(book_copy,
                                                                         warm_cache, tmp_path):
    """A `--serve` whose first build drew nothing (every image cached) starts its drawing
    processes after it, each drawing one figure of another language (`warm_up_workers`);
    once is enough; the next saved figure is drawn and shown as usual."""
    builder = Builder(BuildOptions(root=book_copy, out=tmp_path / "site", quiet=True,
                                   cache_dir=warm_cache))
    builder.defer_housekeeping()
    try:
        builder.build()
        assert builder.resolver.drawn_figures == [] and builder.resolver.kept_workers.slots == []
        started = builder.warm_up_workers()
        assert len(started) == 2 and len({name.split("|")[1] for name in started}) == 2
        assert len(builder.resolver.kept_workers.slots) == 2
        assert builder.warm_up_workers() == []
        import time
        deadline = time.monotonic() + 60        # the warm-up drawings done: workers idle
        while not all(s["conn"].poll() for s in builder.resolver.kept_workers.slots):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        script = book_copy / "manuscripts" / "figures" / "ch07_ring_allreduce.py"
        script.write_text(script.read_text(encoding="utf-8") + (
            "\n_describe_before = describe\n\n\ndef describe(t):\n"
            "    return _describe_before(t) + ' MARK-3391'\n"), encoding="utf-8")
        started = builder.resolver.start_early_drawing(["en"])
        assert started == ["fig-datacenter-networks-ring-steps|en"]   # on a warmed worker
        builder.build(open_pages=["/en/datacenter-networks.html"])
        assert builder.resolver.drawn_figures == ["fig-datacenter-networks-ring-steps|en"]
        assert "MARK-3391" in (tmp_path / "site" / "en" / "datacenter-networks.html").read_text(
            encoding="utf-8")
        assert len(builder.resolver.kept_workers.slots) == 2
    finally:
        builder.close()


def test_an_open_page_belongs_to_the_edition_of_the_longest_url_prefix(book_copy):
    from bookkit.pipeline.build import languages_later, resolve_book
    resolved = resolve_book(book_copy)
    assert languages_later(resolved, []) == frozenset()
    assert languages_later(resolved, ["/en/accelerators.html"]) == {"zh-Hans", "zh-Hant"}
    assert languages_later(resolved, ["/zh-tw/"]) == {"zh-Hans", "en"}
    assert languages_later(resolved, ["/", "/accelerators.html"]) == {"en", "zh-Hant"}
    assert languages_later(resolved, ["/en/", "/zh-tw/x.html"]) == {"zh-Hans"}


def test_an_undone_figure_edit_brings_the_first_drawing_back(book_copy, warm_cache, tmp_path):
    """Under --serve (one Builder): a figure script edited and then restored shows the first
    drawing again, though the process remembers that drawing and the edited one was written
    over its files in between."""
    builder = Builder(BuildOptions(root=book_copy, out=tmp_path / "site", quiet=True,
                                   cache_dir=warm_cache))
    image = tmp_path / "site" / "en" / "figures" / "fig-datacenter-networks-ring-steps.en.svg"
    builder.build()
    first = image.read_bytes()
    script = book_copy / "manuscripts" / "figures" / "ch07_ring_allreduce.py"
    original = script.read_text(encoding="utf-8")
    script.write_text(original.replace("N = 8 ", "N = 6 "), encoding="utf-8")
    builder.build()
    assert image.read_bytes() != first
    script.write_text(original, encoding="utf-8")
    builder.build()
    assert builder.resolver.drawn_figures == []        # from the cache, not drawn again
    assert image.read_bytes() == first


def test_under_serve_an_edited_chapter_s_parse_is_stored_when_idle(book_copy, tmp_path,
                                                                   monkeypatch):
    """`defer_housekeeping` (what `--serve` sets): a chapter parsed again after an edit is not
    pickled into the cache during the rebuild; `idle` stores it, as the parser left it (not
    numbered), and a new process then reads it instead of parsing."""
    from bookkit.load.config import load_book
    from bookkit.pipeline.build import BuildOptions, Builder
    from bookkit.resolve import book as resolve_book
    from bookkit.source import markdown
    from bookkit.util.cache import Cache

    parsed: list = []
    real = markdown.parse
    monkeypatch.setattr(resolve_book, "parse", lambda text: parsed.append(text) or real(text))
    builder = Builder(BuildOptions(root=book_copy, out=tmp_path / "site", quiet=True,
                                   cache_dir=tmp_path / "cache", editions=["zh"]))
    builder.defer_housekeeping()
    chapter = load_book(book_copy, ["zh"]).original.chapters[3]
    builder.resolver.parsed(chapter)
    edited = chapter.path
    edited.write_text(edited.read_text(encoding="utf-8") + "\n\n## 新的一节\n\n多一句。\n",
                      encoding="utf-8")
    chapter = load_book(book_copy, ["zh"]).original.chapters[3]
    staged = dict(builder.cache._staged)
    tokens = builder.resolver.parsed(chapter)[1]
    assert parsed[-1].endswith("多一句。\n")
    assert builder.cache._staged == staged                       # nothing pickled for it yet
    resolve_book.number_chapter(chapter, tokens, {})            # the memo's tokens get numbers
    builder.idle()
    assert builder.resolver._unstored == {}
    parsed.clear()
    fresh = resolve_book.Resolver(book_copy, Cache(tmp_path / "cache"), 1, 60.0)
    again = fresh.parsed(chapter)[1]
    assert parsed == []                                          # read from the cache
    assert [t.as_dict() for t in again] == [t.as_dict() for t in real(chapter.text)[0]]


def test_a_serve_build_leaves_its_heap_out_of_collections_until_idle(book_copy, warm_cache,
                                                                        tmp_path, monkeypatch):
    """Under --serve each build ends with what exists frozen (the cycle collector no longer
    walks the parsed book during rebuilds); idle after SETTLE_AFTER_S, the builder thaws,
    collects (a cycle made before is freed) and freezes again. `make site` freezes nothing."""
    import gc
    import weakref

    from bookkit.pipeline import build as build_module

    class Node:
        pass

    builder = Builder(BuildOptions(root=book_copy, out=tmp_path / "site", quiet=True,
                                   cache_dir=warm_cache))
    try:
        builder.build()
        assert gc.get_freeze_count() == 0        # not a long-lived builder
        builder.defer_housekeeping()
        builder.build()
        assert gc.get_freeze_count() > 100_000
        # a cycle left unreachable just before a build froze the heap
        cycle = Node()
        cycle.me = cycle
        gone = weakref.ref(cycle)
        del cycle
        gc.freeze()
        gc.collect()
        assert gone() is not None                # frozen: the collector leaves it
        builder.idle()                           # too soon after the build: still frozen
        assert gone() is not None
        monkeypatch.setattr(build_module, "SETTLE_AFTER_S", 0.0)
        builder.idle()
        assert gone() is None and gc.get_freeze_count() > 100_000
        builder.close()
        assert gc.get_freeze_count() == 0        # a builder that stops thaws what it froze
    finally:
        builder.close()
        gc.unfreeze()
