"""Typed data passed between the pipeline's stages.

load   -> Book (editions of ChapterSource)
resolve-> CellResults (per original chapter), Labels (per edition), FigureImage (per edition)
render -> files on disk (site, search, pandoc sources)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .editions import EditionSpec, Registry


class BuildError(Exception):
    """A problem in the sources, reported as `file:line: message` and a non-zero exit."""

    def __init__(self, path: Path | str | None, line: int | None, message: str, hint: str = ""):
        self.path = str(path) if path else None
        self.line = line
        self.message = message
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        where = ""
        if self.path:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        text = f"{where}{self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text


@dataclass(frozen=True)
class EditionInfo:
    key: str            # "zh", "en", "zh-tw": folder-independent name used on the command line
    lang: str           # BCP 47: "zh-Hans", "en", "zh-Hant"
    folder: Path        # manuscripts/, book-en/, book-zh-tw/
    url_prefix: str     # "" for the original at the site root, "en/", "zh-tw/"
    title: str
    subtitle: str
    author: str
    strings: dict       # interface strings (labels, buttons, captions' prefixes)
    is_original: bool
    spec: EditionSpec   # its entry in the edition registry (switcher name, og:locale, fallbacks)


@dataclass(frozen=True)
class ChapterSource:
    edition: str        # edition key
    number: int         # 0 for the preface, 1..12 for chapters
    slug: str
    path: Path
    text: str


@dataclass
class Edition:
    info: EditionInfo
    chapters: list[ChapterSource]


@dataclass
class Book:
    root: Path
    editions: dict[str, Edition]        # key -> Edition, in display order (original first)
    registry: Registry                  # every edition of the book, loaded or not

    @property
    def original(self) -> Edition:
        return next(e for e in self.editions.values() if e.info.is_original)


@dataclass(frozen=True)
class BoundValue:
    """A value computed by a calculation cell, with how it was computed."""

    name: str
    value: object
    expression: str                     # the source of the assignment's right-hand side
    inputs: tuple[tuple[str, str], ...]  # (name, rendered value) of the names the expression used
    path: str
    line: int

    def provenance(self) -> str:
        text = f"{self.name} = {self.expression}"
        if self.inputs:
            text += "; " + ", ".join(f"{k} = {v}" for k, v in self.inputs)
        return text


@dataclass
class CellResults:
    """The namespace a chapter's calculation cells produced, shared by all editions."""

    chapter: int
    values: dict[str, BoundValue] = field(default_factory=dict)
    deps: dict[str, str] = field(default_factory=dict)          # file -> sha256, for the cache
    executed: bool = False                                      # False when served from cache
    # What-if scenarios the cells declared (`bookkit.resolve.scenarios.Scenario` by name),
    # with each variant's changed values once they ran.
    scenarios: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Label:
    """A numbered, referenceable thing: a section, figure, table or equation."""

    id: str
    kind: str            # "chapter", "section", "figure", "table", "equation"
    number: str          # "1", "1.2", "1-2", "1.3"
    slug: str            # page that holds it
    title: str           # heading text or caption (without the number)


@dataclass(frozen=True)
class FigureImage:
    figure_id: str
    lang: str
    svg: Path
    pdf: Path | None         # drawn only when a PDF is built (the site needs only SVG)
    texts: tuple[str, ...]   # every text drawn, for tests and the search index
    site_svg: Path | None = None   # the SVG the site ships: its greys follow the page's theme
