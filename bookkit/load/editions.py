"""The edition registry: which editions the book has, read once from `manuscripts/book.yml`.

Every edition is one line of the `editions:` list (the original first)::

    - {id: en, dir: book-en, lang: en, path: en}
    - {id: en-gb, dir: book-en-gb, lang: en-GB, path: en-gb, fallback: en}

`id` is the name on the command line, `dir` the edition's folder, `lang` its BCP 47 tag, `path`
its URL folder (`""`: the site root). Optional: `fallback` (an edition whose interface strings,
figure texts, number conventions and fonts this one inherits where it has none of its own),
`name` (the language's own name in the switcher; default the tag in capitals), `locale`
(`og:locale`; default from the tag's region, else the fallback's), `out` (the folder of its PDF
and EPUB; default `dir`). Everything that lists editions (CLI choices, output names, watchers,
checks) asks this registry, so a new edition is a folder and one line. The first entry is the
original: its `dir` and `lang` are the original's folder and language.

Each edition carries the record of its language (`bookkit/locale/languages.py`: fonts, number
conventions, search tokeniser, CJK typography), found here once: its own tag's, else the
nearest fallback's. An edition whose chain has no record is an error at its line.
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml

# The types live in model.py with the other types passed between stages; here for callers.
from bookkit.locale import languages
from bookkit.model import BOOK_CONFIG, BuildError, EditionSpec, Registry

__all__ = ["BOOK_CONFIG", "EditionSpec", "Registry", "parse_registry"]
REQUIRED_FIELDS = ("id", "dir", "lang", "path")
OPTIONAL_FIELDS = ("fallback", "name", "locale", "out")
DEFAULT_FILE_STEM = "AI-Infra-Book"
_ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
# BCP 47 as this book uses it: language, then optional script (4 letters) and region. By hand
# (as the language records' lookup): the pinned dependencies have no locale library, and these few
# subtags are all the build reads from a tag.
_LANG_RE = re.compile(r"^([a-zA-Z]{2,3})(?:-([A-Z][a-z]{3}))?(?:-([A-Z]{2}|[0-9]{3}))?$")
_memo: dict = {}   # the last registry read, with the text it was read from


def parse_registry(root: Path, path: Path, text: str) -> Registry:
    """The registry of the book config's text (`bookkit.load.config.read_book_config`, the one reader
    of book.yml, passes it); clear errors with file:line. The last one is kept: the config is
    read on every rebuild and seldom changes."""
    key = (str(path), text)
    if _memo.get("key") == key:
        return _memo["registry"]
    registry = _parse(Path(root), path, text)
    _memo.update(key=key, registry=registry)
    return registry


def _parse(root: Path, path: Path, text: str) -> Registry:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        # Composed, not loaded: the nodes keep their line numbers for the messages below.
        doc = yaml.compose(text, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise BuildError(path, mark.line + 1 if mark else None,
                         f"malformed YAML: {getattr(exc, 'problem', exc)}",
                         "fix the syntax (indentation, quotes, colons)")
    top = dict((k.value, v) for k, v in doc.value) if isinstance(doc, yaml.MappingNode) else {}
    node = top.get("editions")
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise BuildError(path, node.start_mark.line + 1 if node is not None else None,
                         "`editions:` must be a non-empty list, one {id, dir, lang, path} "
                         "per edition (the original first)", "see CONTRIBUTING.md, Adding an edition")
    stem_node = top.get("file_name")
    stem = str(stem_node.value) if isinstance(stem_node, yaml.ScalarNode) else DEFAULT_FILE_STEM
    entries: list[tuple[int, dict]] = []
    for item in node.value:
        line = item.start_mark.line + 1
        if not isinstance(item, yaml.MappingNode) or any(
                not isinstance(v, yaml.ScalarNode) for _k, v in item.value):
            raise BuildError(path, line, "an edition entry must be a mapping of plain values",
                             "e.g. `- {id: en, dir: book-en, lang: en, path: en}`")
        fields = {k.value: str(v.value) for k, v in item.value}
        unknown = sorted(set(fields) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS))
        if unknown:
            raise BuildError(path, line, f"unknown field(s) {', '.join(unknown)}",
                             "an edition has " + ", ".join(REQUIRED_FIELDS + OPTIONAL_FIELDS))
        missing = [f for f in REQUIRED_FIELDS if f not in fields]
        if missing:
            raise BuildError(path, line, f"edition entry lacks {', '.join(missing)}",
                             "give id, dir, lang and path (path: \"\" for the site root)")
        entries.append((line, fields))
    seen: dict[tuple[str, str], int] = {}
    for line, f in entries:
        if not _ID_RE.match(f["id"]):
            raise BuildError(path, line, f"edition id `{f['id']}` is not [a-z0-9-]")
        if f["path"] and not _ID_RE.match(f["path"]):
            raise BuildError(path, line, f"path `{f['path']}` must be one URL folder [a-z0-9-]",
                             'or "" for the site root')
        if not _LANG_RE.match(f["lang"]):
            raise BuildError(path, line, f"lang `{f['lang']}` is not a BCP 47 tag this book "
                             "supports", "language[-Script][-REGION], e.g. en-GB, zh-Hant")
        for field in ("id", "dir", "path", "lang"):
            value = f[field].lower() if field == "lang" else f[field]
            if (field, value) in seen:
                raise BuildError(path, line, f"{field} `{f[field]}` is used twice",
                                 f"also on line {seen[(field, value)]}; every edition needs "
                                 f"its own {field}")
            seen[(field, value)] = line
        if not (root / f["dir"]).is_dir():
            raise BuildError(path, line, f"edition folder `{f['dir']}/` does not exist",
                             f"create it (a copy of an edition's folder) or fix `dir`")
    ids = {f["id"]: (line, f) for line, f in entries}
    first_line, first = entries[0]
    if first.get("fallback"):
        raise BuildError(path, first_line, "the original (the first edition) cannot have a "
                         "fallback", "translations inherit from it, not the other way")
    if not first["path"] == "":
        raise BuildError(path, first_line, "the original (the first edition) is the site root",
                         'give it path: ""')
    for line, f in entries:
        if f.get("fallback") and f["fallback"] not in ids:
            raise BuildError(path, line, f"unknown fallback `{f['fallback']}`",
                             "name the id of another edition: " + ", ".join(ids))
    chains: dict[str, list[dict]] = {}
    for line, f in entries:
        chain, cur = [f], f
        while cur.get("fallback"):
            cur = ids[cur["fallback"]][1]
            if cur in chain:
                loop = " -> ".join(c["id"] for c in chain + [cur])
                raise BuildError(path, line, f"fallback cycle: {loop}",
                                 "a fallback chain must end at an edition without fallback")
            chain.append(cur)
        chains[f["id"]] = chain
    specs = []
    for index, (line, f) in enumerate(entries):
        chain = chains[f["id"]]
        langs = tuple(dict.fromkeys(c["lang"] for c in chain))
        language = next((r for r in map(languages.find, langs) if r is not None), None)
        if language is None:   # fail here, not in the middle of a build
            raise BuildError(path, line, f"edition `{f['id']}` (lang {f['lang']}) has no language "
                             "record: no number conventions, fonts or search tokeniser",
                             "give it a `fallback` whose language it may borrow, or add a record "
                             "for it to bookkit/locale/languages.py (known: "
                             + ", ".join(languages.LANGUAGES) + ")")
        specs.append(EditionSpec(
            id=f["id"], dir=f["dir"], lang=f["lang"], path=f["path"],
            fallback=f.get("fallback") or None, name=f.get("name") or f["lang"].upper(),
            locale=_locale(chain), out=f.get("out") or f["dir"],
            file_stem=stem if index == 0 else f"{stem}-{f['id'].upper()}",
            is_original=index == 0, langs=langs, language=language, original_dir=first["dir"],
            line=line))
    return Registry(editions=tuple(specs), config=path)


def _locale(chain: list[dict]) -> str:
    """og:locale: given, or language_REGION from the tag, or that of the nearest fallback in
    the same language, or the bare language."""
    language = chain[0]["lang"].split("-")[0].lower()
    for f in chain:
        if f["lang"].split("-")[0].lower() != language:
            break
        if f.get("locale"):
            return f["locale"]
        m = _LANG_RE.match(f["lang"])
        if m and m.group(3):
            return f"{language}_{m.group(3)}"
    return language
