"""A first zh-tw draft of an original chapter: OpenCC's Simplified -> Taiwan conversion (`s2twp`,
with Taiwan phrases such as 記憶體, 軟體), applied to the prose only.

OpenCC converts every Han character it sees, so run on a whole Markdown file it would rewrite link
targets (`../数据/表.csv` -> a file that does not exist), code, URLs, IDs (`<a id="显存">`),
bound references and math. No library keeps Markdown's structure through OpenCC, so the parts
that must stay byte-identical are cut out first: block by block from markdown-it's token map
(fenced code, math blocks, HTML blocks, front matter), then inline by pattern. Each is replaced
by a placeholder of private-use characters (which OpenCC leaves alone), the rest is converted in
one pass (so phrases are matched in context), and the placeholders are put back.
"""
from __future__ import annotations

import re
from functools import lru_cache

from bookkit.source.markdown import parse

# One protected span -> two private-use characters (up to 6400² spans).
_PUA, _PUA_SIZE = 0xE000, 6400
_PLACEHOLDER_RE = re.compile(f"[{chr(_PUA)}-{chr(_PUA + _PUA_SIZE - 1)}]{{2}}")
_BLOCKS = ("fence", "code_block", "math_block", "math_block_label", "html_block", "front_matter")
# Inline spans kept as written, in the order they are cut out.
_INLINE = re.compile("|".join((
    r"(`+).+?\1",                                  # inline code
    r"\$\$.+?\$\$",                                # display math on one line
    r"(?<![\\$])\$(?!\s)[^$\n]+?(?<!\s)\$",        # inline math
    r"\{\{.*?\}\}",                                # bound references
    r"\{[#.][^}]*\}",                              # {#id .class} attributes
    r"\]\((?:<[^>]*>|[^()\s]+(?:\([^()]*\))?)(?:\s+\"[^\"]*\")?\)",   # ](link target "title")
    r"^ {0,3}\[(?!\^)[^\]]+\]:\s*\S+.*$",           # reference definitions (label and URL)
    r"\[\^[^\]]+\]",                               # footnote labels
    r"<[^>\n]+>",                                  # HTML tags and autolinks (ids, URLs)
    r"\b(?:https?|ftp)://[^\s<>)\]]+",             # bare URLs
    r"@(?:sec|fig|tbl|eq)-[\w.-]+",                # cross-references
)), re.M)


@lru_cache(maxsize=1)
def _converter():
    import opencc
    return opencc.OpenCC("s2twp")


def _placeholder(index: int) -> str:
    return chr(_PUA + index // _PUA_SIZE) + chr(_PUA + index % _PUA_SIZE)


def protect(text: str) -> tuple[str, list[str]]:
    """The text with every protected span replaced by a placeholder, and the spans."""
    tokens, _ = parse(text)
    lines = text.split("\n")
    kept: list[str] = []

    def hold(span: str) -> str:
        kept.append(span)
        return _placeholder(len(kept) - 1)

    block_lines: set[int] = set()
    for tok in tokens:
        if tok.type in _BLOCKS and tok.map:
            block_lines.update(range(tok.map[0], tok.map[1]))
    out = [hold(line) if i in block_lines else _INLINE.sub(lambda m: hold(m.group(0)), line)
           for i, line in enumerate(lines)]
    return "\n".join(out), kept


def restore(text: str, kept: list[str]) -> str:
    def back(m: re.Match) -> str:
        hi, lo = (ord(c) - _PUA for c in m.group(0))
        return kept[hi * _PUA_SIZE + lo]
    return _PLACEHOLDER_RE.sub(back, text)


def draft_zh_tw(text: str) -> str:
    """The zh-tw draft of a Simplified Chinese chapter (see the module docstring)."""
    masked, kept = protect(text)
    return restore(_converter().convert(masked), kept)
