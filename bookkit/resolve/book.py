"""The resolve stage as one step: a loaded `Book` in, a `ResolvedBook` out.

`Resolver` runs the original's calculation cells, parses and numbers every edition's chapters,
and draws (or takes from the cache) the figures. It keeps the parsed chapters and drawn
figures in memory, so that `--serve` re-resolves only what changed.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path
from typing import Callable, Collection

from bookkit.util.cache import Cache, key_of, sha256_bytes
from bookkit.load.config import read_book_config
from bookkit.source.markdown import parse, parser_digest
from bookkit.source import trust
from bookkit.locale.text import title_text
from bookkit.model import (Book, BuildError, CellResults, ChapterSource, EditionInfo,
                            FigureImage, Label, ResolvedBook, ResolvedChapter, ResolvedEdition)
from bookkit.resolve.cells import resolve_cells
from bookkit.locale.languages import LANGUAGES
from bookkit.resolve.workers import KeptWorkers
from bookkit.resolve.figures import (EarlyDrawing, FigureTask, figure_words,
                                     figure_words_folders, load_figure_words, resolve_figures,
                                     script_inputs)
from bookkit.resolve.numbering import number_chapter
from bookkit.resolve.scenarios import resolve_variants

#: Given an edition's chapter, its labels and values, the function that turns a heading's or
#: caption's inline token into its plain title (bound numbers formatted as readers see them).
#: The pipeline supplies it from the renderer, so this stage does not depend on one.


def output_editions(book: Book, editions: list[str] | None) -> list[str]:
    """The editions a build makes outputs for: `editions` (all when none), in display order."""
    return [k for k in book.editions if not editions or k in editions]


class Resolver:
    def __init__(self, root: Path, cache: Cache, workers: int = 2, cell_timeout: float = 60.0,
                 log: Callable[[str], None] = lambda message: None) -> None:
        self.root = root
        self.cache = cache
        self.workers = workers
        self.cell_timeout = cell_timeout
        self.log = log
        self._parsed: dict[str, tuple[str, list, dict]] = {}   # path -> (sha, tokens, env)
        self._parsed_text: dict[str, str] = {}                   # path -> the text parsed
        # `--serve` (`defer_stores`): chapters parsed again after an edit, stored in the cache
        # when the server is idle (`store_parsed`) instead of during the rebuild
        self.defer_stores = False
        # `--serve`: the drawing processes outlive a build (`KeptWorkers`); None: each build
        # forks its own
        self.kept_workers: KeptWorkers | None = None
        # `--serve`: a saved figure script's drawing started at the top of the next build
        self.early_drawing: EarlyDrawing | None = None
        self._unstored: dict[str, tuple[str, str, str]] = {}   # path -> (slot, sha, text)
        # A first build's forked search indexer stores these editions' parses (`store_in_fork`):
        # pickling the tokens for the cache was ~0.1 s of a one-second cold build, and the
        # fork has them as the parser left them (numbering writes into the tokens later).
        self.parses_stored_by_fork: frozenset[str] = frozenset()
        self._left_to_fork: dict[str, str] = {}   # memo key -> its cache slot, not yet stored
        self._figure_memo: dict[tuple, tuple] = {}  # its format keys -> (deps, FigureImage)
        # (edition, chapter path) -> (what its figure tasks were made of, the tasks)
        self._tasks_memo: dict[tuple[str, str], tuple] = {}
        # (chapter paths, their tokens, {file: digest} read, results) of the last `run_cells`
        self._cells_memo: tuple | None = None
        self._last_images: dict[tuple, FigureImage] = {}   # (figure, lang) -> its last image
        self._trusted_memo: dict[str, tuple] = {}   # chapter path -> (its inputs, its problems)
        self._numbered: dict[str, tuple] = {}       # edition -> (its inputs, ResolvedEdition)
        self._math_of: dict[str, tuple] = {}        # original chapter -> (digest, math commands)
        # What the last resolve actually executed (not served from cache); tests read it.
        self.executed_cells: list[int] = []
        self.drawn_figures: list[str] = []
        self.deferred_figures: list[str] = []     # "figure|lang" left with its last image
        self.cell_deps: dict[int, dict] = {}      # chapter -> {relative path: sha256}
        self.figure_deps: dict[str, dict] = {}    # "figure|lang" -> {relative path: sha256}

    def parsed(self, chapter: ChapterSource) -> tuple[str, list, dict]:
        """(sha256 of the text, tokens, env): parsed once while the file is unchanged."""
        # An untranslated chapter is the original's file parsed again for the translation:
        # numbering writes into the tokens, and the translation's get a notice.
        key = f"{chapter.edition}:{chapter.path}" if chapter.untranslated else str(chapter.path)
        hit = self._parsed.get(key)
        # the same text is found by comparing it (a memcmp), not hashing it: ~140 lookups a
        # build hashed 13 MB
        if hit and self._parsed_text.get(key) == chapter.text:
            return hit
        digest = sha256_bytes(chapter.text.encode())
        if hit and hit[0] == digest:
            self._parsed_text[key] = chapter.text
            return hit
        # A new process reads the parse from the cache: parsing the book's 39 chapters was
        # 40 % of a build after a one-paragraph edit, and unpickling a chapter's tokens takes
        # about 0.4x the time of parsing it. One entry per chapter file, replaced when its text
        # changes, so a --serve session's saves do not pile up in the cache.
        slot = key_of("parsed", parser_digest(), key)
        if hit and self.defer_stores:
            # An edit under --serve: the slot holds this process's own earlier parse (not
            # worth unpickling to find so), and storing the new one (pickling a chapter's
            # tokens, ~0.1 s) waits until the server is idle: the open page waits for this.
            tokens, env = parse(chapter.text)
            self._unstored[key] = (slot, digest, chapter.text)
        else:
            stored = self.cache.get("parsed", slot)
            if stored is not None and stored[0] == digest:
                _digest, tokens, env = stored
            else:
                tokens, env = parse(chapter.text)
                if chapter.edition in self.parses_stored_by_fork:
                    self._left_to_fork[key] = slot
                else:
                    self.cache.put("parsed", slot, (digest, tokens, env))   # pickled now, unnumbered
        # Before anything reads the tokens: an unclosed fence swallows the rest of the file,
        # and what fails later (a cell's NameError, unknown labels) would not name it.
        fence = trust.unclosed_fence(tokens, chapter.text.splitlines())
        if fence:
            raise BuildError(chapter.path, fence.line, fence.message, fence.hint)
        self._parsed[key] = (digest, tokens, env)
        self._parsed_text[key] = chapter.text
        return self._parsed[key]

    def store_in_fork(self) -> None:
        """In the forked indexer, before it numbers anything: stage the parses the parent
        left to it (as parsed: the parent forked before numbering them); from here on this
        process stages its own parses too. The parent takes them from the fork's
        `Cache.staged("parsed")` (`Cache.put_pickled`)."""
        self.parses_stored_by_fork = frozenset()
        for key, slot in self._left_to_fork.items():
            if key in self._parsed:
                self.cache.put("parsed", slot, self._parsed[key])
        self._left_to_fork = {}

    def leave_no_parses_to_fork(self) -> None:
        """At the end of the build that forked (the fork's entries staged, or lost)."""
        self._left_to_fork = {}
        self.parses_stored_by_fork = frozenset()

    def store_parsed(self) -> int:
        """Store the parses `defer_stores` held back (parsed again: the memo's tokens are
        numbered by now, and the cache keeps them as the parser left them); how many."""
        pending, self._unstored = self._unstored, {}
        for slot, digest, text in pending.values():
            tokens, env = parse(text)
            self.cache.put("parsed", slot, (digest, tokens, env))
        return len(pending)

    def run_cells(self, book: Book) -> dict[int, CellResults]:
        """Every chapter's calc cells (cached), in worker processes: {chapter number: cells}."""
        self.cache.hasher.new_build()   # the start of a resolve: files may have changed since
        parsed_tokens = {c.path: self.parsed(c)[1] for c in book.original.chapters}
        # The same original chapters (their tokens are kept while their text is) and the same
        # bytes in every file the cells and variants read: the same results, without walking
        # every chapter for its cells and keying each cell and scenario again (~25 ms of a
        # --serve rebuild after a translation's paragraph changed).
        known = self._cells_memo
        if (known is not None and self.cache.enabled and known[0] == list(parsed_tokens)
                and all(a is b for a, b in zip(known[1], parsed_tokens.values()))
                and all(self.cache.hasher(os.path.join(self.root, path)) == digest
                        for path, digest in known[2].items())):
            self.executed_cells = []
            return known[3]
        cells = resolve_cells(book.original.chapters, self.root, self.cache, self.workers,
                              self.cell_timeout, parsed_tokens)
        # The what-if variants rerun the cells the scenarios' `choose` calls declared.
        variant_deps: dict = {}
        resolve_variants(book.original.chapters, cells, self.root, self.cache, self.workers,
                         self.cell_timeout, parsed_tokens, None, variant_deps)
        self.executed_cells = sorted(n for n, c in cells.items() if c.executed)
        self.cell_deps = {n: c.deps for n, c in cells.items()}
        deps = {path: digest for c in cells.values() for path, digest in (c.deps or {}).items()}
        deps.update(variant_deps)
        self._cells_memo = (list(parsed_tokens), list(parsed_tokens.values()), deps, cells)
        return cells

    def start(self, book: Book, cells: dict[int, CellResults],
              outputs: list[str] | None = None) -> ResolvedBook:
        """A resolved book with no edition numbered yet; outputs are made for `outputs`
        (default: every loaded edition)."""
        return ResolvedBook(
            book=book, config=book.config or read_book_config(book.root), cells=cells,
            # Links name chapter files as the edition names them (`chapter01.md` in book-en).
            chapter_files={**{c.path.name: c.slug for e in book.editions.values()
                              for c in e.chapters},
                           **{c.path.name: c.slug for c in book.original.chapters}},
            outputs=output_editions(book, outputs))

    def number_edition(self, book: Book, key: str, cells: dict[int, CellResults]) -> ResolvedEdition:
        """Parse and number an edition's chapters; collect its labels."""
        edition = book.editions[key]
        labels: dict[str, Label] = {}
        chapters = []
        self.check_trust(book, key)
        # An edition none of whose chapters changed (the same parsed tokens, the same cell
        # values: both are kept while unchanged) is numbered as before: under --serve an edit
        # to one edition numbered all three again (0.1 s each).
        inputs = [(chapter, self.parsed(chapter), cells[chapter.number].values,
                   cells[chapter.number].scenarios) for chapter in edition.chapters]
        known = self._numbered.get(key)
        if known is not None and known[0] == edition.info and len(known[1]) == len(inputs) and all(
                old[0] == new[0] and old[1] is new[1] and old[2] is new[2] and old[3] is new[3]
                for old, new in zip(known[1], inputs)):
            previous: ResolvedEdition = known[2]
            return ResolvedEdition(
                info=edition.info, labels=previous.labels, labels_digest=previous.labels_digest,
                chapters=[dataclasses.replace(done, source=chapter) for done, (chapter, *_)
                          in zip(previous.chapters, inputs)])
        for chapter in edition.chapters:
            digest, tokens, env = self.parsed(chapter)
            if chapter.untranslated:
                add_untranslated_notice(tokens, edition.info)
            values = cells[chapter.number].values
            # Unknown names in titles are reported by the render pass, with file:line.
            outline = number_chapter(chapter, tokens, labels,
                                     title_text(chapter, edition.info, labels, values))
            chapters.append(ResolvedChapter(source=chapter, digest=digest, tokens=tokens,
                                            env=env, values=values, outline=outline,
                                            scenarios=cells[chapter.number].scenarios))
        numbered = ResolvedEdition(info=edition.info, chapters=chapters, labels=labels,
                                   labels_digest=_digest(sorted(labels.items())))
        self._numbered[key] = (edition.info, inputs, numbered)
        return numbered

    def check_trust(self, book: Book, key: str) -> None:
        """The trust boundary (`bookkit.source.trust`), before an edition's text is numbered, drawn or
        rendered: every problem of the edition, each at its file:line, stops the build.
        Memoised per chapter (its text, its original's, the original's math commands), so a
        `--serve` rebuild checks only the chapter that changed."""
        edition = book.editions[key]
        trusted = edition.info.spec.trusted
        original = {c.number: self.parsed(c) for c in book.original.chapters}
        math: frozenset = frozenset()
        if not trusted:
            for chapter in book.original.chapters:
                digest, tokens, _env = original[chapter.number]
                if self._math_of.get(str(chapter.path), ("",))[0] != digest:
                    self._math_of[str(chapter.path)] = (digest, trust.math_commands(tokens))
            math = frozenset().union(*(m for _d, m in self._math_of.values()))
        figures_dir = book.original.info.folder / "figures"
        problems = []
        for chapter in edition.chapters:
            if chapter.untranslated:   # the original's own text, checked as the original's
                continue
            digest, tokens, _env = self.parsed(chapter)
            ours = original.get(chapter.number, ("", [], {}))
            memo_key = (trusted, digest, *(() if trusted else (ours[0], math)))
            hit = self._trusted_memo.get(str(chapter.path))
            if hit is None or hit[0] != memo_key:
                found = trust.chapter_problems(tokens, chapter.text, trusted, ours[1], set(math),
                                               figures_dir, book.root, chapter.path,
                                               book.original.info.spec.dir)
                hit = self._trusted_memo[str(chapter.path)] = (memo_key, found)
            problems += [BuildError(chapter.path, p.line, p.message, p.hint) for p in hit[1]]
        if problems:
            raise problems[0] if len(problems) == 1 else BuildError(
                None, None, "\n".join(p.render() for p in problems))

    def figure_tasks(self, resolved: ResolvedBook) -> list[FigureTask]:
        figures_root = resolved.book.original.info.folder   # figure scripts live with the original
        registry = resolved.book.registry
        memo: dict = {}
        tasks = []
        for edition in resolved.editions.values():
            folders = figure_words_folders(self.root, registry, edition.info.spec)
            info = edition.info
            # the same objects while the files are unchanged (`kept_while_unchanged`)
            tables = tuple(load_figure_words(folder) for folder in folders)
            for chapter in edition.chapters:
                # A chapter's tasks again only when what they are made of changed: its figures,
                # values and scenarios (the same objects while unchanged), the words tables,
                # each script's INPUTS. Making ~930 tasks and variants was ~40 ms of every
                # --serve rebuild.
                scripts = [figures_root / src for _fid, src, _line in chapter.outline.figures]
                made_of = (chapter.outline.figures, info.lang, info.spec.langs,
                           info.spec.number_lang, folders,
                           tuple(script_inputs(script) for script in scripts))
                slot = (info.spec.id, str(chapter.source.path))
                known = self._tasks_memo.get(slot)
                if (known is not None and known[0] == made_of and known[1] is chapter.values
                        and known[2] is chapter.scenarios
                        and all(a is b for a, b in zip(known[3], tables))):
                    tasks.extend(known[4])
                    continue
                made = []
                for (fid, _src, line), script in zip(chapter.outline.figures, scripts):
                    task = FigureTask(fid, script, info.lang, str(chapter.source.path),
                                      line, info.spec.langs,
                                      figure_words(script.stem, folders, memo),
                                      info.spec.number_lang)
                    made.extend(_with_inputs(task, chapter))
                self._tasks_memo[slot] = (made_of, chapter.values, chapter.scenarios, tables,
                                          made)
                tasks.extend(made)
        return tasks

    def keep_workers(self) -> None:
        """For a long-lived resolver (`--serve`): the figure-drawing processes outlive a build
        (`KeptWorkers`), and a saved figure script starts drawing at the top of the next
        build (`start_early_drawing`)."""
        if self.kept_workers is None:
            self.kept_workers = KeptWorkers()
            self.early_drawing = EarlyDrawing()

    def warm_up_workers(self) -> list[str]:
        """`--serve`, after the first build: start the kept drawing workers if that build
        forked none (`EarlyDrawing.warm_up`); the names of the figures they draw to warm up."""
        if self.early_drawing is None or self.kept_workers is None:
            return []
        return self.early_drawing.warm_up(self.kept_workers, self.workers)

    def start_early_drawing(self, langs: Collection[str]) -> list[str]:
        """`--serve`, at the top of a build: the images in `langs` (all: empty) of figure
        scripts saved since the last build start drawing now (`EarlyDrawing`); the names."""
        if self.early_drawing is None or self.kept_workers is None:
            return []
        return self.early_drawing.start(self.kept_workers, langs, self.workers, self.cache,
                                        self._figure_memo)

    def draw_figures(self, resolved: ResolvedBook, formats: tuple[str, ...] = ("svg",),
                     later: frozenset[str] = frozenset(), nice: int = 0) -> None:
        """Draw (or take from the cache) every figure image of the resolved editions. The site
        needs SVG only; the Pandoc export asks for PDF too. `later`: languages whose changed
        images may keep their last drawing for now (`resolve_figures`); which did is in
        `deferred_figures`. `nice`: the drawing workers' niceness."""
        self.drawn_figures, self.figure_deps, self.deferred_figures = [], {}, []
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
                                  memo=self._figure_memo, formats=formats,
                                  later=later, previous=self._last_images,
                                  deferred=self.deferred_figures, nice=nice,
                                  kept=self.kept_workers, early=self.early_drawing)
        self._last_images = figures
        resolved.figures = figures
        resolved.figure_sizes = {k: v.size for k, v in figures.items()}

    def resolve(self, book: Book,
                figures: tuple[str, ...] = ("svg", "pdf"),
                outputs: list[str] | None = None) -> ResolvedBook:
        """The whole stage: cells, every loaded edition numbered, and the figures in `figures`
        formats (none: the text only, as the translation check reads it); outputs are made
        for `outputs` (default: every loaded edition)."""
        cells = self.run_cells(book)
        resolved = self.start(book, cells, outputs)
        for key in book.editions:
            resolved.editions[key] = self.number_edition(book, key, cells)
        if figures:
            self.draw_figures(resolved, formats=figures)
        self.cache.flush()
        return resolved


def _digest(obj) -> str:
    return hashlib.sha256(repr(obj).encode()).hexdigest()


#: The notice over a chapter a translation lacks (its original is shown): an edition's
#: `strings: untranslated:` (edition.yml) if it words it, else its language record's.
UNTRANSLATED = {tag: rec.untranslated for tag, rec in LANGUAGES.items()}


def untranslated_notice(info: EditionInfo) -> str:
    text = info.strings.get("untranslated")
    if text:
        return str(text)
    for lang in info.spec.langs:
        parts = lang.split("-")
        for key in (lang, f"zh-Hant" if info.spec.is_traditional_chinese else "", parts[0]):
            if key in UNTRANSLATED:
                return UNTRANSLATED[key]
    return UNTRANSLATED["en"]


def add_untranslated_notice(tokens: list, info: EditionInfo) -> None:
    """Put the notice, as a blockquote of class `untranslated` in the edition's language, right
    after the chapter's title (once: the parsed tokens are memoised). Tokens, not text: the
    original's lines keep their numbers for messages, and every output (site, search, PDF,
    EPUB) renders the blockquote as it renders the author's."""
    from markdown_it.token import Token
    if any(t.meta.get("untranslated_notice") for t in tokens):
        return
    opener = next((i for i, t in enumerate(tokens) if t.type == "heading_open"
                   and t.tag == "h1"), None)
    at = opener + 3 if opener is not None else 0      # after heading_open, inline, close
    line = tokens[opener].map if opener is not None else None
    quote = Token("blockquote_open", "blockquote", 1, map=line, block=True,
                  attrs={"class": "untranslated"},
                  meta={"untranslated_notice": True})
    text = Token("text", "", 0, content=untranslated_notice(info), map=line)
    new = [quote,
           Token("paragraph_open", "p", 1, map=line, block=True),
           Token("inline", "", 0, content=text.content, children=[text], map=line, block=True),
           Token("paragraph_close", "p", -1, block=True),
           Token("blockquote_close", "blockquote", -1, block=True)]
    tokens[at:at] = new


def _with_inputs(task: FigureTask, chapter) -> list[FigureTask]:
    """The task with the chapter's values its script names in `INPUTS`, and one more task per
    what-if combination that changes one of them (drawn at build time; the page loads the
    variant's SVG only when the reader picks it)."""
    import dataclasses
    import hashlib
    names = script_inputs(task.script)      # () for a missing script: drawing reports it
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
