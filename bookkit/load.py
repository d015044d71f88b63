"""Load stage: read the book config and every edition's chapter files. No side effects.

`read_book_config` is the one reader of `manuscripts/book.yml`: the build, the checks and the
release take the chapter plan and the site's addresses from it.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from .model import BOOK_CONFIG, Book, BookConfig, BuildError, ChapterSource, Edition, EditionInfo

# Display order: the original first. Folder, BCP 47 tag and URL prefix never change per edition.
EDITION_LAYOUT = (
    ("zh", "manuscripts", "zh-Hans", ""),
    ("en", "book-en", "en", "en/"),
    ("zh-tw", "book-zh-tw", "zh-Hant", "zh-tw/"),
)
REQUIRED_STRINGS = (
    "chapter", "chapter_short", "section", "figure", "table", "equation", "preface", "contents",
    "prev", "next", "search", "search_label", "search_count", "search_none", "search_loading",
    "on_this_page", "theme", "language", "download_pdf", "download_epub", "not_found",
    "not_found_text", "home", "copy", "copied", "computed_as", "skip", "menu", "footnotes",
    "caption_sep", "numbers_hint", "zoom", "close", "report_error", "errata_issue",
    "errata_edition", "errata_section", "errata_page", "errata_commit", "errata_prompt",
)


def _read_yaml(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BuildError(path, None, "file not found", "create it; see CONTRIBUTING.md")
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


def read_book_config(root: Path) -> BookConfig:
    """`manuscripts/book.yml`, validated: the chapter plan and the site's addresses."""
    path = Path(root) / BOOK_CONFIG
    data = _read_yaml(path)
    site_url = str(data.get("site_url") or "https://example.org/").rstrip("/") + "/"
    release_url = str(data.get("release_url", "")).rstrip("/") + "/"
    return BookConfig(path=path, chapters=tuple(_chapter_plan(path, data)), site_url=site_url,
                      release_url=release_url, data=data)


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


def load_edition_info(root: Path, key: str) -> EditionInfo:
    for k, folder, lang, prefix in EDITION_LAYOUT:
        if k == key:
            break
    else:
        raise BuildError(None, None, f"unknown edition `{key}`",
                         "use one of: " + ", ".join(k for k, *_ in EDITION_LAYOUT))
    path = root / folder / "edition.yml"
    data = _read_yaml(path)
    strings = data.get("strings") or {}
    missing = [s for s in REQUIRED_STRINGS if s not in strings]
    if missing:
        raise BuildError(path, None, f"missing interface strings: {', '.join(missing)}",
                         "copy them from manuscripts/edition.yml and translate")
    if data.get("lang") != lang:
        raise BuildError(path, None, f"`lang` must be `{lang}` for this folder")
    return EditionInfo(key=key, lang=lang, folder=root / folder, url_prefix=prefix,
                       title=str(data.get("title", "")), subtitle=str(data.get("subtitle", "")),
                       author=str(data.get("author", "")), strings=dict(strings),
                       is_original=(folder == "manuscripts"))


def load_book(root: Path, editions: list[str] | None = None) -> Book:
    root = root.resolve()
    config = read_book_config(root)
    plan = config.chapters
    keys = [k for k, *_ in EDITION_LAYOUT]
    wanted = editions or keys
    loaded: dict[str, Edition] = {}
    for key in keys:
        # The original is always loaded: translations take their numbers from its cells.
        if key not in wanted and key != "zh":
            continue
        info = load_edition_info(root, key)
        chapters = []
        for number, file, slug in plan:
            path = info.folder / file
            try:
                text = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                raise BuildError(path, None, "chapter file missing",
                                 f"every edition needs {file} (declared in {BOOK_CONFIG})")
            except UnicodeDecodeError as exc:
                raise BuildError(path, None, f"not UTF-8 ({exc.reason})", "save it as UTF-8")
            chapters.append(ChapterSource(edition=key, number=number, slug=slug, path=path,
                                          text=text))
        loaded[key] = Edition(info=info, chapters=chapters)
    return Book(root=root, editions=loaded, config=config)
