"""Number chapters, sections, figures, tables and equations, and collect every label.

Authors never type numbers: the order of the chapters in book.yml and of the blocks in each file
decides them. The same walk runs on every edition, so a figure has the same number everywhere.
"""
from __future__ import annotations

from typing import Callable

from markdown_it.token import Token

from bookkit.source.markdown import inline_text
from bookkit.model import BuildError, ChapterOutline, ChapterSource, Label, TokenMeta as M
from bookkit.source.images import is_static_figure, lone_image


def is_figure_paragraph(tokens: list[Token], i: int) -> bool:
    """A paragraph holding only an image whose target is a figure script (`….py`)."""
    image = lone_image(tokens, i)
    return image is not None and str(image.attrs.get("src", "")).endswith(".py")


def number_static_figure(chapter: ChapterSource, tokens: list[Token], i: int,
                         number: str, ordinal: int) -> Label:
    """Give a static figure its number and ID (`{#fig-…}` if written, else positional, the same
    in every edition since translations keep the figures' order); returns its label."""
    image = next(k for k in tokens[i + 1].children if k.type == "image")
    ident = str(image.attrs.get("id") or "")
    if not ident.startswith("fig-"):
        ident = f"fig-{chapter.slug}-{ordinal}"
    tokens[i].meta.update(figure_id=ident, number=number, static_src=str(image.attrs["src"]))
    return Label(ident, "figure", number, chapter.slug, image.content)


def number_chapter(chapter: ChapterSource, tokens: list[Token], labels: dict[str, Label],
                   text_of: Callable[[Token], str] = inline_text) -> ChapterOutline:
    """Number the chapter's headings and blocks; `text_of` turns a heading's or caption's inline
    token into the plain title shown in tables of contents (the build passes one that formats
    bound numbers, so `{{ n }}K 上下文` reads `128K 上下文` in the TOC too)."""
    outline = ChapterOutline(chapter=chapter)
    n = chapter.number
    counters = {"h2": 0, "h3": 0, "figure": 0, "table": 0, "equation": 0}
    path = chapter.path

    def add(label: Label, line: int | None) -> None:
        if label.id in labels:
            other = labels[label.id]
            raise BuildError(path, line, f"duplicate label `{label.id}` (also in {other.slug})",
                             "every {#id} must be unique in the book")
        labels[label.id] = label

    def line_of(tok: Token) -> int | None:
        return tok.map[0] + 1 if tok.map else None

    seen_h1 = False
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            level = int(tok.tag[1])
            title = text_of(tokens[i + 1]).strip()
            if level == 1:
                if seen_h1:
                    raise BuildError(path, line_of(tok), "a second level-1 heading",
                                     "a file holds one chapter: use ## for sections")
                seen_h1 = True
                ident = tok.attrGet("id") or f"sec-{chapter.slug}"
                tok.attrSet("id", ident)
                unnumbered = "unnumbered" in str(tok.attrGet("class") or "").split()
                number = str(n) if n > 0 and not unnumbered else ""
                tok.meta[M.NUMBER] = number
                outline.title, outline.title_id = title, ident
                add(Label(ident, "chapter", number, chapter.slug, title), line_of(tok))
                continue
            if not seen_h1:
                raise BuildError(path, line_of(tok), "the file must start with a level-1 heading "
                                 "(the chapter title)")
            number = ""
            if "unnumbered" in str(tok.attrGet("class") or "").split():
                # `{.unnumbered}` / `{-}`: no number, and the numbered sections count on
                # without it (Pandoc's reading); the id is positional among such headings.
                counters["unnumbered"] = counters.get("unnumbered", 0) + 1
                ident = tok.attrGet("id") or f"sec-{chapter.slug}-u{counters['unnumbered']}"
            else:
                ident = None
                if level == 2:
                    counters["h2"] += 1
                    counters["h3"] = 0
                    number = f"{n}.{counters['h2']}" if n > 0 else ""
                elif level == 3:
                    counters["h3"] += 1
                    number = f"{n}.{counters['h2']}.{counters['h3']}" if n > 0 else ""
            ident = ident or tok.attrGet("id") or (
                f"sec-{chapter.slug}-{counters['h2']}" + (f"-{counters['h3']}" if level == 3 else "")
                if level <= 3 else f"sec-{chapter.slug}-h{i}")
            tok.attrSet("id", ident)
            tok.meta[M.NUMBER] = number
            if level <= 3:
                outline.sections.append((level, ident, number, title))
            add(Label(ident, "section", number, chapter.slug, title), line_of(tok))
        elif tok.type == "paragraph_open" and is_figure_paragraph(tokens, i):
            image = next(k for k in tokens[i + 1].children if k.type == "image")
            ident = image.attrs.get("id")
            if not ident or not str(ident).startswith("fig-"):
                raise BuildError(path, line_of(tok), "an executable figure needs an ID",
                                 "write ![caption](figures/x.py){#fig-x}")
            counters["figure"] += 1
            number = f"{n}-{counters['figure']}"
            tok.meta.update({M.FIGURE_ID: ident, M.NUMBER: number})
            add(Label(str(ident), "figure", number, chapter.slug, image.content), line_of(tok))
            outline.figures.append((str(ident), str(image.attrs["src"]), line_of(tok) or 0))
        elif tok.type == "paragraph_open" and is_static_figure(tokens, i):
            counters["figure"] += 1
            add(number_static_figure(chapter, tokens, i, f"{n}-{counters['figure']}",
                                     counters["figure"]), line_of(tok))
        elif tok.type == "paragraph_open" and tok.meta.get(M.TABLE_CAPTION):
            ident = tok.meta.get(M.TABLE_ID)
            counters["table"] += 1
            number = f"{n}-{counters['table']}"
            tok.meta[M.NUMBER] = number
            # The id goes on the table itself so a link lands on the table, not its caption.
            j = i - 1
            while j >= 0 and tokens[j].type != "table_open":
                j -= 1
            tokens[j].meta.update({M.TABLE_ID: ident, M.NUMBER: number})
            if ident:
                add(Label(ident, "table", number, chapter.slug, text_of(tokens[i + 1])),
                    line_of(tok))
        elif tok.type == "math_block_label":
            ident = tok.info.strip()
            counters["equation"] += 1
            number = f"{n}.{counters['equation']}"
            tok.meta.update({M.EQUATION_ID: ident, M.NUMBER: number})
            add(Label(ident, "equation", number, chapter.slug, ""), line_of(tok))
    if not seen_h1:
        raise BuildError(path, 1, "no level-1 heading", "start the file with `# Chapter title`")
    return outline
