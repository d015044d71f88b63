"""An edition's glossary (`<edition folder>/glossary.yml`), read and validated: the load stage's
one reader of it. The terminology check (`bookkit.check.terminology`) reports the renderings it
avoids; the search index (`bookkit.lunr.index`) takes its query synonyms from it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

GLOSSARY_FILE = "glossary.yml"


class GlossaryError(ValueError):
    """A glossary that cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class Term:
    concept: str
    use: str
    avoid: tuple[str, ...]
    allow: tuple[str, ...]
    line: int                      # the entry's line in the glossary file


def load_glossary(path: Path) -> list[Term]:
    """Read and validate a glossary; errors name the file and the entry's line."""
    import yaml

    text = Path(path).read_text(encoding="utf-8")
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise GlossaryError(f"{where}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    if root is None:
        return []
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or not isinstance(data.get("terms"), list):
        raise GlossaryError(f"{path}:1: expected a mapping with a `terms:` list")
    nodes = next(v for k, v in root.value if k.value == "terms").value
    terms: list[Term] = []
    seen: dict[str, int] = {}
    for entry, node in zip(data["terms"], nodes):
        line = node.start_mark.line + 1
        where = f"{path}:{line}"
        if not isinstance(entry, dict):
            raise GlossaryError(f"{where}: each term is a mapping {{concept, use, avoid, allow}}")
        unknown = set(entry) - {"concept", "use", "avoid", "allow"}
        if unknown:
            raise GlossaryError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; "
                                "a term has concept, use, avoid and allow")
        for key in ("concept", "use"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise GlossaryError(f"{where}: `{key}` must be a non-empty string")
        lists = {}
        for key in ("avoid", "allow"):
            value = entry.get(key, [])
            if not isinstance(value, list) or not all(isinstance(x, str) and x.strip() for x in value):
                raise GlossaryError(f"{where}: `{key}` must be a list of non-empty strings")
            lists[key] = tuple(x.strip() for x in value)
        for form in lists["avoid"]:
            if form in seen:
                raise GlossaryError(f"{where}: `{form}` is already avoided at line {seen[form]}")
            seen[form] = line
            if form_pattern(form).search(entry["use"]) and not any(form in a for a in lists["allow"]):
                raise GlossaryError(f"{where}: the rendering `{entry['use']}` contains the avoided "
                                    f"form `{form}`")
        terms.append(Term(entry["concept"].strip(), entry["use"].strip(), lists["avoid"],
                          lists["allow"], line))
    return terms


def is_latin(form: str) -> bool:
    return all(ord(c) < 0x2E80 for c in form)


def form_pattern(form: str) -> re.Pattern:
    if not is_latin(form):
        return re.compile(re.escape(form))
    stem = form[:-1] if form.endswith("*") else form
    tail = r"\w*" if form.endswith("*") else r"(?![\w-])"
    return re.compile(r"(?<![\w-])" + re.escape(stem) + tail, re.IGNORECASE)


def glossary_for(edition_dir: Path) -> list[Term]:
    """The glossary of an edition folder, or no terms when it has none. Kept while the file is
    unchanged: reading the YAML twice took 0.3 s of every --serve rebuild (the search index
    asks for the synonyms each time)."""
    from bookkit.util.fsutil import kept_while_unchanged
    try:
        return list(kept_while_unchanged(Path(edition_dir) / GLOSSARY_FILE, _terms))
    except FileNotFoundError:
        return []


def _terms(path: Path) -> tuple[Term, ...]:
    return tuple(load_glossary(path))
