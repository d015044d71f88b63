"""The PDF and the EPUB as registered outputs (`bookkit.render.outputs`): the edition's Pandoc
sources written from the resolved book (`sources.py`), then Pandoc and XeLaTeX or
EPUBCheck (`pandoc`).

Pandoc reads files, so the sources go through `context.work` on disk; everything about the
edition (its strings, its trust, its language) is taken from the resolved book, never read
again from configuration files.
"""
from __future__ import annotations

from pathlib import Path

from bookkit.util.cache import Cache
from bookkit.model import ResolvedBook
from bookkit.render.outputs import Needs, OutputContext, OutputReport


class _BookOutput:
    target = "book"
    needs = Needs(figures=("svg", "pdf"))
    watch = ()
    files = ()

    def __init__(self, root: Path, cache: Cache) -> None:
        self.root = root

    def sources(self, resolved: ResolvedBook, context: OutputContext) -> Path:
        """Write the one edition's Pandoc sources into `context.work`."""
        from bookkit.render.pandoc import sources
        (edition,) = resolved.outputs
        return sources.write_sources(
            resolved, edition, context.work, context.chapter,
            date=context.options.get("date", "2026-01-01"),
            version=context.options.get("version", "dev"))


class PdfOutput(_BookOutput):
    name = "pdf"

    def write(self, resolved: ResolvedBook, context: OutputContext) -> OutputReport:
        from bookkit.render.pandoc import convert as pandoc
        (edition,) = resolved.outputs
        src = self.sources(resolved, context)
        # Beside the sources (which are replaced as a whole on every export), one folder per
        # book or chapter build: their page references differ.
        aux_dir = src.with_name(src.name + ".latex-aux") / (
            "book" if context.chapter is None else f"ch{context.chapter:02d}")
        result = pandoc.build_pdf(src, context.out, chapter=context.chapter,
                                  keep_tex=context.options.get("keep_tex"),
                                  aux_dir=aux_dir, info=resolved.editions[edition].info)
        return OutputReport(self.name, written=[result.output],
                            details={"result": result})


class EpubOutput(_BookOutput):
    name = "epub"

    def write(self, resolved: ResolvedBook, context: OutputContext) -> OutputReport:
        from bookkit.render.pandoc import convert as pandoc
        (edition,) = resolved.outputs
        src = self.sources(resolved, context)
        result = pandoc.build_epub(src, context.out, chapter=context.chapter,
                                   check=context.options.get("check", True),
                                   info=resolved.editions[edition].info)
        return OutputReport(self.name, written=[result.output],
                            details={"result": result})
