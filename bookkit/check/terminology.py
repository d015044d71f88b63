"""An edition's glossary: one rendering per concept, and the renderings to avoid.

`<edition folder>/glossary.yml` lists the book's concepts with the rendering the edition uses
(`use`), the renderings it must not use (`avoid`) and longer words that contain an avoided form
but are correct (`allow`: 推理模型 is "reasoning model", while 推理 alone is avoided for
"inference"). A translation that uses an avoided form in its prose gets a `terminology` finding
with the line, the form and the glossary's rendering.

Prose only: fenced and inline code, math, bound references, link targets, URLs and attributes
are masked first (the same spans the zh-tw leftover check skips), so a file name or an
identifier is never reported. Chinese forms match anywhere in a line (Chinese has no word
boundaries); Latin forms match whole words, case-insensitively, and a trailing `*` matches any
ending (`quantis*`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bookkit.check.script import prose_lines

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


@dataclass(frozen=True)
class TermUse:
    """One avoided form found in a translation."""

    line: int
    form: str
    term: Term
    context: str

    def message(self) -> str:
        return (f"`{self.form}` is avoided in this edition; use `{self.term.use}` "
                f"({self.term.concept}) in “{self.context}”")


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
            if _pattern(form).search(entry["use"]) and not any(form in a for a in lists["allow"]):
                raise GlossaryError(f"{where}: the rendering `{entry['use']}` contains the avoided "
                                    f"form `{form}`")
        terms.append(Term(entry["concept"].strip(), entry["use"].strip(), lists["avoid"],
                          lists["allow"], line))
    return terms


def _is_latin(form: str) -> bool:
    return all(ord(c) < 0x2E80 for c in form)


def _pattern(form: str) -> re.Pattern:
    if not _is_latin(form):
        return re.compile(re.escape(form))
    stem = form[:-1] if form.endswith("*") else form
    tail = r"\w*" if form.endswith("*") else r"(?![\w-])"
    return re.compile(r"(?<![\w-])" + re.escape(stem) + tail, re.IGNORECASE)


def find_avoided(text: str, terms: list[Term]) -> list[TermUse]:
    """Every avoided form in the prose of a Markdown text, with its line."""
    compiled = [(term, form, _pattern(form), [_pattern(a) for a in term.allow])
                for term in terms for form in term.avoid]
    out: list[TermUse] = []
    for number, line, prose in prose_lines(text):
        hits = []
        for term, form, pattern, allowed in compiled:
            found = list(pattern.finditer(prose))
            if not found:
                continue
            spans = [m.span() for a in allowed for m in a.finditer(prose)]
            hits += [(m.start(), m.end(), m.group(), term) for m in found
                     if not any(s <= m.start() and m.end() <= e for s, e in spans)]
        for start, end, form, term in sorted(hits, key=lambda h: h[0]):
            # 連續批處理 is one finding, not also one for the 批處理 inside it
            if any(s <= start and end <= e and (s, e) != (start, end) for s, e, _, _ in hits):
                continue
            context = line[max(0, start - 10):end + 10].strip()
            out.append(TermUse(number, form, term, context))
    return out


def glossary_for(edition_dir: Path) -> list[Term]:
    """The glossary of an edition folder, or no terms when it has none."""
    path = Path(edition_dir) / GLOSSARY_FILE
    return load_glossary(path) if path.is_file() else []
