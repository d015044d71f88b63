"""Import a book written for another toolchain: write `manuscripts/book.yml` from its
`mkdocs.yml` (`nav:` order, `repo_url:`, `edit_uri:`'s branch) or from its folder layout
(`NN-title.md` files in order), so that the first build is one command.

    python -m bookkit import mkdocs.yml          # or: python -m bookkit import .

Chapters are the original's files (`manuscripts/`, MkDocs' `docs_dir`); editions are the
original and every `book-<id>/` folder beside it. A translation's files are matched to the
original's by the number in their names (`chapter01.md`, `01-標題.md`, `preface.md` for 00),
whatever the rest of the name; a chapter a translation lacks is left out of its `files:` (the
build shows the original's in its place, with a notice). Slugs are the ASCII words of the
original's file name, else of a Latin-script translation's title, else `chapter-N`.

Not a stage of the pipeline: a one-off tool that reads the author's files and writes the one
config the load stage reads.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from bookkit.locale.languages import canonical_tag
from bookkit.model import BOOK_CONFIG, CONFIG_DIR, BuildError

# The imported original goes where the config is read from (book.yml's folder).
ORIGINAL_DIR = CONFIG_DIR
_PREFACE_RE = re.compile(r"preface|foreword|前言|序", re.I)
_NUMBER_RE = re.compile(r"(\d+)")
_HAN_RE = re.compile(r"[\u3400-\u9fff]")
_H1_RE = re.compile(r"^#\s+(.+?)\s*(?:\{[^}]*\})?\s*$", re.M)


@dataclass
class ImportedChapter:
    file: str
    slug: str
    files: dict[str, str] = field(default_factory=dict)   # edition id -> its file name
    missing: list[str] = field(default_factory=list)       # editions without a file for it


@dataclass
class ImportedBook:
    root: Path
    chapters: list[ImportedChapter]
    editions: list[dict]                 # book.yml `editions:` entries, the original first
    settings: dict                       # repo_url, repo_branch, site_url
    title: str = ""                      # mkdocs.yml site_name


def _number(name: str, position: int | None = None) -> int | None:
    """The chapter number a file name carries (`01-x.md`, `chapter01.md`; a preface is 0)."""
    stem = Path(name).stem
    m = _NUMBER_RE.search(stem)
    if m:
        return int(m.group(1))
    if _PREFACE_RE.search(stem):
        return 0
    return position


def _nav_files(nav, out: list[str]) -> list[str]:
    """The Markdown files of an MkDocs `nav:` (nested sections flattened), in order."""
    for item in nav or []:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            _nav_files(value, out)
        elif isinstance(value, str) and value.endswith(".md"):
            out.append(value)
    return out


def _slug(file: str, number: int, titles: list[str], seen: set[str]) -> str:
    words = re.findall(r"[A-Za-z][A-Za-z0-9]*", Path(file).stem)
    candidates = ["-".join(words).lower()] if words else []
    for title in titles:
        ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
        # the typed number of the title ("Chapter 1:") is not part of its name
        ascii_title = re.sub(r"^(?:chapter|part|appendix)\s+\w+\s*[:.]?\s*", "", ascii_title,
                             flags=re.I)
        title_words = re.findall(r"[A-Za-z][A-Za-z0-9]*", ascii_title)
        if title_words and not _HAN_RE.search(title):
            candidates.append("-".join(title_words[:5]).lower())
    candidates.append("preface" if number == 0 else f"chapter-{number}")
    for slug in candidates:
        if slug and slug not in seen:
            seen.add(slug)
            return slug
    slug = f"chapter-{number}-{len(seen)}"
    seen.add(slug)
    return slug


def _lang_of(texts: list[str]) -> str:
    """The original's language from its text: mostly Han characters is Simplified Chinese
    (what these books are written in), else English."""
    sample = "".join(texts)[:20000]
    han = len(_HAN_RE.findall(sample))
    return "zh-Hans" if han > len(sample) * 0.2 else "en"


def _title(path: Path) -> str:
    m = _H1_RE.search(path.read_text(encoding="utf-8"))
    return m.group(1) if m else ""


def read_layout(source: Path) -> ImportedBook:
    """The chapters and editions of the book at `source` (its mkdocs.yml or its folder)."""
    source = source.resolve()
    mkdocs = source if source.is_file() else source / "mkdocs.yml"
    root = mkdocs.parent if source.is_file() else source
    config: dict = {}
    if mkdocs.is_file():
        try:
            config = yaml.safe_load(mkdocs.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise BuildError(mkdocs, mark.line + 1 if mark else None,
                             f"malformed YAML: {getattr(exc, 'problem', exc)}")
    docs = config.get("docs_dir", ORIGINAL_DIR)
    if Path(docs).as_posix().strip("/") != ORIGINAL_DIR:
        raise BuildError(mkdocs, None, f"the original is in `{docs}/`; this pipeline reads it "
                         f"from `{ORIGINAL_DIR}/`", f"rename the folder to {ORIGINAL_DIR}/ "
                         "(and `docs_dir:`), then import again")
    original = root / ORIGINAL_DIR
    if not original.is_dir():
        raise BuildError(original, None, "no such folder",
                         f"put the original chapters in {ORIGINAL_DIR}/")
    files = _nav_files(config.get("nav"), [])
    if files:
        for line_file in files:
            if not (original / line_file).is_file():
                raise BuildError(mkdocs, None, f"nav names {line_file}, which is not in "
                                 f"{ORIGINAL_DIR}/", "fix the nav entry or add the file")
    else:
        files = sorted(p.name for p in original.glob("*.md") if _NUMBER_RE.match(p.name))
    if not files:
        raise BuildError(original, None, "no chapter files found",
                         "name them NN-title.md (00 for the preface) or list them in "
                         "mkdocs.yml's nav:")
    numbers = [_number(f, i) for i, f in enumerate(files)]
    folders = sorted(p for p in root.glob("book-*") if p.is_dir() and any(p.glob("*.md")))
    lang = str((config.get("theme") or {}).get("language") or "") if isinstance(
        config.get("theme"), dict) else ""
    # a language's alias (zh-tw, zh-cn) as its record's tag (zh-Hant, zh-Hans)
    lang = (canonical_tag(lang) if lang else "") or _lang_of([
        (original / f).read_text(encoding="utf-8") for f in files])
    original_id = lang.split("-")[0].lower()
    editions = [{"id": original_id, "dir": ORIGINAL_DIR, "lang": lang, "path": ""}]
    by_edition: dict[str, dict[int, str]] = {}
    for folder in folders:
        ident = folder.name[len("book-"):].lower()
        entry = {"id": ident, "dir": folder.name, "lang": canonical_tag(ident), "path": ident}
        if not (folder / "edition.yml").is_file():
            # No interface strings of its own: it borrows the original's (the import writes a
            # minimal edition.yml with the title) until someone translates them.
            entry["fallback"] = original_id
        editions.append(entry)
        found: dict[int, str] = {}
        for md in sorted(folder.glob("*.md")):
            n = _number(md.name)
            if n is not None and n not in found:
                found[n] = md.name
        by_edition[ident] = found
    chapters, seen = [], set()
    for file, number in zip(files, numbers):
        titles = [_title(root / e["dir"] / by_edition[e["id"]][number]) for e in editions[1:]
                  if number in by_edition[e["id"]]]
        chapter = ImportedChapter(file=file, slug=_slug(file, number, titles, seen))
        for e in editions[1:]:
            name = by_edition[e["id"]].get(number)
            if name is None:
                chapter.missing.append(e["id"])
            elif name != file:
                chapter.files[e["id"]] = name
        chapters.append(chapter)
    settings = {}
    if config.get("site_url"):
        settings["site_url"] = str(config["site_url"])
    if config.get("repo_url"):
        settings["repo_url"] = str(config["repo_url"]).rstrip("/")
        m = re.match(r"^(?:edit|blob)/([^/]+)/", str(config.get("edit_uri") or ""))
        if m:
            settings["repo_branch"] = m.group(1)
        # The PDF/EPUB buttons point at the repository's latest release (as this book's do),
        # and the files are named after the repository rather than this book.
        settings["release_url"] = settings["repo_url"] + "/releases/latest/download/"
        settings["file_name"] = settings["repo_url"].rsplit("/", 1)[-1]
    return ImportedBook(root=root, chapters=chapters, editions=editions, settings=settings,
                        title=str(config.get("site_name") or ""))


def _flow(mapping: dict) -> str:
    """One YAML flow mapping on one line (quoted where YAML needs it: spaces, CJK are fine)."""
    return yaml.safe_dump(mapping, allow_unicode=True, default_flow_style=True,
                          sort_keys=False, width=1 << 16).strip()


def book_yml(book: ImportedBook) -> str:
    lines = ["# Written by `python -m bookkit import` from the book's layout; edit freely.",
             "# See CONTRIBUTING.md, \"Chapters written for other toolchains\"."]
    for key, value in book.settings.items():
        lines.append(yaml.safe_dump({key: value}, allow_unicode=True, width=1 << 16).strip())
    lines.append("editions:")
    lines += [f"  - {_flow(e)}" for e in book.editions]
    lines.append("chapters:")
    for c in book.chapters:
        entry = {"file": c.file, "slug": c.slug}
        if c.files:
            entry["files"] = c.files
        note = f"  # not translated: {', '.join(c.missing)}" if c.missing else ""
        lines.append(f"  - {_flow(entry)}{note}")
    return "\n".join(lines) + "\n"


def write_config(book: ImportedBook, force: bool = False) -> Path:
    target = book.root / BOOK_CONFIG
    if target.exists() and not force:
        raise BuildError(target, None, "already exists",
                         "pass --force to replace it with the imported book's")
    text = book_yml(book)
    yaml.safe_load(text)            # what was written reads back
    target.write_text(text, encoding="utf-8")
    for e in book.editions:
        own = book.root / e["dir"] / "edition.yml"
        if e.get("fallback") and not own.exists():
            own.write_text(f"# Interface strings: those of `{e['fallback']}` until translated "
                           "here (copy its strings: and translate them).\n"
                           + yaml.safe_dump({"title": book.title}, allow_unicode=True),
                           encoding="utf-8")
    return target
