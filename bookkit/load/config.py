"""Load stage: read the book config and every edition's chapter files. No side effects.

`read_book_config` is the one reader of `manuscripts/book.yml`: the build, the checks and the
release take the chapter plan and the site's addresses from it. A chapter's translations share
its file name unless its entry names theirs (`files: {en: chapter01.md}`, see `edition_file`);
a translation without the file shows the original's chapter (`ChapterSource.untranslated`).
"""
from __future__ import annotations

import copy
import functools
from pathlib import Path

import yaml

from bookkit.load.editions import parse_registry
from bookkit.util.fsutil import kept_while_unchanged
from bookkit.source.links import repo_settings
from bookkit.model import (BOOK_CONFIG, CONFIG_DIR, Book, BookConfig, BuildError, ChapterSource,
                            Edition, EditionInfo, EditionSpec, Registry)

REQUIRED_STRINGS = (
    "chapter", "chapter_short", "section", "figure", "table", "equation", "preface", "contents",
    "prev", "next", "search", "search_label", "search_count", "search_none", "search_loading",
    "search_suggest",
    "on_this_page", "theme", "language", "download_pdf", "download_epub", "not_found",
    "not_found_text", "home", "copy", "copied", "computed_as", "skip", "menu", "footnotes",
    "caption_sep", "version", "date", "numbers_hint", "zoom", "close", "report_error",
    "errata_issue", "errata_edition", "errata_section", "errata_page", "errata_commit",
    "errata_prompt",
)


def _read_yaml(path: Path) -> dict:
    """The mapping in a config file, parsed once per version of the file (a --serve rebuild
    read book.yml four times and every edition.yml, ~9 ms); a copy each time, for callers
    that change what they are given."""
    try:
        return copy.deepcopy(kept_while_unchanged(path, _parse_yaml))
    except FileNotFoundError:
        raise BuildError(path, None, "file not found", "create it; see CONTRIBUTING.md")


def _parse_yaml(path: Path) -> dict:
    text = _read_text(path)     # the text `read_book_config` keeps too: one read per version
    try:
        # The C loader when PyYAML has it: the configs are read on every (re)build.
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else None
        raise BuildError(path, line, f"malformed YAML: {getattr(exc, 'problem', exc)}",
                         "fix the syntax (indentation, quotes, colons)")
    if not isinstance(data, dict):
        raise BuildError(path, 1, "expected a mapping at the top level")
    return data


def _read_utf8(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _read_text(path: Path) -> str:
    try:
        return kept_while_unchanged(path, _read_utf8)
    except FileNotFoundError:
        raise BuildError(path, None, "file not found", "create it; see CONTRIBUTING.md")


def read_book_config(root: Path) -> BookConfig:
    """`manuscripts/book.yml`, validated: the chapter plan, the site's addresses and the edition
    registry (its `editions:` list, errors at book.yml:line)."""
    path = Path(root) / BOOK_CONFIG
    text = _read_text(path)
    data = _read_yaml(path)
    site_url = str(data.get("site_url") or "https://example.org/").rstrip("/") + "/"
    release_url = str(data.get("release_url", "")).rstrip("/") + "/"
    return BookConfig(path=path, site_url=site_url, release_url=release_url, data=data,
                      read_chapters=functools.cache(lambda: tuple(_chapter_plan(path, data))),
                      read_registry=functools.partial(parse_registry, Path(root), path, text))


def load_registry(root: Path) -> Registry:
    """The book's editions (`editions:` in book.yml), from the one reader of the config."""
    return read_book_config(root).registry


def book_dirs(root: Path) -> list[str]:
    """The folders the book is read from: every edition's, and the original's figures."""
    dirs = [CONFIG_DIR] + [e.dir for e in load_registry(root)]
    return list(dict.fromkeys(dirs))


def chapter_plan(root: Path) -> list[tuple[int, str, str]]:
    """(number, file name, slug) for every chapter, from the single book config."""
    return list(read_book_config(root).chapters)


def _chapter_plan(path: Path, data: dict) -> list[tuple[int, str, str]]:
    entries = data.get("chapters")
    if not isinstance(entries, list) or not entries:
        raise BuildError(path, None, "`chapters:` must be a non-empty list of {file, slug}")
    plan, seen = [], set()
    for number, entry in enumerate(entries):
        if not isinstance(entry, dict) or not {"file", "slug"} <= entry.keys():
            raise BuildError(path, None, f"chapter entry {number} needs `file` and `slug`")
        slug = str(entry["slug"])
        if slug in seen or not slug.replace("-", "").isalnum():
            raise BuildError(path, None, f"slug `{slug}` is duplicated or not [a-z0-9-]")
        seen.add(slug)
        plan.append((number, str(entry["file"]), slug))
    return plan


def load_edition_info(root: Path, key: str, registry: Registry | None = None) -> EditionInfo:
    """An edition's settings: its registry entry and its edition.yml, with the titles and the
    interface strings it lacks taken from its fallback (and the fallback's, and so on)."""
    config = read_book_config(root)
    registry = registry or config.registry
    spec = registry.by_id(key)
    strings: dict = {}
    titles: dict = {}
    for ancestor in reversed(registry.chain(key)):   # the farthest fallback first
        path = root / ancestor.dir / "edition.yml"
        data = _read_yaml(path)
        if "lang" in data and data["lang"] != ancestor.lang:
            raise BuildError(path, None, f"`lang: {data['lang']}` contradicts the edition's "
                             f"lang `{ancestor.lang}` in {BOOK_CONFIG}",
                             "remove `lang` here: book.yml's `editions:` list sets it")
        _overlay(strings, data.get("strings") or {})
        titles.update({k: str(data[k]) for k in ("title", "subtitle", "author") if k in data})
    path = root / spec.dir / "edition.yml"
    missing = [s for s in REQUIRED_STRINGS if s not in strings]
    if missing:
        raise BuildError(path, None, f"missing interface strings: {', '.join(missing)}",
                         "copy them from manuscripts/edition.yml and translate, or name a "
                         f"`fallback` edition that has them in {BOOK_CONFIG}")
    return EditionInfo(key=key, lang=spec.lang, folder=root / spec.dir,
                       url_prefix=spec.url_prefix, title=titles.get("title", ""),
                       subtitle=titles.get("subtitle", ""), author=titles.get("author", ""),
                       strings=strings, is_original=spec.is_original, spec=spec,
                       repo=repo_settings(config.data))


def _overlay(base: dict, own: dict) -> None:
    """`own` over `base`, key by key, into nested tables too (an edition may word one phrase of
    its fallback's `phrases:` differently and inherit the rest)."""
    for key, value in own.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            base[key] = dict(base[key])
            _overlay(base[key], value)
        else:
            base[key] = value


def load_book(root: Path, editions: list[str] | None = None, strict: bool = False) -> Book:
    """Every wanted edition's chapters; a translation lacking a chapter gets the original's
    (marked `untranslated`) unless `strict`."""
    root = root.resolve()
    config = read_book_config(root)
    plan = config.chapters
    registry = config.registry
    wanted = editions or registry.ids
    for key in wanted:
        registry.by_id(key)     # an unknown id is an error, not an empty build
    loaded: dict[str, Edition] = {}
    for spec in registry:
        # The original is always loaded: translations take their numbers from its cells.
        if spec.id not in wanted and not spec.is_original:
            continue
        key = spec.id
        info = load_edition_info(root, key, registry)
        chapters = []
        for number, file, slug in plan:
            name = edition_file(config, number, spec)
            path = info.folder / name
            untranslated = False
            if not spec.is_original and not path.is_file():
                # A translation that lacks a chapter shows the original's in its place, with a
                # notice; the build warns (`untranslated_warnings`), `--strict` stops here.
                original = root / registry.original.dir / file
                if strict or not original.is_file():
                    raise BuildError(path, None, "chapter not translated",
                                     f"translate {registry.original.dir}/{file} into "
                                     f"{spec.dir}/{name}, or build without --strict to show "
                                     "the original in its place")
                path, untranslated = original, True
            try:
                # the same str while the file is unchanged: a --serve rebuild read and decoded
                # all 39 chapters again (~17 ms) for the one that was saved
                text = kept_while_unchanged(path, _read_utf8)
            except FileNotFoundError:
                raise BuildError(path, None, "chapter file missing",
                                 f"every edition needs {file} (declared in {BOOK_CONFIG})")
            except UnicodeDecodeError as exc:
                raise BuildError(path, None, f"not UTF-8 ({exc.reason})", "save it as UTF-8")
            chapters.append(ChapterSource(edition=key, number=number, slug=slug, path=path,
                                          text=text, untranslated=untranslated))
        loaded[key] = Edition(info=info, chapters=chapters)
    return Book(root=root, editions=loaded, config=config)


def edition_file(config: BookConfig, number: int, spec: EditionSpec) -> str:
    """The file name of chapter `number` in edition `spec`: the chapter's `files: {id: name}`
    entry in book.yml when the translation names it differently (`book-en/chapter01.md` for
    `manuscripts/01-算力.md`), else the original's name."""
    entries = config.data.get("chapters") or []
    entry = entries[number] if 0 <= number < len(entries) else {}
    files = entry.get("files") if isinstance(entry, dict) else None
    if spec.is_original or not isinstance(files, dict) or not files.get(spec.id):
        return str(entry.get("file", "")) if isinstance(entry, dict) else ""
    return str(files[spec.id])


def untranslated_warnings(book: Book, root: Path) -> list[str]:
    """`book-zh-tw/02-x.md: chapter not translated …` for each chapter a loaded translation
    shows in the original's words."""
    out = []
    for edition in book.editions.values():
        for chapter in edition.chapters:
            if chapter.untranslated:
                name = edition_file(book.config, chapter.number, edition.info.spec)
                where = (edition.info.folder / name).relative_to(root).as_posix()
                source = chapter.path.relative_to(root).as_posix()
                out.append(f"{where}: chapter not translated: {source} is shown in its place "
                           "with a notice (translate it, or --strict to make this an error)")
    return out
