"""The website from the resolved book: every chapter's HTML body, the pages around them, the
figures, the sitemap and the static assets, as {site path: bytes} (the search indexes are
`bookkit.render.search.documents`' and the writing is `bookkit.pipeline.write`'s).

`SiteRenderer` keeps what it rendered in memory: under `--serve` an edit re-renders only the
chapters whose inputs changed, and only the pages whose body or navigation changed.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from bookkit.model import BuildError, FigureImage, ResolvedBook, ResolvedChapter, ResolvedEdition
from bookkit.render.site import whatif_data as whatif
from bookkit.render.site.minify import SUFFIXES as minify_suffixes
from bookkit.render.site.html import RenderContext, collect_math, fill_math, render_chapter
from bookkit.locale.text import chapter_context, values_digest
from bookkit.util.fsutil import read_bytes_kept
from bookkit.util.memo import PerObject
from bookkit.render.site.pages import (SiteConfig, asset_version, environment, render_pages,
                                        sitemap, templates_version)

STATIC_FROM_NODE = {
    "lunr.min.js": "lunr/lunr.min.js",   # search-engine.js builds and queries the index with it
    "katex/katex.min.css": "katex/dist/katex.min.css",
}
def formulas(resolved: ResolvedBook, edition: ResolvedEdition,
             chapter: ResolvedChapter) -> set[tuple[str, bool]]:
    """Every (tex, display) the chapter shows, bound numbers substituted: what KaTeX renders."""
    wanted: set = set()
    ctx = chapter_context(resolved, edition, chapter, {})
    collect_math(chapter.tokens, ctx, wanted)
    return wanted | whatif.variant_math(chapter.tokens, ctx)   # what-if variants' formulas


def _figures_digest(resolved: ResolvedBook, chapter: ResolvedChapter, lang: str) -> str:
    """What the chapter's figures put in its HTML besides their images: each one's size, text
    alternative and the numbers it draws, and its what-if drawings'. Only this chapter's: a
    saved diagram script re-rendered all 39 chapters when the key held the whole book's
    (~0.8 s of each such --serve rebuild)."""
    parts = []
    for fid, _src, _line in chapter.outline.figures:
        variants = sorted(resolved.figure_variants.get((fid, lang), []))
        for shown in (fid, *(v[2] for v in variants)):
            image = resolved.figures.get((shown, lang))
            parts.append((shown, resolved.figure_sizes.get((shown, lang)),
                          image and _image_text_digest(image)))
        parts.append(variants)
    return _digest(parts)


# Once per object (`PerObject`): an unchanged image, a chapter's formulas (`Builder.formulas`)
# and its what-if scenarios are the same objects from build to build, and the repr of every
# image's drawn numbers and every chapter's formulas was ~30 ms of each --serve rebuild.
_image_text_digest = PerObject(lambda image: _digest((image.description, image.bound)),
                               limit=8192)
_formulas_digest = PerObject(lambda found: _digest(sorted(found)), sized=True)
_scenarios_digest = PerObject(whatif.digest, sized=True)


@dataclass
class EditionPages:
    """An edition's rendered pages and what they were rendered from."""
    nav_key: tuple
    bodies: dict[str, str]
    pages: dict[str, bytes]


@dataclass
class ChapterHtml:
    """A chapter's rendered body; `ctx` is set while its formula slots are still empty."""
    memo_key: tuple
    body: str
    assets: dict[str, Path]
    errors: list[BuildError]
    ctx: RenderContext | None = None
    whatif: bytes | None = None      # the chapter's what-if data file (`<slug>.whatif.js`)

    def with_math(self, math: dict) -> "ChapterHtml":
        body = fill_math(self.body, self.ctx, math)   # adds an error per formula KaTeX rejects
        data, _size = whatif.chapter_data(self.ctx, math)
        body = whatif.fill_version(body, data)
        return ChapterHtml(self.memo_key, body, dict(self.assets), list(self.ctx.errors),
                           whatif=data)


class SiteRenderer:
    def __init__(self, root: Path, minify: Callable[[dict], dict] | None = None) -> None:
        self.root = root
        self.minify = minify   # our scripts and style sheets -> minified (`minify.Minifier`)
        self._jinja = None
        self._rendered: dict[tuple, ChapterHtml] = {}   # chapter inputs -> its HTML
        self._pages: dict[str, EditionPages] = {}       # edition -> its last pages
        self._images: dict[tuple[str, str], tuple[FigureImage, bytes]] = {}   # `_image_bytes`

    @property
    def has_rendered(self) -> bool:
        return bool(self._rendered)

    def render_chapters(self, resolved: ResolvedBook,
                        wanted_math: dict[tuple, set]) -> dict[tuple, ChapterHtml]:
        """Each chapter's HTML body: from memory if its inputs are unchanged, else rendered
        with a slot for each formula (`render_site` fills them). `wanted_math`: (edition,
        chapter number) -> its formulas."""
        out = {}
        for key in resolved.outputs:
            edition = resolved.editions[key]
            for chapter in edition.chapters:
                number = chapter.source.number
                # Everything a chapter's HTML depends on; under --serve an edit re-renders
                # only the chapters whose inputs changed.
                memo_key = (str(chapter.source.path), chapter.digest, edition.labels_digest,
                            values_digest(chapter.values),
                            _figures_digest(resolved, chapter, edition.info.lang),
                            _formulas_digest(wanted_math[(key, number)]),
                            _scenarios_digest(chapter.scenarios))
                done = self._rendered.get(memo_key)
                if done is None:
                    ctx = chapter_context(resolved, edition, chapter)
                    ctx.math, ctx.math_slots, ctx.errors, ctx.assets = None, [], [], {}
                    ctx.whatif_slots = {}
                    body = render_chapter(chapter.tokens, chapter.env, ctx)
                    out[(key, number)] = ChapterHtml(memo_key, body, ctx.assets, ctx.errors, ctx)
                else:
                    out[(key, number)] = done
        return out

    def _image_bytes(self, image: FigureImage) -> bytes:
        """The SVG the site ships for `image`, read once per image object: the figure stage
        hands over the same object while its file holds that drawing (and a new one when it
        writes another), so looking at ~900 files on every --serve rebuild (~10 ms) told
        nothing new."""
        known = self._images.get((image.figure_id, image.lang))
        if known is None or known[0] is not image:
            known = self._images[(image.figure_id, image.lang)] = (
                image, read_bytes_kept(image.site_svg or image.svg))
        return known[1]

    def render_site(self, resolved: ResolvedBook, config: SiteConfig,
                    chapters: dict[tuple, ChapterHtml],
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
        for key in resolved.outputs:
            edition = resolved.editions[key]
            bodies, has_math = {}, {}
            prefix = edition.info.url_prefix
            for chapter in edition.chapters:
                rendered = chapters[(key, chapter.source.number)]
                if rendered.ctx is not None:    # rendered this build: fill in the formulas
                    rendered = rendered.with_math(math)
                    if not rendered.errors:
                        self._rendered[rendered.memo_key] = rendered
                bodies[chapter.source.slug] = rendered.body
                if rendered.whatif is not None:
                    files[f"{prefix}{chapter.source.slug}.whatif.js"] = rendered.whatif
                for site_path, source in rendered.assets.items():
                    files[prefix + site_path] = read_bytes_kept(source)
                has_math[chapter.source.slug] = 'class="katex' in rendered.body
                errors.extend(rendered.errors)
            if errors:
                continue
            outlines = [chapter.outline for chapter in edition.chapters]
            # Pages share the navigation (all outlines), the strings and the assets; within
            # the same navigation, only the pages whose body changed are rendered again.
            nav_key = (edition.labels_digest, version, templates,
                       _digest([(o.chapter.slug, o.title, o.sections) for o in outlines]),
                       _digest((editions_info, config)))
            previous = self._pages.get(key)
            if previous is not None and previous.nav_key == nav_key:
                # The bodies themselves, not digests: an unchanged chapter's body is the same
                # string object (from memory), so comparing costs nothing, where hashing the
                # repr of every body was ~70 ms of each `--serve` rebuild of the real book.
                changed = {slug for slug, body in bodies.items()
                           if previous.bodies.get(slug) != body}
                pages = previous.pages if not changed else render_pages(
                    self._jinja, edition.info, editions_info, outlines, bodies, has_math,
                    config, version, only=changed, previous=previous.pages)
            else:
                pages = render_pages(self._jinja, edition.info, editions_info, outlines, bodies,
                                     has_math, config, version)
            self._pages[key] = EditionPages(nav_key, dict(bodies), pages)
            for name, data in pages.items():
                files[prefix + name] = data
                if name != "404.html":
                    sitemap_urls.append(prefix + (name if name != "index.html" else ""))
            for (fid, lang), image in resolved.figures.items():
                if lang == edition.info.lang:
                    files[f"{prefix}figures/{fid}.{lang}.svg"] = self._image_bytes(image)
            page_count += len(pages)
        if errors:
            raise BuildError(None, None, "\n".join(e.render() for e in _unique(errors)))
        files["sitemap.xml"] = sitemap(config, sorted(sitemap_urls))
        files["robots.txt"] = f"User-agent: *\nSitemap: {config.site_url}sitemap.xml\n".encode()
        files[".nojekyll"] = b""
        files.update(static_files(self.root, self.minify))
        return files, page_count


def static_files(root: Path, minify: Callable[[dict], dict] | None = None) -> dict[str, bytes]:
    """The site's static folder: our files from website/static (scripts and style sheets
    through `minify`, if given), then the libraries' from node_modules."""
    files = {}
    static = root / "website" / "static"
    ours = {}
    for path in sorted(static.rglob("*")):
        if path.is_file():
            name = "static/" + path.relative_to(static).as_posix()
            files[name] = read_bytes_kept(path)
            if path.suffix in minify_suffixes:
                ours[name] = (path, files[name])
    if minify is not None and ours:
        files.update(minify(ours))
    node = root / "website" / "node_modules"
    for target, source in STATIC_FROM_NODE.items():
        src = node / source
        if not src.is_file():
            raise BuildError(src, None, "front-end dependency missing", "run `make setup` (npm ci)")
        files["static/" + target] = read_bytes_kept(src)
    fonts = node / "katex" / "dist" / "fonts"
    for path in sorted(fonts.glob("*.woff2")):
        files["static/katex/fonts/" + path.name] = read_bytes_kept(path)
    if "static/search-worker.js" in files:
        files["static/search-worker.js"] = bundle_search_worker(
            files["static/lunr.min.js"], files["static/search-engine.js"],
            files["static/search-worker.js"])
    return files


def bundle_search_worker(lunr: bytes, engine: bytes, worker: bytes) -> bytes:
    """The search worker as one script: lunr, the engine, then the worker's own code (which
    then skips its `importScripts` of the two). A reader's first search fetches one file for
    the worker instead of three, ~0.5 KB less gzipped (the three compress together). The
    worker's code is wrapped in a function so that its "use strict" still applies: a
    directive counts only at the start of a script or function. lunr.min.js and
    search-engine.js are still shipped alone, for a browser without workers."""
    return (lunr.rstrip() + b"\n" + engine.rstrip() + b"\n(function(){\n" + worker.rstrip()
            + b"\n})();\n")


def _digest(obj) -> str:
    return hashlib.sha256(repr(obj).encode()).hexdigest()


def _unique(errors: list[BuildError]) -> list[BuildError]:
    seen, out = set(), []
    for e in errors:
        if e.render() not in seen:
            seen.add(e.render())
            out.append(e)
    return out
