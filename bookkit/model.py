"""Typed data passed between the pipeline's stages, and the two types every stage reports with.

load    -> BookConfig (manuscripts/book.yml), Book (editions of ChapterSource)
resolve -> CellResults (per original chapter), Label (per edition), FigureImage (per edition)
render  -> files on disk (site, search, Pandoc sources)
check   -> Finding

A problem in the sources stops a stage with a `BuildError`; a check reports a `Finding`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


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


ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITIES = (ERROR, WARNING, INFO)


@dataclass(frozen=True)
class Finding:
    """One problem a check found, printed `where: kind: message`.

    `where` is what a reader looks up: `path:line` in a source file, `page#id` in the built site
    (the section the problem is in), or a file under the site (`sitemap.xml`). `line` is the
    1-based line in that file, when known. `error` fails a check run, `warning` only with
    `--strict`, `info` is a listing.
    """

    kind: str
    where: str
    message: str
    severity: str = ERROR
    line: int | None = None

    def __post_init__(self):
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")

    @property
    def file(self) -> str:
        """The file part of `where` (without `:line` or `#id`)."""
        where = self.where.split("#", 1)[0]
        head, sep, tail = where.rpartition(":")
        return head if sep and tail.isdigit() else where

    @property
    def detail(self) -> str:
        return self.message

    def text(self) -> str:
        return f"{self.where}: {self.kind}: {self.message}"

    def to_dict(self) -> dict:
        # The JSON report's keys predate this type (CI reads `detail`); they stay as they were.
        return {"kind": self.kind, "where": self.where, "detail": self.message,
                "severity": self.severity, "line": self.line}

    @classmethod
    def from_error(cls, error: "BuildError", root: Path, kind: str = "build-error",
                   note: str = "") -> "Finding":
        """A stage's `BuildError` as a finding at its file:line (relative to the book root)."""
        path = error.path or BOOK_CONFIG
        try:
            path = Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
        except ValueError:
            pass
        line = error.line or 1
        message = error.message + (f" ({error.hint})" if error.hint else "") + note
        return cls(kind, f"{path}:{line}", message, ERROR, line)


BOOK_CONFIG = "manuscripts/book.yml"


@dataclass(frozen=True)
class BookConfig:
    """`manuscripts/book.yml`, read once by `bookkit.load.read_book_config`."""

    path: Path
    chapters: tuple[tuple[int, str, str], ...]    # (number, file name, slug), in reading order
    site_url: str                                 # absolute, ends with "/"
    release_url: str                              # ends with "/"
    data: dict                                    # the whole mapping, for keys read elsewhere


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
    config: BookConfig | None = None

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
