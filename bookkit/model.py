"""Typed data passed between the pipeline's stages, and the two types every stage reports with.

load    -> BookConfig (manuscripts/book.yml), Book (editions of ChapterSource)
resolve -> ResolvedBook: CellResults (per original chapter); per edition its ResolvedChapters
           (numbered tokens, bound values, ChapterOutline) and Labels; FigureImages
render  -> files on disk (site, search index, Pandoc sources -> PDF, EPUB)
check   -> Finding

A problem in the sources stops a stage with a `BuildError`; a check reports a `Finding`.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # the record type only; model.py imports nothing of the pipeline at run time
    from bookkit.locale.languages import Language


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


#: Where the book's config is read from: the original's usual folder. The original's own folder
#: (`dir` of the first edition) and language come from the config, not from this path.
CONFIG_DIR = "manuscripts"
BOOK_CONFIG = f"{CONFIG_DIR}/book.yml"


@dataclass(frozen=True)
class EditionSpec:
    """One edition as declared in book.yml, with what its fallbacks resolve to."""

    id: str
    dir: str               # folder under the book root: "manuscripts", "book-en"
    lang: str              # BCP 47: "zh-Hans", "en", "en-GB"
    path: str              # URL folder, "" for the site root
    fallback: str | None   # id of the edition it inherits from
    name: str              # the language's own name, in the language switcher
    locale: str            # og:locale, "en_US"
    out: str               # folder of its PDF and EPUB
    file_stem: str         # "AI-Infra-Book-EN": its PDF/EPUB file name without suffix
    is_original: bool
    langs: tuple[str, ...]  # its lang, then its fallbacks' langs, nearest first
    # The record of its language (bookkit/locale/languages.py), or of the nearest fallback's
    # when its own tag has none: fonts, number conventions, search tokeniser, CJK typography.
    language: "Language"
    original_dir: str      # folder of the original (the first edition): its images are shared
    line: int              # of its entry in book.yml, for messages

    @property
    def trusted(self) -> bool:
        """The trust boundary, decided here and nowhere else: the original's folder (with its
        figure scripts and calc cells) and `calculations/` are the author's code; every other
        edition's folder is a contributor's text, checked by `bookkit.source.trust` before it is
        rendered (no raw HTML but the anchor forms, no raw TeX, no figure of its own)."""
        return self.is_original

    @property
    def url_prefix(self) -> str:
        """"" for the site root, "en/" for a folder."""
        return f"{self.path}/" if self.path else ""

    @property
    def pdf_name(self) -> str:
        return self.file_stem + ".pdf"

    @property
    def epub_name(self) -> str:
        return self.file_stem + ".epub"

    @property
    def number_lang(self) -> str:
        """The tag whose number conventions it prints in (its language record's)."""
        return self.language.tag

    @property
    def is_cjk(self) -> bool:
        """Set with CJK typography (xeCJK, CJK quotes and indents in the PDF)."""
        return self.language.cjk

    @property
    def is_traditional_chinese(self) -> bool:
        """Written in Traditional characters (a leftover Simplified character is a mistake)."""
        return self.language.script == "Hant"

    def inherited(self, available: Collection[str]) -> str | None:
        """The nearest of its languages (its own, then its fallbacks') that `available` has."""
        return next((lang for lang in self.langs if lang in available), None)


@dataclass(frozen=True)
class Registry:
    """The book's editions in display order; the original first."""

    editions: tuple[EditionSpec, ...]
    config: Path           # the book.yml they were read from

    def __iter__(self) -> Iterator[EditionSpec]:
        return iter(self.editions)

    def __len__(self) -> int:
        return len(self.editions)

    @property
    def ids(self) -> list[str]:
        return [e.id for e in self.editions]

    @property
    def original(self) -> EditionSpec:
        return self.editions[0]

    @property
    def translations(self) -> list[EditionSpec]:
        return [e for e in self.editions if not e.is_original]

    def by_id(self, edition_id: str) -> EditionSpec:
        for e in self.editions:
            if e.id == edition_id:
                return e
        raise BuildError(self.config, None, f"unknown edition `{edition_id}`",
                         "use one of: " + ", ".join(self.ids))

    def by_dir(self, folder: str) -> EditionSpec | None:
        """The edition whose folder (or PDF/EPUB folder) is `folder`, if any."""
        return next((e for e in self.editions if folder in (e.dir, e.out)), None)

    def chain(self, edition_id: str) -> list[EditionSpec]:
        """The edition, then its fallback, and so on."""
        out = [self.by_id(edition_id)]
        while out[-1].fallback:
            out.append(self.by_id(out[-1].fallback))
        return out

    def inherit(self, edition_id: str, available: Collection[str], what: str) -> str:
        """The language whose `what` (an entry of `available`) the edition uses; a BuildError
        naming its book.yml line when neither it nor any fallback has one."""
        spec = self.by_id(edition_id)
        found = spec.inherited(available)
        if found is None:
            raise BuildError(self.config, spec.line,
                             f"edition `{spec.id}` (lang {spec.lang}) has no {what}",
                             f"add `fallback: <id>` naming an edition that has, or add {what} "
                             f"for {spec.lang} (known: {', '.join(sorted(available))})")
        return found




@dataclass(frozen=True)
class BookConfig:
    """`manuscripts/book.yml`, read once by `bookkit.load.config.read_book_config`."""

    path: Path
    site_url: str                                 # absolute, ends with "/"
    release_url: str                              # ends with "/"
    data: dict                                    # the whole mapping, for keys read elsewhere
    # Its `chapters:` and `editions:` lists, validated when first asked for (each invalid one a
    # BuildError at book.yml:line): a tool that needs only the site's address or only the
    # editions is not stopped by a mistake in the other list.
    read_chapters: Callable[[], tuple[tuple[int, str, str], ...]] = field(repr=False,
                                                                          compare=False)
    read_registry: Callable[[], Registry] = field(repr=False, compare=False)

    @property
    def chapters(self) -> tuple[tuple[int, str, str], ...]:
        """(number, file name, slug), in reading order."""
        return self.read_chapters()

    @property
    def registry(self) -> Registry:
        """The book's editions (bookkit/load/editions.py)."""
        return self.read_registry()


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
    # The book's repository (book.yml `repo_url`, `repo_branch`, `errata_url`), read once by the
    # load stage: {"repo": URL, "branch": name, "errata": issues page} (`source.links.repo_settings`)
    repo: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ChapterSource:
    edition: str        # edition key
    number: int         # 0 for the preface, 1..12 for chapters
    slug: str
    path: Path
    text: str
    # The edition has no file for this chapter: `path` and `text` are the original's, shown
    # with a notice in the edition's language (`bookkit.load.config`, `bookkit.resolve.book`).
    untranslated: bool = False


@dataclass
class Edition:
    info: EditionInfo
    chapters: list[ChapterSource]


@dataclass
class Book:
    root: Path
    editions: dict[str, Edition]        # key -> Edition, in display order (original first)
    config: BookConfig                  # book.yml: the chapter plan and the edition registry

    @property
    def registry(self) -> Registry:
        """Every edition of the book, loaded or not."""
        return self.config.registry

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
    # What-if scenarios the cells declared (`Scenario` by name),
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
    description: str = ""    # text alternative from the script's `describe(t)` (long description)
    bound: tuple = ()        # numbers drawn through `t.num`: {text, name, spec, value, expr}
    size: tuple[int, int] = (640, 360)   # CSS pixels, from the SVG's own width and height


class TokenMeta:
    """Keys the parser (`bookkit.source.markdown`) and numbering (`bookkit.resolve.numbering`) store in
    a markdown-it token's `meta`; every renderer reads them by these names. Ids go in the
    token's `id` attribute."""

    NUMBER = "number"                  # "3", "3.1", "3-2", "3.4" on headings, figures, tables, eqs
    FIGURE_ID = "figure_id"            # on the paragraph that holds an executable figure
    TABLE_CAPTION = "table_caption"    # on the `: caption` paragraph after a table
    TABLE_ID = "table_id"              # on that paragraph and on its table_open
    EQUATION_ID = "equation_id"        # on a labelled display formula (math_block_label)


@dataclass
class ChapterOutline:
    """What numbering learned about one chapter: its title, TOC and figure jobs."""

    chapter: ChapterSource
    title: str = ""
    title_id: str = ""
    sections: list[tuple[int, str, str, str]] = field(default_factory=list)  # level, id, number, title
    figures: list[tuple[str, str, int]] = field(default_factory=list)       # id, script src, line


def label_text(label: Label, strings: dict) -> str:
    """The localised reference text: `图 1-2`, `Figure 1-2`, `1.2 节`, `Chapter 3`."""
    if label.kind == "chapter":
        return strings["chapter"].format(n=label.number) if label.number else strings["preface"]
    key = {"section": "section", "figure": "figure", "table": "table",
           "equation": "equation"}[label.kind]
    if label.kind == "section" and not label.number:
        return label.title
    return strings[key].format(n=label.number)


@dataclass
class ResolvedChapter:
    """One chapter of one edition after the resolve stage."""

    source: ChapterSource
    digest: str                          # sha256 of the source text (renderers' memo keys)
    tokens: list[Any]                    # markdown-it tokens, numbered (see TokenMeta)
    env: dict                            # the parser's env (footnotes)
    values: dict[str, BoundValue]        # the names its {{ }} may use (its original's cells)
    outline: ChapterOutline
    scenarios: dict = field(default_factory=dict)   # its original's what-if scenarios by name


@dataclass
class ResolvedEdition:
    info: EditionInfo
    chapters: list[ResolvedChapter]
    labels: dict[str, Label]             # every cross-reference target of the edition
    labels_digest: str

    def chapter(self, number: int) -> ResolvedChapter:
        return next(c for c in self.chapters if c.source.number == number)


@dataclass
class ResolvedBook:
    """The product of the resolve stage, consumed by every output (site, search, Pandoc)."""

    book: Book
    config: BookConfig
    cells: dict[int, CellResults]                         # original chapter number -> its cells
    chapter_files: dict[str, str]                         # "03-x.md" -> its slug (links)
    # The editions the outputs are made for, in display order. Every loaded edition is
    # resolved (the original always is: the translations take their numbers from its cells).
    outputs: list[str] = field(default_factory=list)
    editions: dict[str, ResolvedEdition] = field(default_factory=dict)
    figures: dict[tuple[str, str], FigureImage] = field(default_factory=dict)  # (id, lang)
    figure_sizes: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)
    # (figure id, lang) -> [(scenario, combination, the variant's figure id)]: a diagram drawn
    # again for each what-if combination that changes its INPUTS (its images in `figures`)
    figure_variants: dict[tuple[str, str], list] = field(default_factory=dict)


@dataclass(frozen=True)
class Choice:
    """One choice of a what-if scenario, as `choose(scenario, key, options)` declared it."""

    key: str                        # "model", "accelerator", "context", "batch", "precision"…
    options: tuple                  # ids or numbers, the book's value among them
    default: object
    labels: tuple                   # display name per option, or None: formatted per edition
    line: int                       # where `choose` was called


@dataclass
class Scenario:
    """A what-if scenario a chapter's cells declared (`bookkit.resolve.scenarios` runs its
    variants; `bookkit.render.site.whatif_data` formats them per edition)."""

    name: str
    path: str
    line: int
    choices: tuple = ()
    excluded: tuple = ()            # tuples of (key, value) pairs, each a partial combination
    variants: dict = field(default_factory=dict)   # combination -> {name: BoundValue} changed
    digest: str = ""                                 # of `variants`, for the render memo

    @property
    def keys(self) -> tuple:
        return tuple(c.key for c in self.choices)

    @property
    def book(self) -> tuple:
        return tuple(c.default for c in self.choices)

    def combinations(self) -> list[tuple]:
        # asked for every figure of the chapter at every build (`_with_inputs`): remembered
        # for the choices and exclusions it was computed from
        memo = self.__dict__.get("_combinations")
        if memo is not None and memo[0] == (self.choices, self.excluded):
            return list(memo[1])
        out = []
        for combo in itertools.product(*(c.options for c in self.choices)):
            chosen = dict(zip(self.keys, combo))
            if any(all(chosen.get(k) == v for k, v in ex) for ex in self.excluded):
                continue
            out.append(combo)
        self.__dict__["_combinations"] = ((self.choices, self.excluded), tuple(out))
        return out

    def describe(self, combo: tuple) -> str:
        return ", ".join(f"{k}={v}" for k, v in zip(self.keys, combo))
