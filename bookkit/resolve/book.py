"""The resolve stage as one step: a loaded `Book` in, a `ResolvedBook` out.

`Resolver` runs the original's calculation cells, parses and numbers every edition's chapters,
and draws (or takes from the cache) the figures. It keeps the parsed chapters and drawn
figures in memory, so that `--serve` re-resolves only what changed.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Callable

from ..cache import Cache, sha256_bytes
from ..load import read_book_config
from ..markdown import parse
from ..model import (Book, BuildError, CellResults, ChapterSource, EditionInfo, Label, ResolvedBook,
                     ResolvedChapter, ResolvedEdition)
from .cells import resolve_cells
from .figures import FigureTask, figure_words, resolve_figures, script_inputs, svg_size
from .numbering import number_chapter
from .scenarios import resolve_variants

#: Given an edition's chapter, its labels and values, the function that turns a heading's or
#: caption's inline token into its plain title (bound numbers formatted as readers see them).
#: The pipeline supplies it from the renderer, so this stage does not depend on one.
TitleText = Callable[[ChapterSource, EditionInfo, dict, dict], Callable]


class Resolver:
    def __init__(self, root: Path, cache: Cache, workers: int = 2, cell_timeout: float = 60.0,
                 log: Callable[[str], None] = lambda message: None) -> None:
        self.root = root
        self.cache = cache
        self.workers = workers
        self.cell_timeout = cell_timeout
        self.log = log
        self._parsed: dict[str, tuple[str, list, dict]] = {}   # path -> (sha, tokens, env)
        self._figure_memo: dict[tuple, tuple] = {}  # its format keys -> (deps, FigureImage)
        # What the last resolve actually executed (not served from cache); tests read it.
        self.executed_cells: list[int] = []
        self.drawn_figures: list[str] = []
        self.cell_deps: dict[int, dict] = {}      # chapter -> {relative path: sha256}
        self.figure_deps: dict[str, dict] = {}    # "figure|lang" -> {relative path: sha256}

    def parsed(self, chapter: ChapterSource) -> tuple[str, list, dict]:
        """(sha256 of the text, tokens, env): parsed once while the file is unchanged."""
        digest = sha256_bytes(chapter.text.encode())
        hit = self._parsed.get(str(chapter.path))
        if hit and hit[0] == digest:
            return hit
        tokens, env = parse(chapter.text)
        self._parsed[str(chapter.path)] = (digest, tokens, env)
        return self._parsed[str(chapter.path)]

    def run_cells(self, book: Book) -> dict[int, CellResults]:
        """Every chapter's calc cells (cached), in worker processes: {chapter number: cells}."""
        parsed_tokens = {c.path: self.parsed(c)[1] for c in book.original.chapters}
        cells = resolve_cells(book.original.chapters, self.root, self.cache, self.workers,
                              self.cell_timeout, parsed_tokens)
        # The what-if variants rerun the cells the scenarios' `choose` calls declared.
        resolve_variants(book.original.chapters, cells, self.root, self.cache, self.workers,
                         self.cell_timeout, parsed_tokens, None)
        self.executed_cells = sorted(n for n, c in cells.items() if c.executed)
        self.cell_deps = {n: c.deps for n, c in cells.items()}
        return cells

    def start(self, book: Book, cells: dict[int, CellResults],
              outputs: list[str] | None = None) -> ResolvedBook:
        """A resolved book with no edition numbered yet; outputs are made for `outputs`
        (default: every loaded edition)."""
        return ResolvedBook(
            book=book, config=book.config or read_book_config(book.root), cells=cells,
            chapter_files={c.path.name: c.slug for c in book.original.chapters},
            outputs=[k for k in book.editions if not outputs or k in outputs])

    def number_edition(self, book: Book, key: str, cells: dict[int, CellResults],
                       title_text: TitleText) -> ResolvedEdition:
        """Parse and number an edition's chapters; collect its labels."""
        edition = book.editions[key]
        labels: dict[str, Label] = {}
        chapters = []
        for chapter in edition.chapters:
            digest, tokens, env = self.parsed(chapter)
            values = cells[chapter.number].values
            # Unknown names in titles are reported by the render pass, with file:line.
            outline = number_chapter(chapter, tokens, labels,
                                     title_text(chapter, edition.info, labels, values))
            chapters.append(ResolvedChapter(source=chapter, digest=digest, tokens=tokens,
                                            env=env, values=values, outline=outline,
                                            scenarios=cells[chapter.number].scenarios))
        return ResolvedEdition(info=edition.info, chapters=chapters, labels=labels,
                               labels_digest=_digest(sorted(labels.items())))

    def figure_tasks(self, resolved: ResolvedBook) -> list[FigureTask]:
        figures_root = resolved.book.original.info.folder   # figure scripts live with the original
        registry = resolved.book.registry
        memo: dict = {}
        tasks = []
        for edition in resolved.editions.values():
            # its words: its own figures.yml, its fallbacks', then the original's
            folders, spec = [], edition.info.spec
            while spec is not None:
                folders.append(self.root / spec.dir)
                spec = registry.by_id(spec.fallback) if spec.fallback else None
            if figures_root not in folders:
                folders.append(figures_root)
            for chapter in edition.chapters:
                for fid, src, line in chapter.outline.figures:
                    script = figures_root / src
                    task = FigureTask(fid, script, edition.info.lang, str(chapter.source.path),
                                      line, edition.info.spec.langs,
                                      figure_words(script.stem, folders, memo),
                                      edition.info.spec.number_lang)
                    tasks.extend(_with_inputs(task, chapter))
        return tasks

    def draw_figures(self, resolved: ResolvedBook, formats: tuple[str, ...] = ("svg",)) -> None:
        """Draw (or take from the cache) every figure image of the resolved editions. The site
        needs SVG only; the Pandoc export asks for PDF too."""
        self.drawn_figures, self.figure_deps = [], {}
        tasks = self.figure_tasks(resolved)
        resolved.figure_variants = {}
        for task in tasks:
            if task.variant_of:
                fid, scenario, combo = task.variant_of
                resolved.figure_variants.setdefault((fid, task.lang), []).append(
                    (scenario, combo, task.figure_id))
        figures = resolve_figures(tasks, self.root, self.cache,
                                  self.root / "build" / "figures", self.workers,
                                  self.cell_timeout, progress=self.log,
                                  drawn=self.drawn_figures, deps_out=self.figure_deps,
                                  memo=self._figure_memo, formats=formats)
        resolved.figures = figures
        resolved.figure_sizes = {k: svg_size(_head(v.svg)) for k, v in figures.items()}

    def resolve(self, book: Book, title_text: TitleText,
                figures: tuple[str, ...] = ("svg", "pdf")) -> ResolvedBook:
        """The whole stage: cells, every loaded edition numbered, and the figures in `figures`
        formats (none: the text only, as the translation check reads it)."""
        cells = self.run_cells(book)
        resolved = self.start(book, cells)
        for key in book.editions:
            resolved.editions[key] = self.number_edition(book, key, cells, title_text)
        if figures:
            self.draw_figures(resolved, formats=figures)
        self.cache.flush()
        return resolved


def _head(path: Path, size: int = 600) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(size)


def _digest(obj) -> str:
    return hashlib.sha256(repr(obj).encode()).hexdigest()


def _with_inputs(task: FigureTask, chapter) -> list[FigureTask]:
    """The task with the chapter's values its script names in `INPUTS`, and one more task per
    what-if combination that changes one of them (drawn at build time; the page loads the
    variant's SVG only when the reader picks it)."""
    import dataclasses
    import hashlib
    names = script_inputs(task.script) if task.script.is_file() else ()
    if not names:
        return [task]
    missing = [n for n in names if n not in chapter.values]
    if missing:
        raise BuildError(task.source, task.line, f"figure {task.figure_id}: INPUTS names "
                         f"{', '.join(missing)}, not computed by this chapter's cells",
                         "assign them in a calc cell of the original chapter before the figure")
    book = {n: chapter.values[n].value for n in names}
    out = [dataclasses.replace(task, inputs=book)]
    for name, scenario in sorted((chapter.scenarios or {}).items()):
        for combo in scenario.combinations():
            changed = scenario.variants.get(combo, {})
            if combo == scenario.book or not changed.keys() & set(names):
                continue
            inputs = {n: (changed[n].value if n in changed else book[n]) for n in names}
            tag = hashlib.sha256(repr((name, combo)).encode()).hexdigest()[:8]
            out.append(dataclasses.replace(task, figure_id=f"{task.figure_id}.v{tag}",
                                           inputs=inputs,
                                           variant_of=(task.figure_id, name, combo)))
    return out
