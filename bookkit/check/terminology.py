"""An edition's glossary: one rendering per concept, and the renderings to avoid.

`<edition folder>/glossary.yml` lists the book's concepts with the rendering the edition uses
(`use`), the renderings it must not use (`avoid`) and longer words that contain an avoided form
but are correct (`allow`: 推理模型 is "reasoning model", while 推理 alone is avoided for
"inference"). Every edition may have one, the original included (`manuscripts/glossary.yml`: 核函数
for a GPU kernel, not 内核; 下界, not 下限). An edition's file that uses an avoided form in its prose
gets a `terminology` finding with the line, the form and the glossary's rendering.

Prose only: fenced and inline code, math, bound references, link targets, URLs and attributes
are masked first (the same spans the zh-tw leftover check skips), so a file name or an
identifier is never reported. Chinese forms match anywhere in a line (Chinese has no word
boundaries); Latin forms match whole words, case-insensitively, and a trailing `*` matches any
ending (`quantis*`).
"""
from __future__ import annotations

from dataclasses import dataclass

from bookkit.check.script import prose_lines
from bookkit.source.glossary import (GLOSSARY_FILE, GlossaryError, Term, form_pattern,
                                      glossary_for, load_glossary)

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


def find_avoided(text: str, terms: list[Term]) -> list[TermUse]:
    """Every avoided form in the prose of a Markdown text, with its line."""
    compiled = [(term, form, form_pattern(form), [form_pattern(a) for a in term.allow])
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
