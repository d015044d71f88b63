"""The source checks of ``scripts/check_site.py`` (translations, staleness) and the text / JSON
output of every check's findings (:class:`bookkit.model.Finding`).

A finding is ``where: kind: detail``. ``where`` is ``page#id`` for a built page (the page's path
under the site root, and the id of the section the problem is in, when there is one), a file
path under the site (``sitemap.xml``, ``en/search-index.js``) for other site files, and
``path:line`` for a source file (``book-en/03-workloads.md:12``). ``severity`` is ``error``
(makes the run fail), ``warning`` (reported, does not fail the run unless ``--strict``) or
``info`` (listings, such as ``--list-external``).
"""

from __future__ import annotations

import json
from pathlib import Path

from bookkit.model import ERROR, INFO, SEVERITIES, WARNING, BuildError, Finding

__all__ = [
    "Finding", "ERROR", "WARNING", "INFO", "format_text", "format_json", "has_errors",
    "translation_findings", "stale_findings", "translation_editions",
]

def translation_editions(root: Path):
    """The translated editions (:class:`~bookkit.load.editions.EditionSpec`: folder ``dir``, ``id``,
    ``number_lang`` the number check reads them in), from the registry in book.yml."""
    from bookkit.load.config import load_registry
    return load_registry(root).translations


def _original(root: Path):
    from bookkit.load.config import load_registry
    return load_registry(root).original


def has_errors(findings: list[Finding]) -> bool:
    return any(f.severity == ERROR for f in findings)


def format_text(findings: list[Finding]) -> str:
    """One line per finding; warnings and infos are marked so they are not mistaken for errors."""
    out = []
    for f in findings:
        line = f.text()
        if f.severity == WARNING:
            line += " (warning)"
        out.append(line)
    return "\n".join(out)


def format_json(findings: list[Finding]) -> str:
    return json.dumps([f.to_dict() for f in findings], ensure_ascii=False, indent=2)


# --------------------------------------------------------------------------------------------
# Source checks: translation numbers and staleness, over every chapter pair

def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _resolved_texts(root: Path, resolve, out: list[Finding]) -> dict | None:
    """The chapters' text with bound numbers as rendered, from `resolve(root)` (the command
    line passes :func:`bookkit.pipeline.export.resolved_markdown`: a check does not run the
    pipeline itself).

    When the sources do not resolve (a :class:`~bookkit.model.BuildError`), that is reported as
    one ``build-error`` finding and the raw files are compared instead.
    """
    try:
        return resolve(root)
    except BuildError as exc:
        out.append(Finding.from_error(exc, root, note="; numbers compared on the raw Markdown"))
        return None


def translation_findings(root: Path, resolve=None) -> list[Finding]:
    """The number check (:func:`bookkit.check.pair.check_pair`) over every chapter pair.

    Reads the chapters as `resolve(root)` renders them ({(edition id, file): text}), else the
    raw chapter files (bound references are then compared by name).
    """
    from bookkit.check.pair import check_pair
    from bookkit.load.config import chapter_plan

    root = Path(root)
    out: list[Finding] = []
    texts = _resolved_texts(root, resolve, out) if resolve else None
    glossaries = _glossaries(root, out)
    source = _original(root)
    for number, file, _slug in chapter_plan(root):
        opath = f"{source.dir}/{file}"
        original = texts.get((source.id, file)) if texts else None
        if original is None:
            original = _read(root / opath)
        if original is None:
            out.append(Finding("missing-file", f"{opath}:1", "chapter listed in manuscripts/book.yml does not exist"))
            continue
        # the original holds its own terms too (manuscripts/glossary.yml), on the file as written
        out += terminology_findings(opath, _read(root / opath) or "", glossaries[source.dir])
        for spec in translation_editions(root):
            folder, lang, key = spec.dir, spec.number_lang, spec.id
            tname = _translation_file(root, number, spec)
            tpath = f"{folder}/{tname}"
            if not (root / tpath).is_file():
                continue     # not translated yet: the build and `--stale` list it
            translation = texts.get((key, tname)) if texts else None
            if translation is None:
                translation = _read(root / tpath)
            out += [pair_finding(f, tpath) for f in check_pair(original, translation, lang,
                                                                 opath, tpath,
                                                                 source.number_lang)]
            if spec.is_traditional_chinese:
                out += script_findings(tpath, _read(root / tpath) or "")
            out += terminology_findings(tpath, _read(root / tpath) or "", glossaries[folder])
    return out


def pair_finding(difference, tpath: str) -> Finding:
    """A difference found by :func:`bookkit.check.pair.check_pair` as a finding, placed at its
    line in the translation (line 1 when it has none there)."""
    line = difference.translation_line if difference.translation_line is not None else 1
    return Finding(difference.kind, f"{tpath}:{line}", difference.message, ERROR, line)


def _glossaries(root: Path, out: list[Finding]) -> dict:
    """Each edition's glossary terms (the original's and the translations'); a broken glossary
    is one error finding."""
    from bookkit.check.terminology import GlossaryError, glossary_for
    terms = {}
    folders = [_original(root).dir] + [spec.dir for spec in translation_editions(root)]
    for folder in folders:
        try:
            terms[folder] = glossary_for(root / folder)
        except GlossaryError as exc:
            where, _, detail = str(exc).partition(": ")
            out.append(Finding("glossary", Path(where).relative_to(root).as_posix()
                               if Path(where).is_absolute() else where, detail, ERROR))
            terms[folder] = []
    return terms


def terminology_findings(tpath: str, text: str, terms) -> list[Finding]:
    """Renderings the edition's glossary avoids (:mod:`bookkit.check.terminology`), on the file
    as written."""
    from bookkit.check.terminology import find_avoided
    return [Finding("terminology", f"{tpath}:{u.line}", u.message(), ERROR, u.line)
            for u in find_avoided(text, terms)]


def script_findings(tpath: str, text: str) -> list[Finding]:
    """Simplified characters left in a zh-tw file (:mod:`bookkit.check.script`), on the file
    as written, so the lines are the author's."""
    from bookkit.check.script import describe, leftover_simplified
    return [Finding("leftover", f"{tpath}:{x.line}", describe(x), ERROR, x.line)
            for x in leftover_simplified(text)]


def _section_lines(text: str, lang: str) -> dict[str, int]:
    from bookkit.check.pair import parse_document

    return {sec.id: sec.line for sec in parse_document(text, lang).sections}


def stale_findings(root: Path, strict: bool = False) -> list[Finding]:
    """Translated sections whose original changed since they were synced (warnings; errors if ``strict``).

    Placed at the section's heading in the translation (line 1 when the translation does not
    have that section).
    """
    from bookkit.check.staleness import (load_sync_record, section_name, section_titles,
                                          stale_sections, sync_record_path)
    from bookkit.load.config import chapter_plan

    root = Path(root)
    severity = ERROR if strict else WARNING
    out: list[Finding] = []
    for number, file, _slug in chapter_plan(root):
        original = _read(root / _original(root).dir / file)
        if original is None:
            continue
        titles = section_titles(original)
        for spec in translation_editions(root):
            folder, lang = spec.dir, spec.number_lang
            tname = _translation_file(root, number, spec)
            tpath = f"{folder}/{tname}"
            translation = _read(root / tpath)
            if translation is None:
                out.append(Finding("untranslated", f"{tpath}:1",
                                   f"chapter not translated: the {spec.id} edition shows "
                                   f"{_original(root).dir}/{file} in its place, with a notice",
                                   severity, 1))
                continue
            lines = _section_lines(translation, lang)
            record_path = sync_record_path(root / folder, tname)
            try:
                record = load_sync_record(record_path)
            except (ValueError, json.JSONDecodeError) as exc:
                rel = record_path.relative_to(root).as_posix()
                out.append(Finding("stale", f"{rel}:1", f"unreadable sync record: {exc}", ERROR, 1))
                continue
            for sid, reason in stale_sections(original, record):
                line = lines.get(sid, 1)
                out.append(Finding("stale", f"{tpath}:{line}",
                                   f"section {section_name(sid, titles)}: {reason}",
                                   severity, line))
    return out


def _translation_file(root: Path, number: int, spec) -> str:
    """The translation's file name for chapter `number` (book.yml `files:`, else the
    original's)."""
    from bookkit.load.config import edition_file, read_book_config
    return edition_file(read_book_config(root), number, spec)
