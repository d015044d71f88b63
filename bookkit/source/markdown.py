"""The book's Markdown dialect on markdown-it-py: CommonMark + tables, footnotes, dollar math,
inline attributes, and three rules of our own that no plugin provides:

- `{{ name | spec }}` bound numbers (token `bound_value`),
- `@sec-…`, `@fig-…`, `@tbl-…`, `@eq-…` cross-references (token `xref`),
- trailing `{#id .class}` on headings (`{-}` is `.unnumbered`), `: caption {#tbl-…}` after
  tables and `$$ … $$ {#eq-…}`, written the way Pandoc and Quarto read them, moved into token
  attributes;
- a figure's caption line (`*图 1-1 …*` under an image) made the figure's caption;
- emphasis next to CJK punctuation (`**粗体（注）**后`), which CommonMark's flanking rules refuse.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.state_inline import Delimiter
from markdown_it.token import Token
from mdit_py_plugins.attrs import attrs_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from bookkit.model import TokenMeta
from bookkit.source.typed_numbers import strip_typed_numbers

# The bound-number grammar, defined once for the parser, the renderers and the checks:
# `{{ name }}` or `{{ name | spec }}`, and `{{ name \| spec }}` in a table cell (the pipe
# escaped so the table keeps its columns). A name is an identifier without dots: only a name a
# calculation cell assigned can be bound. BOUND_SPAN_RE is the extent of any `{{ … }}`, valid or
# not: the parser turns an invalid one (`{{ m.attr }}`, `{{ 1 / x }}`) into an error token, and
# the checks leave it out of the prose as they do a valid one.
BOUND_RE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\\?\|\s*([^}]*?))?\s*\}\}")
BOUND_SPAN_RE = re.compile(r"\{\{.*?\}\}", re.S)
XREF_RE = re.compile(r"@((?:sec|fig|tbl|eq)-[A-Za-z0-9_]+(?:[-.][A-Za-z0-9_]+)*)")
HEADING_ATTRS_RE = re.compile(r"\s*\{((?:\s*(?:[#.][A-Za-z0-9_:.-]+|-(?=[\s}])))+)\s*\}\s*$")
CAPTION_RE = re.compile(r"^:\s+(.*?)(?:\s*\{#(tbl-[A-Za-z0-9_-]+)\})?\s*$", re.S)
# `$$ {#eq-x}` (Pandoc/Quarto spelling) -> `$$ (eq-x)` (what dollarmath's label rule reads).
EQ_LABEL_RE = re.compile(r"^([ \t]*\$\$)[ \t]*\{#(eq-[A-Za-z0-9_-]+)\}[ \t]*$", re.M)


def _bound_value_rule(state: StateInline, silent: bool) -> bool:
    if not state.src.startswith("{{", state.pos):
        return False
    match = BOUND_RE.match(state.src, state.pos)
    if not match:
        # `{{ 1 / x }}` or `{{ m.attr }}`: only names can be bound; say so instead of
        # printing the braces into the page.
        span = BOUND_SPAN_RE.match(state.src, state.pos)
        if not span:
            return False
        if not silent:
            token = state.push("bound_value", "span", 0)
            token.meta = {"name": "", "spec": "", "invalid": span.group(0)}
            token.content = span.group(0)
        state.pos = span.end()
        return True
    if not silent:
        token = state.push("bound_value", "span", 0)
        token.meta = {"name": match.group(1), "spec": (match.group(2) or "").strip()}
        token.content = match.group(0)
    state.pos = match.end()
    return True


def _xref_rule(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != "@":
        return False
    if state.pos > 0 and (state.src[state.pos - 1].isalnum() or state.src[state.pos - 1] in "_."):
        return False  # an e-mail address or a word, not a reference
    match = XREF_RE.match(state.src, state.pos)
    if not match:
        return False
    target = match.group(1).rstrip(".")
    if not silent:
        token = state.push("xref", "a", 0)
        token.meta = {"id": target}
        token.content = "@" + target
    state.pos += 1 + len(target)
    return True


def _parse_attr_block(text: str) -> tuple[str | None, list[str]]:
    ident, classes = None, []
    for part in text.split():
        if part.startswith("#"):
            ident = part[1:]
        elif part.startswith("."):
            classes.append(part[1:])
        elif part == "-":              # Pandoc's shorthand for .unnumbered
            classes.append("unnumbered")
    return ident, classes


def _block_attrs_rule(state) -> None:
    """Move heading `{#id}` and table captions into attributes (core rule, after inline)."""
    tokens: list[Token] = state.tokens
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            inline = tokens[i + 1]
            match = HEADING_ATTRS_RE.search(inline.content)
            if match:
                ident, classes = _parse_attr_block(match.group(1))
                inline.content = inline.content[: match.start()]
                last = inline.children[-1] if inline.children else None
                if last is not None and last.type == "text":
                    m2 = HEADING_ATTRS_RE.search(last.content)
                    if m2:
                        last.content = last.content[: m2.start()]
                if ident:
                    tok.attrSet("id", ident)
                if classes:
                    tok.attrSet("class", " ".join(classes))
        elif tok.type == "table_close" and i + 3 < len(tokens):
            para, inline = tokens[i + 1], tokens[i + 2]
            if para.type == "paragraph_open" and inline.content.startswith(": "):
                match = CAPTION_RE.match(inline.content)
                if not match:
                    continue
                para.meta[TokenMeta.TABLE_CAPTION] = True
                if match.group(2):
                    para.meta[TokenMeta.TABLE_ID] = match.group(2)
                # Strip ": " and "{#tbl-…}" from the rendered children.
                kids = inline.children or []
                if kids and kids[0].type == "text":
                    kids[0].content = kids[0].content[2:].lstrip()
                if kids and kids[-1].type == "text" and match.group(2):
                    kids[-1].content = re.sub(r"\s*\{#tbl-[A-Za-z0-9_-]+\}\s*$", "",
                                              kids[-1].content)


# A caption line under a figure: one emphasis spanning the line (`*图 1-1 …*`), or a line that
# opens with a figure label (`图 1-2 …`, `圖 1-2`, `Figure 1-2`).
CAPTION_LINE_RE = re.compile(r"^\s*(?:图|圖|(?i:figure|fig\.))\s*[A-Z]?\d+(?:[-.–]\d+)*(?!\d)")


def _caption_kids(kids: list[Token], strict: bool = False) -> list[Token] | None:
    """The caption's inline tokens if `kids` (a line's inline children) is a caption line.
    `strict` (a paragraph of its own, not a line right under the image): a line opening with a
    label must also read as a caption, one line with no sentence before its end, so that a
    paragraph of prose that starts `图 1-2 显示了…。…` stays prose."""
    while kids and kids[0].type == "text" and not kids[0].content.strip():
        kids = kids[1:]
    while kids and kids[-1].type == "text" and not kids[-1].content.strip():
        kids = kids[:-1]
    if len(kids) >= 3 and kids[0].type == "em_open" and kids[-1].type == "em_close":
        depth = 0
        for k, kid in enumerate(kids):
            depth += {"em_open": 1, "em_close": -1}.get(kid.type, 0)
            if depth == 0 and k < len(kids) - 1:
                break               # `*a* and *b*`: two emphases, not a caption line
        else:
            return kids[1:-1]
    if kids and kids[0].type == "text" and CAPTION_LINE_RE.match(kids[0].content):
        if strict:
            text = "".join(k.content for k in kids if k.type == "text")
            if any(k.type in ("softbreak", "hardbreak") for k in kids) or len(text) > 120 \
                    or re.search(r"[。！？!?]|\.\s", text.rstrip("。.!！?？ ")):
                return None
        return kids
    return None


def _figure_captions_rule(state) -> None:
    """An image alone in its paragraph followed by a caption line, in the same paragraph or the
    next, is one figure with one caption: the caption line becomes the image's caption (its
    children, which every renderer shows as the figure's caption), the alt text is kept in
    `meta["alt"]` for the `alt` attribute, and the caption line's tokens go. Books made for
    MkDocs write both (the alt text for the image, the italic line for readers); showing both
    printed every caption twice."""
    tokens: list[Token] = state.tokens
    i = 0
    while i + 2 < len(tokens):
        tok, inline = tokens[i], tokens[i + 1]
        if tok.type != "paragraph_open" or inline.type != "inline" or not inline.children:
            i += 1
            continue
        kids = inline.children
        image = kids[0] if kids[0].type == "image" else None
        src = str(image.attrs.get("src", "")) if image is not None else ""
        if image is None or src.endswith(".py"):
            i += 1
            continue
        caption, drop = None, 0
        if len(kids) > 2 and kids[1].type in ("softbreak", "hardbreak"):
            caption = _caption_kids(kids[2:])                 # image, then its line below
        elif len(kids) == 1 and i + 5 < len(tokens) and tokens[i + 3].type == "paragraph_open" \
                and tokens[i + 4].type == "inline":
            caption = _caption_kids(tokens[i + 4].children or [], strict=True)  # next paragraph
            drop = 3 if caption is not None else 0
        if caption is None:
            i += 1
            continue
        line = tokens[i + 3].map[0] + 1 if drop and tokens[i + 3].map else (
            kids[2].map[0] + 1 if kids[2].map else None)
        image.meta["alt"] = image.content
        image.children = caption
        image.content = inline_text(image)
        inline.children = [image]
        tok.meta["caption_line"] = line
        if drop:
            if tok.map and tokens[i + 3].map:    # the paragraph now spans both lines
                tok.map = [tok.map[0], tokens[i + 3].map[1]]
            del tokens[i + 3:i + 3 + drop]
        i += 3


def _is_cjk(char: str) -> bool:
    """A character of Chinese, Japanese or Korean text: wide or full-width (ideographs, kana,
    Hangul, CJK punctuation such as （ ） 。 “ ”)."""
    return unicodedata.east_asian_width(char) in ("W", "F")


def _cjk_emphasis_rule(state: StateInline, silent: bool) -> bool:
    """markdown-it's emphasis tokenizer with CJK-friendly flanking (after the proposal of the
    CommonMark CJK discussion, commonmark-spec issue 650).

    CommonMark lets `**` close only if the character before it is not punctuation or the one
    after it is space or punctuation; `**粗体（注）**后` fails (`）` before, `后` after) and so
    does `这是**“引号”**。`'s opening. Here a CJK character counts like whitespace on the outer
    side and CJK punctuation never blocks on the inner side; runs with no CJK neighbour get
    exactly CommonMark's answer. Written here: the only markdown-it-py plugin for this on PyPI
    (mdit-py-cjk-friendly) requires markdown-it-py < 4 and patches `StateInline` for every
    parser in the process; markdown-it-py's `StateInline` has slots, so the scan cannot be
    overridden per instance either, and this rule replaces the `emphasis` tokenizer instead
    (its post-processing, which pairs the delimiters, is markdown-it's own)."""
    start = state.pos
    marker = state.src[start]
    if silent or marker not in "_*":
        return False
    pos = start
    while pos < state.posMax and state.src[pos] == marker:
        pos += 1
    before = state.src[start - 1] if start > 0 else " "
    after = state.src[pos] if pos < state.posMax else " "
    before_space, after_space = isWhiteSpace(ord(before)), isWhiteSpace(ord(after))
    before_punct = isMdAsciiPunct(ord(before)) or isPunctChar(before)
    after_punct = isMdAsciiPunct(ord(after)) or isPunctChar(after)
    before_cjk, after_cjk = _is_cjk(before), _is_cjk(after)
    left = not after_space and (not after_punct or after_cjk or before_space or before_punct
                                or before_cjk)
    right = not before_space and (not before_punct or before_cjk or after_space or after_punct
                                  or after_cjk)
    if marker == "*":
        can_open, can_close = left, right
    else:   # `_` inside a word (snake_case, 中文_x_中文) stays literal, as in CommonMark
        can_open = left and (not right or before_punct)
        can_close = right and (not left or after_punct)
    for _ in range(pos - start):
        token = state.push("text", "", 0)
        token.content = marker
        state.delimiters.append(Delimiter(marker=ord(marker), length=pos - start,
                                          token=len(state.tokens) - 1, end=-1,
                                          open=can_open, close=can_close))
    state.pos = pos
    return True


def _child_lines_rule(state) -> None:
    """Give inline children a line map (markdown-it leaves it empty) for file:line errors."""
    for tok in state.tokens:
        if tok.type != "inline" or not tok.map or not tok.children:
            continue
        line = tok.map[0]
        for child in tok.children:
            child.map = [line, line + 1]
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.content:
                line += child.content.count("\n")
            for grandchild in child.children or []:
                grandchild.map = child.map


def _is_whatif_div(params: str, *_args) -> bool:
    return div_name(params) is not None


# A what-if region (`bookkit.resolve.scenarios`, `bookkit.render.site.whatif_data`): `::: {.whatif #wi-name}`.
DIV_RE = re.compile(r"^\{\s*(?=[^}]*\.whatif\b)(?:(?:\.whatif|#wi-([A-Za-z0-9_-]+))\s*)+\}$")


def div_name(params: str) -> str | None:
    """The scenario name of a `::: {.whatif #wi-name}` line's attributes ('' without an id);
    None if the div is not a what-if region."""
    text = params.strip()
    if not DIV_RE.match(text):
        return None
    ident = re.search(r"#wi-([A-Za-z0-9_-]+)", text)
    return ident.group(1) if ident else ""


def region_tokens(tokens):
    """(scenario name, token) for every token inside a region, inline children included."""
    current = None
    for tok in tokens:
        if tok.type == "container_whatif_open":
            current = div_name(tok.info)
            continue
        if tok.type == "container_whatif_close":
            current = None
            continue
        if current:
            yield current, tok
            for child in tok.children or []:
                yield current, child


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    md = (
        MarkdownIt("commonmark", {"html": True})
        .enable("table")
        .use(front_matter_plugin)
        .use(footnote_plugin)
        .use(dollarmath_plugin, allow_labels=True, allow_space=True, allow_digits=True,
             double_inline=True)
        .use(attrs_plugin)
        # `::: {.whatif #wi-name}` … `:::`: a what-if region (Pandoc's fenced-div syntax).
        .use(container_plugin, "whatif", validate=_is_whatif_div)
    )
    md.inline.ruler.before("text", "bound_value", _bound_value_rule)
    md.inline.ruler.before("text", "xref", _xref_rule)
    # The text rule swallows runs of "ordinary" characters; `{` and `@` must stop it.
    md.core.ruler.push("block_attrs", _block_attrs_rule)
    md.core.ruler.push("child_lines", _child_lines_rule)
    # Before typed numbers: the caption line's `图 1-1` is removed like an alt text's.
    md.core.ruler.push("figure_captions", _figure_captions_rule)
    md.inline.ruler.at("emphasis", _cjk_emphasis_rule)
    # Real-world chapters type "第 3 章" / "3.1" into headings: removed once, here.
    md.core.ruler.push("typed_numbers", lambda state: strip_typed_numbers(state.tokens))
    return md


def preprocess(text: str) -> str:
    """Same line count in and out, so token line maps point into the author's file."""
    return EQ_LABEL_RE.sub(lambda m: f"{m.group(1)} ({m.group(2)})", text)


def parse(text: str) -> tuple[list[Token], dict]:
    env: dict = {}
    tokens = parser().parse(preprocess(text), env)
    return tokens, env


@lru_cache(maxsize=1)
def parser_digest() -> str:
    """What a parse depends on besides the text: this module and the modules of its own it
    calls, and the versions of markdown-it and its plugins. Part of the key of a parse kept in
    the cache (`resolve.book.Resolver.parsed`)."""
    import hashlib
    from pathlib import Path

    import markdown_it
    import mdit_py_plugins

    from bookkit import model
    from bookkit.source import typed_numbers
    h = hashlib.sha256()
    for path in (__file__, model.__file__, typed_numbers.__file__):
        h.update(Path(path).read_bytes())
    # the packages' own version attributes: importlib.metadata took ~15-45 ms of a one-second
    # cold build to import and scan the installed distributions
    for version in (markdown_it.__version__, mdit_py_plugins.__version__):
        h.update(version.encode())
    return h.hexdigest()


#: Blocks whose lines are not prose: code, display math, front matter. (Raw HTML blocks are
#: read: the checks look at their ids, and at the text of a comment.)
NOT_PROSE_BLOCKS = frozenset({"fence", "code_block", "math_block", "math_block_label",
                              "front_matter"})


def block_tokens(text: str) -> list[Token]:
    """The chapter's block tokens as `parse` reads them, without parsing inline content (a check
    that asks only which lines are code or math runs about four times faster)."""
    md = parser()
    tokens: list[Token] = []
    # what markdown-it's `normalize` core rule does before the block rules
    src = preprocess(text).replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
    md.block.parse(src, md, {}, tokens)
    return tokens


def not_prose_lines(tokens: list[Token]) -> set[int]:
    """The 0-based lines inside code, display math and front matter blocks."""
    hidden: set[int] = set()
    for tok in tokens:
        if tok.map and tok.type in NOT_PROSE_BLOCKS:
            hidden.update(range(tok.map[0], tok.map[1]))
    return hidden


def matching_open(tokens: list[Token], close: int, open_type: str,
                  close_type: str) -> Token | None:
    """The opening token that `tokens[close]` (a `close_type`) closes, found by position and
    nesting depth (tokens compare equal by value, so every closer "equals" the first)."""
    depth = 0
    for j in range(close - 1, -1, -1):   # no slice: paragraphs ask this on every close
        tok = tokens[j]
        if tok.type == close_type:
            depth += 1
        elif tok.type == open_type:
            if depth == 0:
                return tok
            depth -= 1
    return None


def inline_text(token: Token) -> str:
    """Plain text of an inline token's children (for titles, captions and search)."""
    out = []
    for child in token.children or []:
        if child.type in ("text", "code_inline", "math_inline"):
            out.append(child.content)
        elif child.type == "image":
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
    return "".join(out)
