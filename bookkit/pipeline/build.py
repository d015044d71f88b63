"""The pipeline: load -> resolve (cells, numbering, figures) -> render (site, math, search) -> write.

Each stage is its own piece: `bookkit.resolve.book.Resolver` (parsed chapters, cells, figures),
the site outputs of the registry `bookkit.render.outputs` (the pages, the search indexes,
`llms.txt`, ...), `bookkit.pipeline.write.TreeWriter` (the atomic write). Each keeps what it made in
memory, so `--serve` rebuilds only what changed; the content-addressed cache on disk
(`.cache/`) makes a cold process skip cells, figures and formulas that have not changed.
`Builder` decides only the order, and what runs beside what on the two cores: the pages and
the search indexes overlap with KaTeX and each other, every other site output runs after them.

`resolve_book` is the load and resolve stages alone, for the exports and the checks.
"""
from __future__ import annotations

import gc
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Collection

from bookkit.util.cache import Cache
from bookkit.load.gitinfo import source_commit
from bookkit.source.links import repo_settings
from bookkit.load.config import load_book, read_book_config, untranslated_warnings
from bookkit.model import Book, BuildError, CellResults, Edition, EditionInfo, ResolvedBook
from bookkit.render.site import katex as mathrender
from bookkit.render import outputs as registry
from bookkit.lunr.index import build_search_assets
from bookkit.render.search.documents import SearchJob
from bookkit.render.site.pages import SiteConfig
from bookkit.locale.text import forget_values_digests
from bookkit.render.site.renderer import formulas
from bookkit.resolve.book import Resolver, output_editions
from bookkit.source.typed_numbers import typed_numbers, warning_text
from bookkit.resolve.workers import Background, JobResult
from bookkit.pipeline.write import TreeWriter
from bookkit.util.fsutil import one_look_per_build


@dataclass
class BuildOptions:
    root: Path
    out: Path
    editions: list[str] | None = None
    use_cache: bool = True
    workers: int = 2
    cell_timeout: float = 60.0
    quiet: bool = False
    cache_dir: Path | None = None     # default: <root>/.cache/bookkit
    strict: bool = False              # an untranslated chapter is an error, not a warning


@dataclass
class BuildReport:
    pages: int = 0
    files_written: int = 0
    cells_executed: int = 0
    figures_drawn: int = 0
    figures_deferred: int = 0         # images left with their last drawing (`build(open_pages=)`)
    seconds: float = 0.0
    changed: bool = True
    changed_paths: list[str] = field(default_factory=list)   # site files added, changed, removed
    timings: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)   # `file:line: …`, printed by the CLI


class Builder:
    def __init__(self, options: BuildOptions) -> None:
        self.opt = options
        self.root = options.root.resolve()
        self.cache = Cache(options.cache_dir or self.root / ".cache" / "bookkit",
                           enabled=options.use_cache, base=self.root)
        self.resolver = Resolver(self.root, self.cache, options.workers, options.cell_timeout,
                                 log=self.log)
        # Every output the registry writes into the site tree; the two the build schedules
        # itself (see `build`) are reached through their stages.
        self.outputs = registry.site_outputs(self.root, self.cache)
        self.site = self.outputs["site"].renderer
        self.search = self.outputs["search"].indexer
        self.writer = TreeWriter(options.out)
        self._settle_when_idle = False      # `defer_housekeeping`: `settle_heap` when idle
        self._built_since_settled = False
        self._last_built = 0.0
        self._known_math: dict = {}          # formulas KaTeX rendered, across builds
        self._formulas: dict[tuple, tuple] = {}   # (edition, chapter) -> (inputs..., formulas)

    def defer_housekeeping(self) -> None:
        """For a long-lived builder (`--serve`): work nobody waits for (storing an edited
        chapter's parse, removing the replaced site tree) waits for `idle` instead of
        delaying the rebuild the open pages wait for, and the figure-drawing processes are
        kept from one build to the next (`close` stops them)."""
        self.resolver.defer_stores = True
        self.writer.defer_cleanup = True
        self.writer.update_in_place = True
        self.resolver.keep_workers()
        self._settle_when_idle = True

    def warm_up_workers(self) -> list[str]:
        """`--serve`, after the first build: the kept drawing processes started (if that build
        drew nothing), each drawing one figure to warm up (`EarlyDrawing.warm_up`)."""
        return self.resolver.warm_up_workers()

    def close(self) -> None:
        """Stop the processes `defer_housekeeping` keeps; give the heap frozen by its builds
        back to the cycle collector (a builder that stops is garbage its caller may drop)."""
        if self.resolver.kept_workers is not None:
            self.resolver.kept_workers.close()
        if self._settle_when_idle:
            gc.unfreeze()

    def idle(self) -> None:
        """Do what `defer_housekeeping` held back (the server calls this when no file has
        changed for a while, and when it stops)."""
        if self.resolver.store_parsed():
            self.cache.flush()
        self.writer.tidy()
        if (self._settle_when_idle and self._built_since_settled
                and time.monotonic() - self._last_built >= SETTLE_AFTER_S):
            self.settle_heap()

    def settle_heap(self) -> None:
        """A long-lived builder, once built and idle: collect its garbage now, then leave what
        survived (the parsed book, memos: ~2 million objects) out of later collections.

        Python's cycle collector walks every object it tracks in its oldest generation: in a
        `--serve` process holding the whole book, one such collection took ~0.2 s, and it
        fell inside a rebuild every few saves (bench/PROFILE.md, fourteenth round). So each
        `--serve` build ends by freezing what exists (`gc.freeze`, constant time), and this
        full collection runs after `SETTLE_AFTER_S` without a build. Frozen objects are still
        freed when nothing refers to them; only a cycle among them waits for the next
        `settle_heap`, which thaws and collects everything first."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._built_since_settled = False

    def log(self, message: str) -> None:
        if not self.opt.quiet:
            print(f"  {message}", file=sys.stderr, flush=True)

    # What the last resolve executed (not served from cache); tests read it.
    @property
    def executed_cells(self) -> list[int]:
        return self.resolver.executed_cells

    @property
    def drawn_figures(self) -> list[str]:
        return self.resolver.drawn_figures

    @property
    def cell_deps(self) -> dict[int, dict]:
        return self.resolver.cell_deps

    @property
    def figure_deps(self) -> dict[str, dict]:
        return self.resolver.figure_deps

    def resolve(self, book: Book, figures: tuple[str, ...] = ("svg", "pdf")) -> ResolvedBook:
        """The resolve stage alone (for the Pandoc export, the translation check with
        `figures=()`, and the release)."""
        return self.resolver.resolve(book, figures)

    def build(self, open_pages: Collection[str] = (), behind: bool = False) -> BuildReport:
        """Load, resolve, render and write the site; see the module docstring for the stages.

        The stages overlap on two cores. KaTeX runs in one Node process started first and fed
        each edition's formulas as soon as that edition is numbered; on a first build, stale
        search indexes are built in a forked process while chapters are rendered with a slot
        per formula, filled when KaTeX is done.

        `open_pages`: URL paths of pages open in a browser (`--serve`). Only their editions'
        changed figures are drawn; the other editions' keep their last images, and
        `figures_deferred` says how many did: a build without `open_pages` draws those.
        `behind`: the open pages already show what they need (this build draws what such a
        build deferred), so its drawing workers yield the cores to the browser reloading them.
        """
        with one_look_per_build():
            return self._build(open_pages, behind)

    def _build(self, open_pages: Collection[str], behind: bool) -> BuildReport:
        first = not self.site.has_rendered
        forget_values_digests()
        math = mathrender.MathRenderer(
            self.root, self.cache, mathrender.KatexProcess.try_start(self.root) if first else None,
            known=self._known_math)
        indexer: Background | None = None
        timings: dict[str, float] = {}
        try:
            start = time.perf_counter()
            report = BuildReport()
            book = load_book(self.root, self.opt.editions, strict=self.opt.strict)
            if not behind:
                # a saved figure script is drawn on the kept workers while this process
                # runs the cells and numbers the editions (`EarlyDrawing`)
                self.resolver.start_early_drawing(
                    languages_shown([e.info for e in book.editions.values()], open_pages))
            # On a first build, a forked process numbers the editions `forked` again on its own
            # and builds their search indexes (search text needs neither figures nor math), on
            # the other core, while this process parses, renders and writes. It is forked right
            # after the cells, when there is little to copy; this process keeps the cheapest
            # index (by its text) so that both cores stay busy to the end. The fork also
            # stores the parses of those editions and of the original in the cache.
            wanted = output_editions(book, self.opt.editions)
            forked: list[str] = []
            if first and self.opt.workers > 1 and len(wanted) > 1:
                forked = sorted(wanted, key=lambda k: _text_cost(book.editions[k]))[1:]
                self.resolver.parses_stored_by_fork = frozenset(
                    [*forked, book.original.info.spec.id])
            t0 = time.perf_counter()
            cells = self.resolver.run_cells(book)
            report.cells_executed = sum(1 for c in cells.values() if c.executed)
            timings["cells"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            resolved = self.resolver.start(book, cells, self.opt.editions)
            if forked:
                indexer = Background(_index_editions, (self, resolved, cells, forked))
            search: dict[str, SearchJob] = {}
            wanted_math: dict[tuple, set] = {}
            for key in book.editions:
                edition = resolved.editions[key] = self.resolver.number_edition(book, key, cells)
                for chapter in edition.chapters:
                    wanted_math[(key, chapter.source.number)] = self.formulas(
                        resolved, edition, chapter)
                try:
                    math.submit(f for chapter in edition.chapters
                                for f in wanted_math[(key, chapter.source.number)])
                except mathrender.MathError as exc:
                    raise BuildError(None, None, str(exc))
                if key in wanted and key not in forked:
                    search[key] = self.search.start(resolved, key)
            timings["numbering"] = time.perf_counter() - t0
            report.warnings = self.source_warnings(resolved)
            t0 = time.perf_counter()
            self.resolver.draw_figures(resolved,
                                       registry.figure_formats(self.outputs.values()),
                                       later=languages_later(resolved, open_pages),
                                       nice=BEHIND_NICENESS if behind else 0)
            report.figures_deferred = len(self.resolver.deferred_figures)
            self.cache.flush()   # keep executed cells and drawn figures even if a stage fails
            timings["figures"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            chapters = self.site.render_chapters(resolved, wanted_math)
            timings["chapters"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            try:
                rendered_math = math.result()
            except mathrender.MathError as exc:
                raise BuildError(None, None, str(exc))
            timings["math wait"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            config = site_config(book)
            files, report.pages = self.site.render_site(resolved, config, chapters,
                                                        rendered_math)
            timings["pages"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            for key, job in search.items():   # this process's share first
                files.update((resolved.editions[key].info.url_prefix + name, data)
                             for name, data in job.finish(self.cache).items())
            if indexer is not None:
                result, indexer = indexer.result(), None
                if not result.ok:
                    raise BuildError(None, None, "building the search indexes failed:\n"
                                     + result.error)
                editions, parses = result.value
                for (kind, key), blob in parses.items():
                    self.cache.put_pickled(kind, key, blob)
                for key, (cache_key, assets, built) in editions.items():
                    if built:
                        self.cache.put("search", cache_key, assets)
                    files.update((resolved.editions[key].info.url_prefix + name, data)
                                 for name, data in assets.items())
            timings["search"] = time.perf_counter() - t0
            context = registry.OutputContext(self.root, self.cache, site=config, log=self.log)
            for name, output in self.outputs.items():
                if name not in SCHEDULED:
                    t0 = time.perf_counter()
                    files.update(output.write(resolved, context).files)
                    timings[name] = time.perf_counter() - t0
        finally:
            if indexer is not None:
                indexer.cancel()
            # what the fork did not store (it failed, or the build did) is parsed again by
            # the next process; this one's next builds store their own parses
            self.resolver.leave_no_parses_to_fork()
            math.discard()
            self.cache.flush()
        t0 = time.perf_counter()
        report.changed, report.files_written = self.writer.write(files)
        report.changed_paths = self.writer.changed_paths
        timings["write"] = time.perf_counter() - t0
        report.timings = timings
        report.seconds = time.perf_counter() - start
        if self._settle_when_idle:
            gc.freeze()     # see `settle_heap`
            self._built_since_settled, self._last_built = True, time.monotonic()
        return report


    def formulas(self, resolved: ResolvedBook, edition, chapter) -> set:
        """The chapter's formulas (`renderer.formulas`), again only when what they are made of
        changed: its tokens and values (the same objects while unchanged), its what-if
        variants, its edition's number conventions. Walking every chapter's tokens was 0.15 s
        of each --serve rebuild."""
        conventions = (edition.info.spec.number_lang, edition.info.lang,
                       sorted((name, sc.digest) for name, sc in (chapter.scenarios or {}).items()))
        slot = (edition.info.spec.id, chapter.source.number)
        known = self._formulas.get(slot)
        if (known is not None and known[0] is chapter.tokens and known[1] is chapter.values
                and known[2] == conventions):
            return known[3]
        found = formulas(resolved, edition, chapter)
        self._formulas[slot] = (chapter.tokens, chapter.values, conventions, found)
        return found

    def source_warnings(self, resolved: ResolvedBook) -> list[str]:
        """What the build fixed on its own and the author should fix in the source (typed
        heading numbers), as `path:line: …` relative to the book root."""
        return [warning_text(chapter.source.path.relative_to(self.root), typed)
                for key in resolved.outputs for chapter in resolved.editions[key].chapters
                if not chapter.source.untranslated    # warned once, in the original
                for typed in typed_numbers(chapter.tokens)] + untranslated_warnings(
                    resolved.book, self.root)


#: `--serve`: seconds without a build before the full collection (`Builder.settle_heap`; ~0.2
#: s that a save made meanwhile waits for)
SETTLE_AFTER_S = 20.0

#: niceness of the workers drawing behind a published page (`build(behind=True)`): 10 gives
#: them about a tenth of a core the browser also wants (Linux's CFS weights)
BEHIND_NICENESS = 10

#: The site outputs `Builder.build` drives stage by stage (to overlap them on two cores).
SCHEDULED = ("site", "search")


def resolve_book(root: Path, editions: list[str] | None = None,
                 figures: tuple[str, ...] = (), *, strict: bool = False,
                 outputs: list[str] | None = None, use_cache: bool = True,
                 cache_dir: Path | None = None, workers: int = 2,
                 cell_timeout: float = 60.0) -> ResolvedBook:
    """Load and resolve the book, nothing else: no renderer, minifier or search indexer is
    made. `editions`: those to load (with the original, whose cells they read; default all);
    `figures`: the formats to draw (none: the text only, as the checks read it); `outputs`:
    the editions the resolved book is made for (default: every loaded one)."""
    root = Path(root).resolve()
    cache = Cache(cache_dir or root / ".cache" / "bookkit", enabled=use_cache, base=root)
    resolver = Resolver(root, cache, workers, cell_timeout)
    book = load_book(root, editions, strict=strict)
    return resolver.resolve(book, figures, outputs)


def languages_later(resolved: ResolvedBook, pages: Collection[str]) -> frozenset[str]:
    """The languages of the editions none of `pages` (URL paths) belongs to; none when no page
    is given."""
    editions = [e.info for e in resolved.editions.values()]
    shown = languages_shown(editions, pages)
    if not shown:
        return frozenset()
    return frozenset(info.lang for info in editions) - shown


def languages_shown(editions: list[EditionInfo], pages: Collection[str]) -> frozenset[str]:
    """The languages of the editions `pages` (URL paths) belong to. A page belongs to the
    edition with the longest URL prefix it starts with (the original's is "", the site root)."""
    shown = set()
    for page in pages:
        path = page.lstrip("/")
        owners = [info for info in editions if path.startswith(info.url_prefix)]
        if owners:
            shown.add(max(owners, key=lambda info: len(info.url_prefix)).lang)
    return frozenset(shown)


def _text_cost(edition: Edition) -> int:
    """Relative cost of indexing an edition, from its sources: a CJK character gives two index
    terms (itself and a bigram), a Latin word of ~6 letters one; UTF-8's extra bytes count
    the former."""
    return sum(len(c.text.encode("utf-8")) - len(c.text) + len(c.text) // 8
               for c in edition.chapters)


def _index_editions(builder: Builder, resolved: ResolvedBook, cells: dict[int, CellResults],
                    keys: list[str]) -> JobResult:
    """In a forked process: number the editions `keys` and build their search indexes.

    Returns ({edition: (cache key, assets, built)}, the parses' cache entries, pickled);
    `built` is False for a cache hit. The cache is only read here; the parent stores what was
    built, and the parses it left to this process (`Resolver.parses_stored_by_fork`).
    """
    builder.resolver.store_in_fork()
    out = {}
    for key in keys:
        resolved.editions[key] = builder.resolver.number_edition(resolved.book, key, cells)
        job = builder.search.start(resolved, key)
        assets = job.hit if job.hit is not None else build_search_assets(job.docs, job.lang,
                                                                          job.synonyms)
        out[key] = (job.key, assets, job.hit is None)
    return JobResult(ok=True, value=(out, builder.cache.staged("parsed")))


def site_config(book: Book) -> SiteConfig:
    config = book.config or read_book_config(book.root)
    return SiteConfig(site_url=config.site_url, release_url=config.release_url,
                      repo_url=repo_settings(config.data)["repo"],
                      errata_url=repo_settings(config.data)["errata"],
                      commit=source_commit(book.root),
                      pdf_names={e.id: e.pdf_name for e in config.registry},
                      epub_names={e.id: e.epub_name for e in config.registry})


