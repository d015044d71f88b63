"""Typed numbers in headings and captions: `# 第 3 章 推理`, `## 3.1 显存`, `# Chapter 3: Memory`,
`![图 3-3 屋顶线](images/roofline.svg)`.

The pipeline numbers chapters, sections and figures itself, so a number typed by the author would
be printed twice (`第 3 章 第 3 章 推理` in the title, the TOC and the PDF headers). Books written
for other toolchains type them, and a chapter brought in from one must build without hand edits:
the typed number is removed once, here, right after parsing (every later stage, the site, search,
TOC and the Pandoc export, reads the cleaned title), and the token remembers it so the build and
`check_site.py` warn with the file and line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it.token import Token

from bookkit.util.memo import PerObject

_CJK_DIGITS = "0-9０-９一二三四五六七八九十百零〇两兩"
# The separator that may follow a typed number: a colon, a period, an ideographic comma, a dash.
_SEP = r"(?:\s*[:：.．、\-–—|]\s*|\s+)"
HEADING_NUMBER_RE = re.compile(
    r"^(?P<number>"
    rf"第\s*[{_CJK_DIGITS}]+\s*[章节節篇部]"                     # 第 3 章, 第三节
    r"|(?i:chapter|section|part|appendix)\s+(?:\d+(?:\.\d+)*|[A-Z]\b)"  # Chapter 3, Appendix B
    r"|§\s*\d+(?:\.\d+)*"                                          # § 3.1
    r"|[A-Z]?\d+(?:\.\d+)+\.?"                                     # 3.1, 3.1.2, A1.2
    r"|\d+\.(?=\s)"                                                # 3. Title
    r")"
    # Not a quantity that happens to open a heading: "1.5 倍的加速", "2.5 GB/s".
    r"(?!\s*(?:倍|个|個|%|x\b|×|[KMGT]i?B\b|GHz|[mμn]s\b))"
    + _SEP + r"(?=\S)")
CAPTION_NUMBER_RE = re.compile(
    r"^(?P<number>(?:图|圖|表|(?i:figure|fig\.|table))\s*[A-Z]?\d+(?:[-.–]\d+)*)" + _SEP + r"(?=\S)")


@dataclass(frozen=True)
class TypedNumber:
    """A typed number removed from a heading or caption (for the warnings)."""
    kind: str        # "heading" or "caption"
    number: str      # as typed: "第 3 章", "3.1.2", "图 3-3"
    line: int        # 1-based line in the chapter file


def _strip_first_text(children: list[Token], pattern: re.Pattern) -> str | None:
    """Remove the typed number from the first text child; the number, or None."""
    first = children[0] if children else None
    if first is None or first.type != "text":
        return None     # a heading opening with code, emphasis or a link is left alone
    match = pattern.match(first.content.lstrip())
    if not match:
        return None
    first.content = first.content.lstrip()[match.end():]
    return match.group("number")


def strip_typed_numbers(tokens: list[Token]) -> None:
    """Core rule: remove typed numbers from headings and from the alt text of images standing
    alone in a paragraph (figures); record them as `meta["typed_number"]` on the opening token."""
    for i, tok in enumerate(tokens):
        if i + 1 >= len(tokens) or tokens[i + 1].type != "inline":
            continue
        inline = tokens[i + 1]
        if tok.type == "heading_open":
            _take_number(tok, inline, HEADING_NUMBER_RE, "heading")
        elif tok.type == "paragraph_open":
            kids = [k for k in inline.children or []
                    if not (k.type == "text" and not k.content.strip())]
            if len(kids) == 1 and kids[0].type == "image":
                _take_number(tok, kids[0], CAPTION_NUMBER_RE, "caption")


def _take_number(opener: Token, holder: Token, pattern: re.Pattern, kind: str) -> None:
    """Strip a typed number from `holder` (a heading's inline token or a figure's image): its
    first text child and its `content`; record it on `opener`."""
    number = _strip_first_text(holder.children or [], pattern)
    if number:
        match = pattern.match(holder.content.lstrip())
        if match:
            holder.content = holder.content.lstrip()[match.end():]
        line = opener.map[0] + 1 if opener.map else 0
        if kind == "caption" and opener.meta.get("caption_line"):
            line = opener.meta["caption_line"]      # typed in the caption line under the image
        opener.meta["typed_number"] = TypedNumber(kind, number, line)


def typed_numbers(tokens: list[Token]) -> list[TypedNumber]:
    """The numbers the parser took out of the chapter's headings and captions. Walked once per
    parsed token list (the parse sets them; an unchanged chapter keeps its list from build to
    build): every --serve rebuild asked for all 39 chapters' (~12 ms)."""
    return list(_TYPED(tokens))


_TYPED = PerObject(lambda tokens: [t.meta["typed_number"] for t in tokens
                                   if "typed_number" in t.meta], limit=1024, sized=True)


def message(typed: TypedNumber) -> str:
    what = "heading" if typed.kind == "heading" else "figure caption"
    return (f"typed number `{typed.number}` removed from the {what} (the pipeline numbers "
            "chapters, sections and figures; delete it from the source)")


def warning_text(path, typed: TypedNumber) -> str:
    return f"{path}:{typed.line}: {message(typed)}"
