"""The pipeline: load -> resolve (cells, numbering, figures, math) -> render (site, search) -> write.

`Builder` keeps parsed chapters and rendered pages in memory between builds, so `--serve`
rebuilds only what changed; the content-addressed cache on disk (`.cache/`) makes a cold process
skip cells, figures and formulas that have not changed.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .cache import Cache, key_of, sha256_bytes
from .fsutil import swap_dir
from .load import load_book, read_book_config
from .markdown import parse
from .model import Book, BuildError, ChapterSource, Edition, Label
from .render import math as mathrender
from .render.html import RenderContext, collect_math, fill_math, plain_inline, render_chapter
from .render.search import SearchDoc, build_search_assets
from .render.site import (SiteConfig, asset_version, environment, render_pages, sitemap,
                          templates_version)
from .resolve.cells import resolve_cells
from .resolve.figures import FigureTask, resolve_figures, svg_size
from .resolve.numbering import ChapterOutline, number_chapter
from .workers import Background, JobResult

STATIC_FROM_NODE = {
    "lunr.min.js": "lunr/lunr.min.js",
    "katex/katex.min.css": "katex/dist/katex.min.css",
}


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


@dataclass
class BuildReport:
    pages: int = 0
    files_written: int = 0
    cells_executed: int = 0
    figures_drawn: int = 0
    seconds: float = 0.0
    changed: bool = True
    timings: dict = field(default_factory=dict)


class Builder:
    def __init__(self, options: BuildOptions) -> None:
        self.opt = options
        self.root = options.root.resolve()
        self.cache = Cache(options.cache_dir or self.root / ".cache" / "bookkit",
                           enabled=options.use_cache, base=self.root)
        self._parsed: dict[str, tuple[str, list, dict]] = {}   # path -> (sha, tokens, env)
        self._last_manifest: dict[str, str] | None = None
        self._search_code: str | None = None
        self._jinja = None
        self._rendered: dict[tuple, ChapterHtml] = {}   # chapter inputs -> its HTML
        self._docs: dict[tuple, list] = {}         # chapter inputs -> its search documents
        self._pages: dict[str, EditionPages] = {}  # edition -> its last pages
        self._figure_memo: dict[tuple, tuple] = {}  # its format keys -> (deps, FigureImage)
        # What the last resolve actually executed (not served from cache); tests read it.
        self.executed_cells: list[int] = []
        self.drawn_figures: list[str] = []
        self.cell_deps: dict[int, dict] = {}      # chapter -> {relative path: sha256}
        self.figure_deps: dict[str, dict] = {}    # "figure|lang" -> {relative path: sha256}

    def log(self, message: str) -> None:
        if not self.opt.quiet:
            print(f"  {message}", file=sys.stderr, flush=True)

    # -- resolve ---------------------------------------------------------------------------
    def parsed(self, chapter: ChapterSource):
        digest = sha256_bytes(chapter.text.encode())
        hit = self._parsed.get(str(chapter.path))
        if hit and hit[0] == digest:
            return hit[1], hit[2]
        tokens, env = parse(chapter.text)
        self._parsed[str(chapter.path)] = (digest, tokens, env)
        return tokens, env

    def run_cells(self, book: Book) -> dict:
        """Every chapter's calc cells (cached), in worker processes: {chapter number: cells}."""
        parsed_tokens = {c.path: self.parsed(c)[0] for c in book.original.chapters}
        cells = resolve_cells(book.original.chapters, self.root, self.cache, self.opt.workers,
                              self.opt.cell_timeout, parsed_tokens)
        self.executed_cells = sorted(n for n, c in cells.items() if c.executed)
        self.cell_deps = {n: c.deps for n, c in cells.items()}
        return cells

    def number_edition(self, resolved: "ResolvedBook", key: str, edition: Edition,
                       cells: dict) -> None:
        """Parse and number an edition's chapters; make their render contexts; collect the
        formulas they show and the figures they need."""
        labels: dict[str, Label] = {}
        outlines: list[ChapterOutline] = []
        resolved.labels[key], resolved.outlines[key] = labels, outlines
        for chapter in edition.chapters:
            tokens, _ = self.parsed(chapter)
            titles = RenderContext(chapter=chapter, edition=edition.info, labels=labels,
                                   values=cells[chapter.number].values, math={},
                                   figures={}, figure_sizes={})
            # Unknown names in titles are reported by the render pass, with file:line.
            outline = number_chapter(chapter, tokens, labels,
                                     lambda tok, c=titles: plain_inline(tok.children or [], c))
            outlines.append(outline)
            for fid, src, line in outline.figures:
                resolved.figure_tasks.append(FigureTask(
                    fid, self.root / "manuscripts" / src, edition.info.lang, str(chapter.path),
                    line))
        resolved.labels_digest[key] = _digest(sorted(labels.items()))
        for chapter in edition.chapters:
            tokens, _ = self.parsed(chapter)
            ctx = RenderContext(chapter=chapter, edition=edition.info, labels=labels,
                                values=cells[chapter.number].values, math={},
                                figures={}, figure_sizes={},
                                chapter_files=resolved.chapter_files)
            resolved.contexts[(key, chapter.number)] = ctx
            wanted: set = set()
            collect_math(tokens, ctx, wanted)
            resolved.chapter_math[(key, chapter.number)] = wanted

    def resolve_figures(self, resolved: "ResolvedBook",
                        formats: tuple[str, ...] = ("svg",)) -> None:
        """Draw (or take from the cache) every figure image; give the contexts their sizes.
        The site needs SVG only; the Pandoc export asks for PDF too."""
        self.drawn_figures, self.figure_deps = [], {}
        figures = resolve_figures(resolved.figure_tasks, self.root, self.cache,
                                  self.root / "build" / "figures", self.opt.workers,
                                  self.opt.cell_timeout, progress=self.log,
                                  drawn=self.drawn_figures, deps_out=self.figure_deps,
                                  memo=self._figure_memo, formats=formats)
        resolved.figures = figures
        resolved.sizes = {k: svg_size(_head(v.svg)) for k, v in figures.items()}
        for ctx in resolved.contexts.values():
            ctx.figures, ctx.figure_sizes = figures, resolved.sizes

    def resolve(self, book: Book):
        """The resolve stage alone (for the Pandoc export and the release):
        (cells, outlines, labels, figures, timings)."""
        t0 = time.perf_counter()
        cells = self.run_cells(book)
        t1 = time.perf_counter()
        resolved = ResolvedBook(book=book, config=site_config(book),
                                chapter_files={c.path.name: c.slug for c in book.original.chapters},
                                editions=list(book.editions.items()))
        for key, edition in book.editions.items():
            self.number_edition(resolved, key, edition, cells)
        t2 = time.perf_counter()
        self.resolve_figures(resolved, formats=("svg", "pdf"))
        self.cache.flush()
        timings = {"cells": t1 - t0, "numbering": t2 - t1, "figures": time.perf_counter() - t2}
        return cells, resolved.outlines, resolved.labels, resolved.figures, timings

    # -- build -----------------------------------------------------------------------------
    def build(self) -> BuildReport:
        """Load, resolve, render and write the site; see the module docstring for the stages.

        The stages overlap on two cores. KaTeX runs in one Node process started first and fed
        each edition's formulas as soon as that edition is numbered; on a first build, stale
        search indexes are built in a forked process while chapters are rendered with a slot
        per formula, filled when KaTeX is done.
        """
        first = not self._rendered
        math = mathrender.MathRenderer(
            self.root, self.cache, mathrender.KatexProcess.try_start(self.root) if first else None)
        indexer: Background | None = None
        timings: dict[str, float] = {}
        try:
            start = time.perf_counter()
            report = BuildReport()
            book = load_book(self.root, self.opt.editions)
            t0 = time.perf_counter()
            cells = self.run_cells(book)
            report.cells_executed = sum(1 for c in cells.values() if c.executed)
            timings["cells"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            resolved = ResolvedBook(
                book=book, config=site_config(book),
                chapter_files={c.path.name: c.slug for c in book.original.chapters},
                editions=[(key, edition) for key, edition in book.editions.items()
                          if not self.opt.editions or key in self.opt.editions])
            # On a first build, a forked process numbers the editions again on its own and
            # builds their search indexes (search text needs neither figures nor math), on the
            # other core, while this process parses, renders and writes. It is forked early,
            # right after the cells, when there is little to copy; this process keeps the
            # cheapest index (by its text) so that both cores stay busy to the end.
            wanted = [key for key, _ in resolved.editions]
            forked: list[str] = []
            if first and self.opt.workers > 1 and len(wanted) > 1:
                forked = sorted(wanted, key=lambda k: _text_cost(book.editions[k]))[1:]
                indexer = Background(_index_editions, (self, resolved, cells, forked))
            search: dict[str, SearchJob] = {}
            for key, edition in book.editions.items():
                self.number_edition(resolved, key, edition, cells)
                try:
                    math.submit(f for chapter in edition.chapters
                                for f in resolved.chapter_math[(key, chapter.number)])
                except mathrender.MathError as exc:
                    raise BuildError(None, None, str(exc))
                if key in wanted and key not in forked:
                    search[key] = self.start_search(resolved, key)
            timings["numbering"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            self.resolve_figures(resolved)
            self.cache.flush()   # keep executed cells and drawn figures even if a stage fails
            timings["figures"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            chapters = self.render_chapters(resolved)
            timings["chapters"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            try:
                rendered_math = math.result()
            except mathrender.MathError as exc:
                raise BuildError(None, None, str(exc))
            timings["math wait"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            files, report.pages = self.render_site(resolved, chapters, rendered_math)
            timings["pages"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            for key, job in search.items():   # this process's share first
                files.update((resolved.editions_by_key[key].info.url_prefix + name, data)
                             for name, data in job.finish(self.cache).items())
            if indexer is not None:
                result, indexer = indexer.result(), None
                if not result.ok:
                    raise BuildError(None, None, "building the search indexes failed:\n"
                                     + result.error)
                for key, (cache_key, assets, built) in result.value.items():
                    if built:
                        self.cache.put("search", cache_key, assets)
                    files.update((resolved.editions_by_key[key].info.url_prefix + name, data)
                                 for name, data in assets.items())
            timings["search"] = time.perf_counter() - t0
        finally:
            if indexer is not None:
                indexer.cancel()
            math.discard()
            self.cache.flush()
        t0 = time.perf_counter()
        report.changed, report.files_written = self.write(files)
        timings["write"] = time.perf_counter() - t0
        report.timings = timings
        report.seconds = time.perf_counter() - start
        return report

    def render_chapters(self, resolved: "ResolvedBook") -> dict[tuple, "ChapterHtml"]:
        """Each chapter's HTML body: from memory if its inputs are unchanged, else rendered
        with a slot for each formula (`render_site` fills them)."""
        sizes_digest = _digest(sorted(resolved.sizes.items()))
        out = {}
        for key, edition in resolved.editions:
            for chapter in edition.chapters:
                ctx = resolved.contexts[(key, chapter.number)]
                # Everything a chapter's HTML depends on; under --serve an edit re-renders
                # only the chapters whose inputs changed.
                memo_key = (str(chapter.path), self._parsed[str(chapter.path)][0],
                            resolved.labels_digest[key], _digest(sorted(ctx.values.items())),
                            sizes_digest,
                            _digest(sorted(resolved.chapter_math[(key, chapter.number)])))
                done = self._rendered.get(memo_key)
                if done is None:
                    tokens, env = self.parsed(chapter)
                    ctx.math, ctx.math_slots, ctx.errors, ctx.assets = None, [], [], {}
                    body = render_chapter(tokens, env, ctx)
                    out[(key, chapter.number)] = ChapterHtml(memo_key, body, ctx.assets,
                                                             ctx.errors, ctx)
                else:
                    out[(key, chapter.number)] = done
        return out

    def render_site(self, resolved: "ResolvedBook", chapters: dict[tuple, "ChapterHtml"],
                    math: dict) -> tuple[dict[str, bytes], int]:
        """Every file of the site except the search indexes, and the number of pages."""
        files: dict[str, bytes] = {}
        if self._jinja is None:
            self._jinja = environment(self.root)   # auto-reloads templates that changed
        version = asset_version(self.root)
        templates = templates_version(self.root)
        editions_info = [e.info for e in resolved.book.editions.values()]
        errors: list[BuildError] = []
        sitemap_urls = []
        page_count = 0
        for key, edition in resolved.editions:
            bodies, has_math = {}, {}
            prefix = edition.info.url_prefix
            for chapter in edition.chapters:
                rendered = chapters[(key, chapter.number)]
                if rendered.ctx is not None:    # rendered this build: fill in the formulas
                    rendered = rendered.with_math(math)
                    if not rendered.errors:
                        self._rendered[rendered.memo_key] = rendered
                bodies[chapter.slug] = rendered.body
                for site_path, source in rendered.assets.items():
                    files[prefix + site_path] = source.read_bytes()
                has_math[chapter.slug] = 'class="katex' in rendered.body
                errors.extend(rendered.errors)
            if errors:
                continue
            outlines = resolved.outlines[key]
            # Pages share the navigation (all outlines), the strings and the assets; within
            # the same navigation, only the pages whose body changed are rendered again.
            nav_key = (resolved.labels_digest[key], version, templates,
                       _digest([(o.chapter.slug, o.title, o.sections) for o in outlines]),
                       _digest((editions_info, resolved.config)))
            body_digests = {slug: _digest(body) for slug, body in bodies.items()}
            previous = self._pages.get(key)
            if previous is not None and previous.nav_key == nav_key:
                changed = {slug for slug, d in body_digests.items()
                           if previous.body_digests.get(slug) != d}
                pages = previous.pages if not changed else render_pages(
                    self._jinja, edition.info, editions_info, outlines, bodies, has_math,
                    resolved.config, version, only=changed, previous=previous.pages)
            else:
                pages = render_pages(self._jinja, edition.info, editions_info, outlines, bodies,
                                     has_math, resolved.config, version)
            self._pages[key] = EditionPages(nav_key, body_digests, pages)
            for name, data in pages.items():
                files[prefix + name] = data
                if name != "404.html":
                    sitemap_urls.append(prefix + (name if name != "index.html" else ""))
            for (fid, lang), image in resolved.figures.items():
                if lang == edition.info.lang:
                    files[f"{prefix}figures/{fid}.{lang}.svg"] = image.svg.read_bytes()
            page_count += len(pages)
        if errors:
            raise BuildError(None, None, "\n".join(e.render() for e in _unique(errors)))
        config = resolved.config
        files["sitemap.xml"] = sitemap(config, sorted(sitemap_urls))
        files["robots.txt"] = f"User-agent: *\nSitemap: {config.site_url}sitemap.xml\n".encode()
        files[".nojekyll"] = b""
        files.update(static_files(self.root))
        return files, page_count

    def chapter_docs(self, resolved: "ResolvedBook", key: str,
                     chapter: ChapterSource) -> list[SearchDoc]:
        """The chapter's search documents, kept in memory while its inputs are unchanged.

        Unknown names are not reported here: the render pass reports them with file:line.
        """
        ctx = resolved.contexts[(key, chapter.number)]
        memo_key = (str(chapter.path), self._parsed[str(chapter.path)][0],
                    resolved.labels_digest[key], _digest(sorted(ctx.values.items())))
        docs = self._docs.get(memo_key)
        if docs is None:
            ctx.errors = []
            docs = section_docs(self.parsed(chapter)[0], ctx,
                                resolved.outlines[key][chapter.number])
            if not ctx.errors:
                self._docs[memo_key] = docs
        return docs

    def start_search(self, resolved: "ResolvedBook", key: str) -> "SearchJob":
        """The edition's search index from the cache, or what is needed to build it."""
        from .render import cjk, search
        if self._search_code is None:
            self._search_code = sha256_bytes(Path(search.__file__).read_bytes()
                                             + Path(cjk.__file__).read_bytes()
                                             + cjk.FOLD_TABLE.read_bytes())
        edition = resolved.book.editions[key]
        docs = [d for chapter in edition.chapters
                for d in self.chapter_docs(resolved, key, chapter)]
        lang = edition.info.lang
        cache_key = key_of("search", lang, self._search_code,
                           [(d.url, d.chapter, d.section, d.text) for d in docs])
        return SearchJob(docs, lang, cache_key, self.cache.get("search", cache_key))

    def write(self, files: dict[str, bytes]) -> tuple[bool, int]:
        """Write the site atomically: build a new tree beside the old one, then swap.

        Unchanged files are hard-linked from the previous tree, so an edit rewrites one page.
        """
        out = self.opt.out
        manifest = {path: hashlib.sha256(data).hexdigest() for path, data in files.items()}
        if self._last_manifest == manifest and out.is_dir():
            return False, 0
        old = _read_manifest(out)
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
        (new / ".manifest.json").write_text(_dump_manifest(manifest))
        swap_dir(new, out)
        self._last_manifest = manifest
        return True, written


@dataclass
class ResolvedBook:
    """What the render stage needs: the resolved book and each chapter's render context."""
    book: Book
    config: SiteConfig
    chapter_files: dict[str, str]          # "03-x.md" -> its slug, for links between chapters
    editions: list[tuple[str, Edition]]    # the editions to render, in order
    outlines: dict[str, list[ChapterOutline]] = field(default_factory=dict)
    labels: dict[str, dict[str, Label]] = field(default_factory=dict)
    labels_digest: dict[str, str] = field(default_factory=dict)
    figure_tasks: list[FigureTask] = field(default_factory=list)
    figures: dict = field(default_factory=dict)
    sizes: dict = field(default_factory=dict)
    contexts: dict[tuple, RenderContext] = field(default_factory=dict)    # (edition, chapter no)
    chapter_math: dict[tuple, set] = field(default_factory=dict)

    @property
    def editions_by_key(self) -> dict[str, Edition]:
        return dict(self.editions)


@dataclass
class EditionPages:
    """An edition's rendered pages and what they were rendered from."""
    nav_key: tuple
    body_digests: dict[str, str]
    pages: dict[str, bytes]


@dataclass
class ChapterHtml:
    """A chapter's rendered body; `ctx` is set while its formula slots are still empty."""
    memo_key: tuple
    body: str
    assets: dict[str, Path]
    errors: list[BuildError]
    ctx: RenderContext | None = None

    def with_math(self, math: dict) -> "ChapterHtml":
        body = fill_math(self.body, self.ctx, math)   # adds an error per formula KaTeX rejects
        return ChapterHtml(self.memo_key, body, dict(self.assets), list(self.ctx.errors))


@dataclass
class SearchJob:
    """One edition's search index: the cached bytes, or what is needed to build them."""
    docs: list[SearchDoc]
    lang: str
    key: str
    hit: dict | None

    def finish(self, cache: Cache) -> dict[str, bytes]:
        """The index files: cached, or built now (and cached)."""
        if self.hit is None:
            self.hit = build_search_assets(self.docs, self.lang)
            cache.put("search", self.key, self.hit)
        return self.hit


def _text_cost(edition: Edition) -> int:
    """Relative cost of indexing an edition, from its sources: a CJK character gives two index
    terms (itself and a bigram), a Latin word of ~6 letters one; UTF-8's extra bytes count
    the former."""
    return sum(len(c.text.encode("utf-8")) - len(c.text) + len(c.text) // 8
               for c in edition.chapters)


def _index_editions(builder: "Builder", resolved: "ResolvedBook", cells: dict,
                    keys: list[str]) -> JobResult:
    """In a forked process: number the editions `keys` and build their search indexes.

    Returns {edition: (cache key, assets, built)}; `built` is False for a cache hit. The cache
    is only read here; the parent stores what was built.
    """
    mine = ResolvedBook(book=resolved.book, config=resolved.config,
                        chapter_files=resolved.chapter_files, editions=resolved.editions)
    out = {}
    for key in keys:
        builder.number_edition(mine, key, resolved.book.editions[key], cells)
        job = builder.start_search(mine, key)
        assets = job.hit if job.hit is not None else build_search_assets(job.docs, job.lang)
        out[key] = (job.key, assets, job.hit is None)
    return JobResult(ok=True, value=out)


def _head(path: Path, size: int = 600) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(size)


def _digest(obj) -> str:
    return hashlib.sha256(repr(obj).encode()).hexdigest()


def _unique(errors: list[BuildError]) -> list[BuildError]:
    seen, out = set(), []
    for e in errors:
        if e.render() not in seen:
            seen.add(e.render())
            out.append(e)
    return out


def _read_manifest(out: Path) -> dict:
    import json
    try:
        return json.loads((out / ".manifest.json").read_text())
    except (OSError, ValueError):
        return {}


def _dump_manifest(manifest: dict) -> str:
    import json
    return json.dumps(manifest, sort_keys=True, indent=0)


def site_config(book: Book) -> SiteConfig:
    config = book.config or read_book_config(book.root)
    return SiteConfig(site_url=config.site_url, release_url=config.release_url,
                      pdf_names={"zh": "AI-Infra-Book.pdf", "en": "AI-Infra-Book-EN.pdf",
                                 "zh-tw": "AI-Infra-Book-ZH-TW.pdf"},
                      epub_names={"zh": "AI-Infra-Book.epub", "en": "AI-Infra-Book-EN.epub",
                                  "zh-tw": "AI-Infra-Book-ZH-TW.epub"})


def static_files(root: Path) -> dict[str, bytes]:
    files = {}
    static = root / "website" / "static"
    for path in sorted(static.rglob("*")):
        if path.is_file():
            files["static/" + path.relative_to(static).as_posix()] = path.read_bytes()
    node = root / "website" / "node_modules"
    for target, source in STATIC_FROM_NODE.items():
        src = node / source
        if not src.is_file():
            raise BuildError(src, None, "front-end dependency missing", "run `make setup` (npm ci)")
        files["static/" + target] = src.read_bytes()
    fonts = node / "katex" / "dist" / "fonts"
    for path in sorted(fonts.glob("*.woff2")):
        files["static/katex/fonts/" + path.name] = path.read_bytes()
    return files


def section_docs(tokens, ctx: RenderContext, outline: ChapterOutline) -> list[SearchDoc]:
    """One search document per section: its plain text with bound numbers as rendered."""
    s = ctx.edition.strings
    number = outline.chapter.number
    chapter_title = (f"{s['chapter'].format(n=number)} {outline.title}" if number
                     else outline.title)
    slug = outline.chapter.slug
    docs: list[SearchDoc] = []
    current = (f"{slug}.html", chapter_title)
    parts: list[str] = []

    def flush():
        text = " ".join(p for p in parts if p).strip()
        docs.append(SearchDoc(url=current[0], chapter=chapter_title, section=current[1],
                              text=text))

    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag in ("h2", "h3"):
            flush()
            parts = []
            title = plain_inline(tokens[i + 1].children or [], ctx)
            num = tok.meta.get("number", "")
            current = (f"{slug}.html#{tok.attrGet('id')}", f"{num} {title}".strip())
            continue
        if tok.type == "inline" and not (i > 0 and tokens[i - 1].type == "heading_open"
                                         and tokens[i - 1].tag in ("h1", "h2", "h3")):
            parts.append(plain_inline(tok.children or [], ctx))
        elif tok.type == "fence" and not tok.info.startswith("calc"):
            parts.append(tok.content)
    flush()
    return [d for d in docs if d.text or d.section]
