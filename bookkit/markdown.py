"""The book's Markdown dialect on markdown-it-py: CommonMark + tables, footnotes, dollar math,
inline attributes, and three rules of our own that no plugin provides:

- `{{ name | spec }}` bound numbers (token `bound_value`),
- `@sec-…`, `@fig-…`, `@tbl-…`, `@eq-…` cross-references (token `xref`),
- trailing `{#id .class}` on headings, `: caption {#tbl-…}` after tables and `$$ … $$ {#eq-…}`,
  written the way Pandoc and Quarto read them, moved into token attributes.
"""
from __future__ import annotations

import re
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.attrs import attrs_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from .model import TokenMeta
from .typed_numbers import strip_typed_numbers

BOUND_RE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\\?\|\s*([^}]*?))?\s*\}\}")
XREF_RE = re.compile(r"@((?:sec|fig|tbl|eq)-[A-Za-z0-9_]+(?:[-.][A-Za-z0-9_]+)*)")
HEADING_ATTRS_RE = re.compile(r"\s*\{((?:\s*[#.][A-Za-z0-9_:.-]+)+)\s*\}\s*$")
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
        end = state.src.find("}}", state.pos + 2)
        if end < 0:
            return False
        if not silent:
            token = state.push("bound_value", "span", 0)
            token.meta = {"name": "", "spec": "", "invalid": state.src[state.pos:end + 2]}
            token.content = state.src[state.pos:end + 2]
        state.pos = end + 2
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


# A what-if region (`bookkit.resolve.scenarios`, `bookkit.render.whatif`): `::: {.whatif #wi-name}`.
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
