"""The book's outputs behind one small interface, and the one registry of them.

Every output takes the `ResolvedBook` and an `OutputContext`, makes its files and says what it
made in an `OutputReport`. Outputs written into the site tree (`target = "site"`: the pages,
the search indexes, `llms.txt`) hand their files to the build, which writes the whole tree
atomically (`bookkit.pipeline.write`); book files (`target = "book"`: PDF, EPUB) are written by the
output itself, each replaced only when it was built completely.

`OUTPUTS` is the registry: `build`, `pdf`, `epub`, the validator and `--serve` ask it which
outputs there are, what each needs from the resolve stage (which figure formats, KaTeX) and
which folders feed it. A new output is one module and one line here (see CONTRIBUTING, "A new
output format").

Entries are `module:Class` names imported on first use: the no-op build and `check` must not
pay for importing Pandoc's or the site's renderer.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol, runtime_checkable

from bookkit.util.cache import Cache
from bookkit.model import ResolvedBook


@dataclass(frozen=True)
class Needs:
    """What an output needs from the resolve stage besides the numbered text."""
    figures: tuple[str, ...] = ()    # image formats of the drawn figures ("svg", "pdf")
    math: bool = False               # formulas rendered by KaTeX


@dataclass
class OutputContext:
    root: Path
    cache: Cache
    site: object | None = None       # `render.site.SiteConfig` (URLs, commit), site outputs
    out: Path | None = None          # the book file to write, book outputs
    work: Path | None = None         # where a book output keeps its intermediate sources
    chapter: int | None = None       # one chapter only (proofreading), book outputs
    options: dict = field(default_factory=dict)   # output-specific (keep_tex, check, ...)
    log: Callable[[str], None] = lambda message: None


@dataclass
class OutputReport:
    name: str
    files: dict[str, bytes] = field(default_factory=dict)   # site path -> bytes (site outputs)
    written: list[Path] = field(default_factory=list)       # files written (book outputs)
    pages: int = 0
    details: dict = field(default_factory=dict)             # e.g. a PDF's pages and runs


@runtime_checkable
class Output(Protocol):
    name: str                 # the registry key, and the command for a book output
    target: str               # "site" (files into the site tree) or "book" (one file)
    needs: Needs
    watch: tuple[str, ...]    # folders (from the book root) whose change `--serve` rebuilds for
    files: tuple[str, ...]    # what it puts in every edition's root (the validator checks them)

    def write(self, resolved: ResolvedBook, context: OutputContext) -> OutputReport: ...


# The registry, in the order the site's files are put together. One line per output.
OUTPUTS: dict[str, str] = {
    "site": "bookkit.render.site.output:SiteOutput",
    "search": "bookkit.render.site.output:SearchOutput",
    "llms": "bookkit.render.llms:LlmsOutput",
    "pdf": "bookkit.render.pandoc.output:PdfOutput",
    "epub": "bookkit.render.pandoc.output:EpubOutput",
}


def output_class(name: str) -> type:
    module, _, cls = OUTPUTS[name].partition(":")
    return getattr(importlib.import_module(module), cls)


def make(name: str, root: Path, cache: Cache) -> Output:
    """A new instance of the output `name` (each keeps its own memo for `--serve`)."""
    return output_class(name)(root, cache)


def names(target: str | None = None) -> list[str]:
    """The registered outputs (of one target), in registry order."""
    return [n for n in OUTPUTS if target is None or output_class(n).target == target]


def site_outputs(root: Path, cache: Cache) -> dict[str, Output]:
    return {n: make(n, root, cache) for n in names("site")}


def figure_formats(outputs) -> tuple[str, ...]:
    """The figure formats the given outputs need together, in a stable order."""
    wanted = {f for o in outputs for f in o.needs.figures}
    return tuple(f for f in ("svg", "pdf") if f in wanted)


def watched(target: str = "site") -> tuple[str, ...]:
    """The folders the outputs of `target` read besides the book's text (for `--serve`)."""
    out: list[str] = []
    for n in names(target):
        out += [w for w in output_class(n).watch if w not in out]
    return tuple(out)
