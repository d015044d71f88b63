"""Resolve one edition for the Pandoc outputs (load and resolve only:
`bookkit.pipeline.build.resolve_book`, no site renderer) and write its Pandoc sources
(`bookkit.render.pandoc.sources`); the commands are `bookkit/cli/export.py` and
`bookkit/cli/book.py` (PDF and EPUB through the output registry, `bookkit.render.outputs`). `resolved_markdown` gives the translation check the chapters with
their numbers as rendered.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

from bookkit.pipeline.build import resolve_book
from bookkit.util.cache import Cache
from bookkit.load.config import load_book, untranslated_warnings
from bookkit.model import ResolvedBook
from bookkit.render import outputs as registry
from bookkit.render.pandoc import sources as pandoc_sources
from bookkit.resolve.book import Resolver

ROOT = Path(__file__).resolve().parents[2]


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def resolve_edition(edition: str, root: Path = ROOT, strict: bool = False, warn=None,
                    builder=None) -> ResolvedBook:
    """The book resolved for one edition's PDF or EPUB (figures drawn as SVG and PDF). A
    chapter the edition lacks is the original's with a notice (`warn` is told), or, with
    `strict`, a BuildError; an unknown edition is a BuildError. `builder`: a
    `bookkit.pipeline.build.Builder` whose resolver (and its memo) to use, and whose root and
    `strict` then apply."""
    root, resolver = (builder.root, builder.resolver) if builder else (Path(root).resolve(), None)
    strict = builder.opt.strict if builder else strict
    book = load_book(root, [edition], strict=strict)
    for warning in untranslated_warnings(book, root) if warn else ():
        if warning.startswith(book.editions[edition].info.folder.name + "/"):
            warn(warning)
    figures = registry.figure_formats([registry.output_class("pdf"),
                                       registry.output_class("epub")])
    if resolver is None:
        resolver = Resolver(root, Cache(root / ".cache" / "bookkit", base=root))
    return resolver.resolve(book, figures, [edition])


def _stamp() -> dict:
    """The date and version printed in the book: the last commit's."""
    return {"date": _git("log", "-1", "--format=%cs") or "2026-01-01",
            "version": _git("rev-parse", "--short", "HEAD") or "dev"}


def export_edition(edition: str, out_dir: Path, chapter: int | None = None,
                   builder=None, warn=None) -> Path:
    """Write the edition's resolved Pandoc sources into out_dir; returns out_dir (see
    `resolve_edition` for `builder` and `warn`)."""
    resolved = resolve_edition(edition, warn=warn, builder=builder)
    return pandoc_sources.write_sources(resolved, edition, out_dir, chapter, **_stamp())


def resolved_markdown(root: Path = ROOT, builder=None) -> dict:
    """{(edition, file name): text} with bound numbers substituted and nothing else changed.

    Line numbers stay those of the author's file, so a checker can report `file:line`. No
    figure is drawn: the text does not need them. Load and resolve only (no renderer,
    minifier or search indexer); `builder`: a `bookkit.pipeline.build.Builder` whose resolver to use.
    """
    if builder is not None:
        resolved = builder.resolver.resolve(load_book(builder.root), ())
    else:
        resolved = resolve_book(root, figures=())
    return {(key, name): text for key in resolved.editions
            for name, text in pandoc_sources.substituted_text(resolved, key).items()}
