"""One translated chapter, or the whole book, checked against the original: numbers and
structure (:mod:`bookkit.check.compare`), the edition's glossary (:mod:`bookkit.check.terminology`)
and, for Traditional Chinese, Simplified characters left in (:mod:`bookkit.check.script`).

What ``scripts/check_translation.py`` runs; the reports are :mod:`bookkit.check.pair_report`
(text, GitHub annotations) and :mod:`bookkit.check.pair_html` (the side-by-side page).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bookkit.check.compare import Difference, PairResult, compare_pair
from bookkit.check.pair_report import (format_github, format_summary, format_text, precision_line,
                                        rank, reported, skew_line)


@dataclass
class Glossary:
    """The terms a check uses and where they come from (``path`` None: no glossary)."""

    terms: list = field(default_factory=list)
    path: Path | None = None
    why: str = ""

    def describe(self, root: Path | None = None) -> str:
        if self.path is None:
            return f"glossary: none ({self.why})" if self.why else "glossary: none"
        shown = self.path
        if root is not None:
            try:
                shown = self.path.resolve().relative_to(root.resolve())
            except ValueError:
                pass
        return f"glossary: {shown.as_posix() if isinstance(shown, Path) else shown} ({self.why})"


def find_glossary(translation: Path, edition_dir: Path | None, explicit: Path | None = None,
                  disabled: bool = False) -> Glossary:
    """The glossary for a translation: the one named on the command line, else ``glossary.yml``
    beside the file, else the edition's (its folder in the registry). Raises
    :class:`bookkit.source.glossary.GlossaryError` for a glossary that cannot be read."""
    from bookkit.source.glossary import GLOSSARY_FILE, load_glossary
    if disabled:
        return Glossary(why="--no-glossary")
    if explicit is not None:
        return Glossary(load_glossary(explicit), explicit, "--glossary")
    beside = translation.parent / GLOSSARY_FILE
    if beside.is_file():
        return Glossary(load_glossary(beside), beside, "beside the translation")
    if edition_dir is not None and (edition_dir / GLOSSARY_FILE).is_file():
        path = edition_dir / GLOSSARY_FILE
        return Glossary(load_glossary(path), path, "the edition's, from manuscripts/book.yml")
    return Glossary(why="none beside the translation and none for the edition")


def unsafe_findings(original_path: str, original: str, translation_path: str,
                    translation: str) -> list[Difference]:
    """What a translation may not carry (bookkit/source/trust.py: raw HTML but the anchors, raw TeX,
    figure scripts of its own, symlinked images, script URLs), as high-severity findings."""
    from bookkit.source import trust
    from bookkit.source.markdown import parse
    original_tokens = parse(original)[0]
    figures = Path(original_path).resolve().parent / "figures"
    book_root = figures.parent.parent
    problems = trust.chapter_problems(parse(translation)[0], translation, False, original_tokens,
                                      trust.math_commands(original_tokens), figures, book_root,
                                      Path(translation_path).resolve(), figures.parent.name)
    return [Difference("unsafe", None, None, None, p.line,
                    p.message + (f" ({p.hint})" if p.hint else ""), "high") for p in problems]


def _original_terms(original_path: str, glossary: Glossary) -> list:
    """The terms of ``glossary.yml`` beside the original; none when glossaries are turned off
    (``--no-glossary``). Raises :class:`bookkit.source.glossary.GlossaryError` for one unreadable."""
    from bookkit.source.glossary import GLOSSARY_FILE, load_glossary
    own = Path(original_path).parent / GLOSSARY_FILE
    if glossary.why == "--no-glossary" or not own.is_file():
        return []
    return load_glossary(own)


@dataclass
class PairCheck:
    """The result of checking one chapter pair."""

    original_path: str
    translation_path: str
    lang: str                       # the translated edition's language tag (en, zh-Hant)
    result: PairResult
    findings: list[Difference]         # all of them, precision included, ranked
    glossary: Glossary
    revision: object = None         # bookkit.check.skew.Revision, when git could tell

    def listed(self, precision: bool) -> list[Difference]:
        return reported(self.findings, precision)

    def notes(self, precision: bool) -> list[str]:
        return [x for x in (skew_line(self.result, self.revision),
                            precision_line(self.findings, precision)) if x]


def check_chapter(original_path: str, original: str, translation_path: str, translation: str,
                  edition, glossary: Glossary, find_revision: bool = True,
                  original_lang: str = "zh-Hans") -> PairCheck:
    """Check one chapter pair (texts already read) for ``edition`` (an
    :class:`~bookkit.load.editions.EditionSpec`); ``original_lang``: the original's number
    reader (its registry entry's ``number_lang``)."""
    from bookkit.check.script import describe, leftover_simplified
    from bookkit.check.terminology import find_avoided
    result = compare_pair(original, translation, edition.number_lang, original_lang)
    findings = list(result.findings)
    findings += [Difference("terminology", u.form, None, None, u.line, u.message())
                 for u in find_avoided(translation, glossary.terms)]
    # The original holds one term per concept too (glossary.yml beside it:
    # manuscripts/glossary.yml); its avoided forms are reported at the original's line.
    findings += [Difference("terminology", u.form, None, u.line, None,
                         f"in the original {original_path}:{u.line}: {u.message()}")
                 for u in find_avoided(original, _original_terms(original_path, glossary))]
    if edition.is_traditional_chinese:
        findings += [Difference("leftover", x.char, None, None, x.line, describe(x))
                     for x in leftover_simplified(translation)]
    findings += unsafe_findings(original_path, original, translation_path, translation)
    revision = None
    if find_revision and result.skewed:
        from bookkit.check.skew import best_revision
        revision = best_revision(original_path, translation, edition.number_lang)
    return PairCheck(original_path, translation_path, edition.lang, result, rank(findings),
                     glossary, revision)


def render(check: PairCheck, fmt: str, precision: bool, root: Path | None = None) -> str:
    """One pair's report in ``fmt`` (text, json, github, html)."""
    import json
    listed = check.listed(precision)
    if fmt == "json":
        return json.dumps([f.to_dict() for f in listed], ensure_ascii=False, indent=2)
    if fmt == "github":
        return format_github(listed, check.translation_path)
    if fmt == "html":
        from bookkit.check.pair_html import format_html
        return format_html(check.result, listed, check.original_path, check.translation_path,
                           check.lang, check.notes(precision) + [check.glossary.describe(root)])
    parts = check.notes(precision)
    if listed:
        parts += [format_summary(listed), "", format_text(listed, check.translation_path)]
    return "\n".join(parts)


@dataclass
class BookCheck:
    chapters: list[PairCheck]
    problems: list[str]             # missing files, unreadable glossaries

    def has_high(self, precision: bool = False) -> bool:
        return bool(self.problems) or any(f.severity == "high" for c in self.chapters
                                          for f in c.listed(precision))


def check_book(root: Path, editions: list[str] | None = None, find_revision: bool = True) -> BookCheck:
    """Every chapter of the chosen translated editions (ids or languages; all when ``None``)
    against the original, on the Markdown as written (bound numbers compared by name)."""
    from bookkit.source.glossary import GlossaryError
    from bookkit.load.config import chapter_plan, load_registry
    registry = load_registry(root)
    specs = [s for s in registry.translations
             if editions is None or s.id in editions or s.lang in editions]
    out = BookCheck([], [])
    for spec in specs:
        folder = root / spec.dir
        try:
            glossary = find_glossary(folder / "_", folder)
        except GlossaryError as exc:
            out.problems.append(f"error: {exc}")
            glossary = Glossary(why="unreadable")
        for _number, file, _slug in chapter_plan(root):
            opath = f"{registry.original.dir}/{file}"
            tpath = f"{spec.dir}/{file}"
            try:
                original = (root / opath).read_text(encoding="utf-8")
            except OSError as exc:
                out.problems.append(f"error: {opath}: cannot read ({exc.strerror}); it is listed in manuscripts/book.yml")
                continue
            try:
                translation = (root / tpath).read_text(encoding="utf-8")
            except OSError as exc:
                out.problems.append(f"error: {tpath}: cannot read ({exc.strerror}); translate {opath} or remove it from book.yml")
                continue
            out.chapters.append(check_chapter(str(root / opath), original, tpath, translation, spec,
                                              glossary, find_revision,
                                              registry.original.number_lang))
            out.chapters[-1].original_path = opath
    return out


def book_summary(book: BookCheck, precision: bool = False) -> str:
    """One line per chapter (findings by severity, the revision-skew note), then the total."""
    rows = list(book.problems)
    total: Counter = Counter()
    for c in book.chapters:
        listed = c.listed(precision)
        sev = Counter(f.severity for f in listed)
        total.update(sev)
        row = f"{c.translation_path}: {len(listed)} finding(s)"
        if listed:
            row += ": " + ", ".join(f"{sev[s]} {s}" for s in ("high", "medium", "low"))
        if c.result.skewed:
            row += (f" · revision skew: {c.result.only_original} paragraph(s) only in the original, "
                    f"{c.result.only_translation} only in the translation")
            if c.revision is not None:
                row += f" (matches {c.revision.commit[:12]} of {c.revision.date} best)"
        rows.append(row)
    n = sum(total.values())
    rows.append(f"{len(book.chapters)} chapter(s), {n} finding(s): "
                + ", ".join(f"{total[s]} {s}" for s in ("high", "medium", "low")))
    return "\n".join(rows)
