"""Simplified characters left in the Traditional Chinese (zh-tw) translation.

The zh-tw edition starts as an OpenCC conversion of the original and is then edited by hand; a
sentence pasted from the original keeps its Simplified characters (数据, 这个), which readers
see at once. A character is reported when OpenCC's Simplified-to-Taiwan conversion changes it
both on its own and in its line. Why both: a character like 干, 后 or 里 is also ordinary
Traditional (若干, 皇后, 公里), and OpenCC's phrase tables keep it in such words; a character
like 了 or 只 is unchanged on its own but rewritten inside some phrases (了解 -> 瞭解), which in
Traditional text are not errors either.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from bookkit.source.markdown import BOUND_SPAN_RE, block_tokens, not_prose_lines

#: spans whose text is not prose: inline code, math, bound references (the parser's grammar),
#: link targets, URLs
_NOT_PROSE = re.compile(r"`[^`]*`|\$\$?[^$]*\$\$?|" + BOUND_SPAN_RE.pattern
                        + r"|\]\([^)]*\)|https?://\S+|\{#[^}]*\}")


@dataclass(frozen=True)
class Leftover:
    line: int
    char: str
    traditional: str
    context: str


@lru_cache(maxsize=1)
def _converter():
    import opencc
    return opencc.OpenCC("s2tw")


#: characters OpenCC rewrites but Taiwan writes as they are: 台 is the everyday form (台灣, 一台
#: 伺服器, 服務台) beside the formal 臺; 干 is the Traditional character of 干擾, 干涉 and 若干 (OpenCC
#: rewrites it to 幹 or 乾 in some phrases); 占 ("occupy", 占用, 占比) is the Ministry of
#: Education's standard form, 佔 its variant. A zh-tw text that uses them has no leftover.
TAIWAN_STANDARD = frozenset("台干占")


@lru_cache(maxsize=8192)
def _changes_alone(ch: str) -> bool:
    return ch not in TAIWAN_STANDARD and _converter().convert(ch) != ch


def prose_lines(text: str):
    """(line number, line, prose) for each line outside code, display math and front matter
    (as the parser reads the blocks), with the spans in it that are not prose (code, math,
    bound references, link targets, URLs, attributes) blanked out, so positions in ``prose``
    are positions in ``line``."""
    hidden = not_prose_lines(block_tokens(text))
    for index, line in enumerate(text.splitlines()):
        if index in hidden:
            continue
        yield index + 1, line, _NOT_PROSE.sub(lambda m: " " * len(m.group()), line)


def leftover_simplified(text: str) -> list[Leftover]:
    """Every Simplified character in the prose of a zh-tw Markdown text, with its line."""
    out: list[Leftover] = []
    for number, line, prose in prose_lines(text):
        if not any(ord(c) > 0x2E7F for c in line):
            continue
        converted = _converter().convert(prose)
        if len(converted) != len(prose):   # a phrase changed length: compare character-wise
            continue
        for i, (ch, tr) in enumerate(zip(prose, converted)):
            if ch != tr and _changes_alone(ch):
                out.append(Leftover(number, ch, tr, line[max(0, i - 8):i + 9].strip()))
    return out


def describe(x: Leftover) -> str:
    return f"Simplified character `{x.char}` (Traditional `{x.traditional}`) in “{x.context}”"
