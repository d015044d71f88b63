"""Render one resolved chapter's tokens to HTML for the website.

The token stream comes from `bookkit.source.markdown`; numbering has already stored numbers and IDs in
token attributes/meta. This module decides only how things look: headings with permalinks,
bound numbers with provenance, cross-reference links, figures, captions, KaTeX math and
pygments-highlighted code.
"""
from __future__ import annotations

import html
import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from bookkit.source.markdown import div_name, matching_open, parser
from bookkit.model import FigureImage, TokenMeta as M
from bookkit.source.images import resolve_site_image
from bookkit.source.links import LinkError, repo_link
from bookkit.render.whatif_region import Slot, open_html
# What every output reads from a resolved chapter lives in `text.py`; the site's renderer
# uses it like the others.
from bookkit.locale.text import RenderContext, bound_text, math_source, plain_inline, xref

FORMATTER = HtmlFormatter(nowrap=True)


@lru_cache(maxsize=4096)
def highlighted(lang: str, code: str) -> str:
    """Code as highlighted HTML. Memoised: the translations repeat the original's listings,
    and highlighting was over half of rendering a chapter."""
    if not lang:
        return html.escape(code)
    return highlight(code, _lexer(lang), FORMATTER)


@lru_cache(maxsize=64)
def _lexer(lang: str):
    """One lexer per language (stateless between calls): finding it by name walks Pygments'
    whole lexer table."""
    return get_lexer_by_name(lang)


def whatif_slot(env: dict, kind: str, tok: Token, **extra) -> str:
    """Inside a what-if region: record the number or formula and give it its index."""
    name = env.get("whatif")
    if not name:
        return ""
    slots = env["ctx"].whatif_slots.setdefault(name, [])
    meta = tok.meta or {}
    slots.append(Slot(kind, tok, meta.get("name", ""), meta.get("invalid") or meta.get("spec", ""),
                      **extra))
    return f' data-wi="{len(slots) - 1}"'


class BookRenderer(RendererHTML):
    """markdown-it renderer with the book's rules; `env["ctx"]` is the RenderContext."""

    def heading_open(self, tokens, idx, options, env):
        tok = tokens[idx]
        ctx: RenderContext = env["ctx"]
        ident = html.escape(tok.attrGet("id") or "")
        number = tok.meta.get(M.NUMBER, "")
        prefix = ""
        if number:
            text = (ctx.edition.strings["chapter"].format(n=number) if tok.tag == "h1"
                    else number)
            prefix = f'<span class="secno">{html.escape(text)}</span> '
        return f'<{tok.tag} id="{ident}">{prefix}'

    def heading_close(self, tokens, idx, options, env):
        tok = tokens[idx]
        opener = next(t for t in reversed(tokens[:idx]) if t.type == "heading_open")
        ident = html.escape(opener.attrGet("id") or "")
        return (f' <a class="anchor" href="#{ident}" aria-label="¶">#</a></{tok.tag}>\n')

    def bound_value(self, tokens, idx, options, env):
        tok = tokens[idx]
        ctx: RenderContext = env["ctx"]
        text, bound = bound_text(ctx, tok.meta["name"], tok.meta.get("invalid") or
                                 tok.meta["spec"], tok)
        if bound is None:
            return html.escape(text)
        prov = f"{ctx.edition.strings['computed_as']} {bound.provenance()}"
        # Not a Tab stop each (a chapter holds hundreds): app.js makes the numbers one roving
        # stop and shows the hidden `.prov` text in a single popover kept inside the viewport.
        return (f'<span class="num" data-name="{html.escape(bound.name)}"'
                f'{whatif_slot(env, "num", tok)}>'
                f'{html.escape(text)}<span class="prov">{html.escape(prov)}'
                f"</span></span>")

    def xref(self, tokens, idx, options, env):
        href, text = xref(env["ctx"], tokens[idx].meta["id"], tokens[idx])
        return f'<a class="xref" href="{html.escape(href)}">{html.escape(text)}</a>'

    def paragraph_open(self, tokens, idx, options, env):
        tok = tokens[idx]
        ctx: RenderContext = env["ctx"]
        if M.FIGURE_ID in tok.meta:
            # the caption keeps the what-if region: its bound numbers follow the reader's choice
            return self._figure(tokens, idx, ctx, {"ctx": ctx, "whatif": env.get("whatif")})
        if tok.meta.get(M.TABLE_CAPTION):
            number = tok.meta.get(M.NUMBER, "")
            label = ctx.edition.strings["table"].format(n=number)
            block = ""
            if "table_block" in tok.meta:     # moved above its table: it opens the table's block
                ident = tok.meta["table_block"]
                block = f'<div class="table-block"{f" id={chr(34)}{html.escape(ident)}{chr(34)}" if ident else ""}>'
            return (f'{block}<p class="caption table-caption"><span class="capno">{html.escape(label)}'
                    f'</span>{html.escape(ctx.edition.strings["caption_sep"])}')
        return super().renderToken(tokens, idx, options, env)

    def paragraph_close(self, tokens, idx, options, env):
        opener = matching_open(tokens, idx, "paragraph_open", "paragraph_close")
        if opener is not None and M.FIGURE_ID in opener.meta:
            return f"</figcaption>{opener.meta.get('fig_desc_html', '')}</figure>\n"
        return super().renderToken(tokens, idx, options, env)

    def _figure(self, tokens, idx, ctx: RenderContext, caption_env: dict) -> str:
        tok = tokens[idx]
        if "static_src" in tok.meta:      # an image file, not a figure script
            return static_figure_html(self, tokens, idx, ctx, caption_env)
        inline = tokens[idx + 1]
        image = next(k for k in inline.children if k.type == "image")
        fid = tok.meta[M.FIGURE_ID]
        caption = self.renderInline(image.children or [], {}, caption_env)
        alt = html.escape(plain_inline(image.children or [], ctx), quote=True)
        src = f"figures/{fid}.{ctx.edition.lang}.svg"
        w, h = ctx.figure_sizes.get((fid, ctx.edition.lang), (640, 360))
        label = ctx.edition.strings["figure"].format(n=tok.meta[M.NUMBER])
        # The image's children are rendered as the caption; skip the inline token afterwards.
        inline.meta["skip"] = True
        drawn = ctx.figures.get((fid, ctx.edition.lang))
        desc = figure_description_html(drawn, f"{fid}-desc", ctx.edition.strings)
        tok.meta["fig_desc_html"] = desc
        described = f' aria-describedby="{html.escape(fid)}-desc"' if desc else ""
        return (f'<figure id="{html.escape(fid)}"><img src="{src}" alt="{alt}"{described} '
                f'width="{w}" height="{h}" loading="lazy" decoding="async"><figcaption>'
                f'<span class="capno">{html.escape(label)}</span>'
                f'{html.escape(ctx.edition.strings["caption_sep"])}{caption}')

    def render(self, tokens, options, env):
        # As RendererHTML.render, except that a figure's inline token (already rendered as the
        # caption by `_figure`) is skipped.
        out = []
        for i in _captions_first(tokens):
            token = tokens[i]
            if token.type == "inline":
                if token.children and not token.meta.get("skip"):
                    out.append(self.renderInline(token.children, options, env))
            elif token.type in self.rules:
                out.append(self.rules[token.type](tokens, i, options, env))
            else:
                out.append(self.renderToken(tokens, i, options, env))
        return "".join(out)

    def table_open(self, tokens, idx, options, env):
        # The block (caption and table) carries the id, so a link to the table shows its caption.
        tok = tokens[idx]
        ident = tok.meta.get(M.TABLE_ID)
        attr = f' id="{html.escape(ident)}"' if ident else ""
        block = "" if tok.meta.get("caption_above") else f'<div class="table-block"{attr}>'
        _mark_numeric_columns(tokens, idx, env["ctx"])
        return f'{block}<div class="table-wrap" tabindex="0"><table>\n'

    def table_close(self, tokens, idx, options, env):
        return "</table></div></div>\n"

    def math_inline(self, tokens, idx, options, env):
        return self._math(tokens[idx], env, display=False)

    def math_inline_double(self, tokens, idx, options, env):
        return self._math(tokens[idx], env, display=True)

    def math_block(self, tokens, idx, options, env):
        return self._math(tokens[idx], env, display=True) + "\n"

    def math_block_label(self, tokens, idx, options, env):
        tok = tokens[idx]
        body = self._math(tok, env, display=True, tag=tok.meta.get(M.NUMBER))
        return f'<div class="equation" id="{html.escape(tok.meta.get(M.EQUATION_ID, ""))}">{body}</div>\n'

    def _math(self, tok: Token, env, display: bool, tag: str | None = None) -> str:
        ctx: RenderContext = env["ctx"]
        tex = math_source(ctx, tok, tag)
        if ctx.math is None:
            ctx.math_slots.append((tex, display, tok))
            body = f"\x00{len(ctx.math_slots) - 1}\x00"
        else:
            body = _katex_html(ctx, tex, display, tok, ctx.math)
        if env.get("whatif") and "{{" in tok.content:   # a formula the reader's choice changes
            attr = whatif_slot(env, "math", tok, display=display, tag=tag)
            return f'<span class="wi-math"{attr}>{body}</span>'
        return body

    def container_whatif_open(self, tokens, idx, options, env):
        ctx: RenderContext = env["ctx"]
        name = div_name(tokens[idx].info) or ""
        env["whatif"] = name
        ctx.whatif_slots.setdefault(name, [])
        return open_html(ctx, tokens[idx], (ctx.whatif or {}).get(name)) + "\n"

    def container_whatif_close(self, tokens, idx, options, env):
        env["whatif"] = None
        return "</div>\n"

    def fence(self, tokens, idx, options, env):
        tok = tokens[idx]
        ctx: RenderContext = env["ctx"]
        words = tok.info.split()
        lang = words[0] if words else ""
        if lang == "calc":
            if "show" not in words:
                return ""
            lang = "python"
        code = tok.content
        try:
            body = highlighted(lang, code)
        except ClassNotFound:
            ctx.fail(tok, f"unknown code language `{lang}`", "use a Pygments lexer name")
            body = html.escape(code)
        return (f'<div class="code"><button class="copy" type="button" '
                f'aria-label="{html.escape(ctx.edition.strings["copy"])}">'
                f'{html.escape(ctx.edition.strings["copy"])}</button>'
                f'<pre class="highlight"><code>{body}</code></pre></div>\n')

    def code_block(self, tokens, idx, options, env):
        return f'<pre class="highlight"><code>{html.escape(tokens[idx].content)}</code></pre>\n'

    def image(self, tokens, idx, options, env):
        tok = tokens[idx]
        ctx: RenderContext = env["ctx"]
        src = str(tok.attrs.get("src", ""))
        alt = plain_inline(tok.children or [], ctx)
        if not alt.strip():
            ctx.fail(tok, f"image `{src}` has no alt text", "write ![description](path)")
        if src.endswith(".py"):
            ctx.fail(tok, f"figure script `{src}` must stand alone in its paragraph")
        elif not re.match(r"^[a-z]+:|^/", src):
            found = resolve_site_image(ctx, tok, src)   # copied; a PDF converted to SVG
            src = found.src if found else src
        return f'<img src="{html.escape(src)}" alt="{html.escape(alt)}" loading="lazy">'

    def link_open(self, tokens, idx, options, env):
        tok = tokens[idx]
        href = str(tok.attrs.get("href", ""))
        if not re.match(r"^[a-z]+:|^/|^#", href):
            path, _, fragment = href.partition("#")
            slug = env["ctx"].chapter_files.get(Path(unquote(path)).name)
            if path.endswith(".md") and slug is not None:
                tok.attrs["href"] = f"{slug}.html" + (f"#{fragment}" if fragment else "")
            elif path:       # a file or folder of the repository (`../calculations/x.py`)
                ctx = env["ctx"]
                try:
                    tok.attrs["href"] = repo_link(ctx.chapter.path.parent.parent,
                                                  ctx.chapter.path, href, ctx.edition.repo)
                except LinkError as exc:
                    ctx.fail(tok, str(exc))
        return self.renderToken(tokens, idx, options, env)


# A cell that reads as quantities: "312 TFLOPS", "2.04 TB/s", "~1.5×", "705.54 亿", "38% – 43%",
# "80 GB / 3.35 TB/s", "9 times", "1/7.4". A unit is a short word or two (or up to four Chinese
# characters) after a number, so names and sentences do not match.
_VALUE = (r"[~≈<>≤≥±+\-−]?\s?[$¥€]?\d[\d,.\u202f\u00a0]*(?:\s?[万亿萬億兆])?"
          r"(?:\s?(?:%|×|[A-Za-zμµ°][\w/·°-]*(?:\s[a-z]+)?|[\u4e00-\u9fff]{1,4}(?:\s?[A-Za-z]+)?))?")
_NUMERIC_CELL = re.compile(rf"^{_VALUE}(?:\s?(?:[–~/×−+]|-|vs|to|至|到)\s?{_VALUE})*$")
# Cells that hold no value ("—", "n/a") do not make a column textual.
_EMPTY_CELL = re.compile(r"^(?:|[—–\-]|n/?a|N/?A|无|無)$")


def _mark_numeric_columns(tokens: list[Token], idx: int, ctx: RenderContext) -> None:
    """Give the cells of each numeric column the class `num-col` (right-aligned, so the
    digits of a column line up). A column is numeric when every body cell is a number or a
    bound number (or empty) and at least one is; a column the author aligned is left alone."""
    close = next(j for j in range(idx, len(tokens)) if tokens[j].type == "table_close")
    cells: dict[int, list[Token]] = {}      # column -> its th_open/td_open tokens
    numeric: dict[int, bool] = {}
    col = 0
    for j in range(idx, close):
        tok = tokens[j]
        if tok.type == "tr_open":
            col = 0
        elif tok.type in ("th_open", "td_open"):
            cells.setdefault(col, []).append(tok)
            if tok.type == "td_open":
                kids = tokens[j + 1].children or []
                text = plain_inline(kids, ctx)
                bound_only = bool(kids) and all(k.type == "bound_value" or (
                    k.type == "text" and not k.content.strip()) for k in kids)
                if bound_only or _NUMERIC_CELL.match(text.strip()):
                    numeric.setdefault(col, True)
                elif not _EMPTY_CELL.match(text.strip()):
                    numeric[col] = False
            col += 1
    for c, is_numeric in numeric.items():
        if is_numeric and not any("text-align" in str(t.attrGet("style") or "") for t in cells[c]):
            for t in cells[c]:
                t.attrSet("class", "num-col")


_NUMBER_EDGE = r"(?<![0-9A-Za-z.,]){}(?![0-9A-Za-z,]|\.[0-9])"


def figure_description_html(image: FigureImage | None, ident: str, strings: dict) -> str:
    """A diagram's text alternative (its script's `describe`, in the edition's language) under
    the figure, folded: the long description screen readers get through `aria-describedby`,
    and where a sighted reader finds the numbers the diagram draws, each with its provenance
    in the same `.num` markup (and popover) as the prose's bound numbers."""
    if image is None or not image.description:
        return ""
    import re
    text = html.escape(image.description)
    by_text: dict[str, dict] = {}
    for bound in image.bound:
        by_text.setdefault(html.escape(bound["text"]), bound)
    if by_text:
        pattern = re.compile("|".join(_NUMBER_EDGE.format(re.escape(t))
                                      for t in sorted(by_text, key=len, reverse=True)))

        def span(match) -> str:
            bound = by_text[match.group(0)]
            how = (f"{bound['expr']} = {bound['value']}" if bound.get("expr")
                   else bound["value"])
            prov = f"{strings['computed_as']} {bound['name']} = {how}"
            return (f'<span class="num" data-name="{html.escape(bound["name"])}">'
                    f'{match.group(0)}<span class="prov">{html.escape(prov)}</span></span>')

        text = pattern.sub(span, text)
    summary = html.escape(strings.get("figure_description", "Description"))
    return (f'<details class="fig-desc"><summary>{summary}</summary>'
            f'<p id="{html.escape(ident)}">{text}</p></details>')


def static_figure_html(renderer, tokens: list[Token], idx: int, ctx, caption_env: dict) -> str:
    """`<figure>` for a static figure: the image, its number and its alt text as caption."""
    tok = tokens[idx]
    inline = tokens[idx + 1]
    image = next(k for k in inline.children if k.type == "image")
    inline.meta["skip"] = True
    caption = renderer.renderInline(image.children or [], {}, caption_env)
    # A caption line under the image is the caption; the alt text stays the image's alt.
    alt = image.meta.get("alt") or plain_inline(image.children or [], ctx)
    if not alt:
        ctx.fail(tok, f"image `{tok.meta['static_src']}` has no alt text",
                 "write ![caption](path): the alt text is the figure's caption")
    found = resolve_site_image(ctx, tok, tok.meta["static_src"])
    src = found.src if found else tok.meta["static_src"]
    dims = f' width="{found.size[0]}" height="{found.size[1]}"' if found and found.size else ""
    label = ctx.edition.strings["figure"].format(n=tok.meta["number"])
    return (f'<figure id="{html.escape(tok.meta["figure_id"])}"><img src="{html.escape(src)}" '
            f'alt="{html.escape(alt, quote=True)}"{dims} loading="lazy" decoding="async">'
            f'<figcaption><span class="capno">{html.escape(label)}</span>'
            f'{html.escape(ctx.edition.strings["caption_sep"])}{caption}')




def collect_math(tokens: list[Token], ctx: RenderContext, out: set) -> None:
    """Every (tex, display) the chapter needs, after bound numbers are substituted."""
    def visit(toks):
        for tok in toks:
            if tok.type in ("math_inline",):
                out.add((math_source(ctx, tok), False))
            elif tok.type in ("math_inline_double", "math_block"):
                out.add((math_source(ctx, tok), True))
            elif tok.type == "math_block_label":
                out.add((math_source(ctx, tok, tok.meta.get(M.NUMBER)), True))
            if tok.children:
                visit(tok.children)
    visit(tokens)


def _katex_html(ctx: RenderContext, tex: str, display: bool, tok: Token, math: dict) -> str:
    rendered = math.get((tex, display))
    if rendered is None or isinstance(rendered, Exception):
        ctx.fail(tok, f"math does not render: {rendered}", "check the LaTeX")
        return f"<code>{html.escape(tex)}</code>"
    return rendered


# A NUL cannot come from the source: markdown-it replaces it with U+FFFD.
_MATH_SLOT = re.compile("\x00(\\d+)\x00")


def fill_math(body: str, ctx: RenderContext, math: dict) -> str:
    """Put the KaTeX HTML into the slots a render with ``ctx.math = None`` left.

    Why slots: the build renders chapters while KaTeX (a separate Node process) still runs,
    and fills in the formulas when it is done.
    """
    slots = ctx.math_slots

    def one(m: re.Match) -> str:
        tex, display, tok = slots[int(m.group(1))]
        return _katex_html(ctx, tex, display, tok, math)

    return _MATH_SLOT.sub(one, body) if slots else body


def _captions_first(tokens: list[Token]) -> list[int]:
    """Token order with each table's caption paragraph moved before the table: Chinese books
    (and most technical ones) set a table's caption above it, while the source writes it after."""
    order, i = [], 0
    while i < len(tokens):
        if tokens[i].type == "table_open":
            close = next(j for j in range(i, len(tokens)) if tokens[j].type == "table_close")
            cap = close + 1
            if (cap + 2 < len(tokens) and tokens[cap].type == "paragraph_open"
                    and tokens[cap].meta.get(M.TABLE_CAPTION)):
                tokens[cap].meta["table_block"] = tokens[i].meta.get(M.TABLE_ID)
                tokens[i].meta["caption_above"] = True
                order += [cap, cap + 1, cap + 2, *range(i, close + 1)]
                i = cap + 3
                continue
        order.append(i)
        i += 1
    return order


def _footnote_caption(tokens, idx, options, env) -> str:
    """`[2]` for every reference to note 2. The plugin writes `[2:1]` for the second one, a
    numbering readers do not know; the anchors stay distinct (the plugin gives them ids)."""
    return f"[{tokens[idx].meta['id'] + 1}]"


def render_chapter(tokens: list[Token], env: dict, ctx: RenderContext) -> str:
    renderer = BookRenderer(parser())
    # Plugins (footnotes) registered their rules on the parser's own renderer; reuse them.
    for name, rule in parser().renderer.rules.items():
        renderer.rules.setdefault(name, rule)
    # The plugin's rules are bound to the parser's renderer and call its footnote_caption.
    parser().renderer.rules["footnote_caption"] = _footnote_caption
    env = dict(env)
    env["ctx"] = ctx
    return renderer.render(tokens, parser().options, env)

