"""The website and its search indexes as registered outputs (`bookkit.render.outputs`).

`bookkit.pipeline.build.Builder` overlaps these two with KaTeX and with each other on two cores, so it
drives their stages itself (`renderer`, `indexer`); `write` is the same work done in order, for
a caller that wants the files and no scheduling.
"""
from __future__ import annotations

from pathlib import Path

from bookkit.util.cache import Cache
from bookkit.model import BuildError, ResolvedBook
from bookkit.render.site import katex as mathrender
from bookkit.render.site.minify import Minifier
from bookkit.render.outputs import Needs, OutputContext, OutputReport
from bookkit.render.search.documents import SearchIndexer
from bookkit.render.site.renderer import SiteRenderer, formulas


class SiteOutput:
    name = "site"
    target = "site"
    needs = Needs(figures=("svg",), math=True)
    watch = ("website/templates", "website/static")
    files = ()      # its pages are checked one by one (`bookkit.check.site_links`)

    def __init__(self, root: Path, cache: Cache) -> None:
        self.renderer = SiteRenderer(root, Minifier(root, cache))
        self.root, self.cache = root, cache

    def write(self, resolved: ResolvedBook, context: OutputContext) -> OutputReport:
        math = mathrender.MathRenderer(self.root, self.cache,
                                       mathrender.KatexProcess.try_start(self.root))
        try:
            wanted = {(key, ch.source.number): formulas(resolved, resolved.editions[key], ch)
                      for key in resolved.outputs for ch in resolved.editions[key].chapters}
            try:
                math.submit(f for group in wanted.values() for f in group)
                chapters = self.renderer.render_chapters(resolved, wanted)
                rendered = math.result()
            except mathrender.MathError as exc:
                raise BuildError(None, None, str(exc))
        finally:
            math.discard()
        files, pages = self.renderer.render_site(resolved, context.site, chapters, rendered)
        return OutputReport(self.name, files=files, pages=pages)


class SearchOutput:
    name = "search"
    target = "site"
    needs = Needs()
    watch = ()
    files = ()      # the index has its own check (`check_search`)

    def __init__(self, root: Path, cache: Cache) -> None:
        self.indexer = SearchIndexer(cache)
        self.cache = cache

    def write(self, resolved: ResolvedBook, context: OutputContext) -> OutputReport:
        files: dict[str, bytes] = {}
        for key in resolved.outputs:
            job = self.indexer.start(resolved, key)
            prefix = resolved.editions[key].info.url_prefix
            files.update((prefix + name, data) for name, data in job.finish(self.cache).items())
        return OutputReport(self.name, files=files)
