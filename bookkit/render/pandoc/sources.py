"""Pandoc Markdown from the resolved book: the sources of the PDF and the EPUB.

`write_sources` writes one directory per edition: `metadata.yaml`, `chapters.txt`, one Pandoc
Markdown file per chapter with numbers substituted, headings/figures/tables/equations numbered
by the pipeline, cross-references as links and footnote labels made unique across the book,
and `figures/<id>.pdf|svg`. `bookkit.render.pandoc.convert` turns that directory into PDF and EPUB.
"""
from __future__ import annotations

import copy
import re
import shutil
import uuid
from pathlib import Path

import yaml

from bookkit.util.fsutil import swap_dir
from bookkit.source.markdown import BOUND_RE, CAPTION_RE, matching_open
from bookkit.model import BuildError, ResolvedBook, TokenMeta as M
from bookkit.render.whatif_region import export_note
from bookkit.render.pandoc import latex_errors, realworld
from bookkit.locale.text import RenderContext, bound_text, chapter_context, xref

# Inline code spans and math, which the line substitution of `substituted_text` leaves alone.
SEGMENT_RE = re.compile(r"(`+)(?:.+?)\1|\$\$.+?\$\$|(?<![\\$])\$(?!\s)[^$\n]+?(?<!\s)\$")
# Characters that may start markup in Pandoc's Markdown (emphasis, code, links, math, raw TeX
# and HTML, citations, sub/superscript, table cells, attributes). A backslash before any ASCII
# punctuation is a literal to Pandoc, so escaping one that was not markup changes nothing.
# Quotes, dashes and dots are left as they are: Pandoc's `smart` reading of them is wanted.
ESCAPE_RE = re.compile(r"([\\`*_\[\]$<>@~^|{}#])")
# The author's text is passed as written (in a table cell `|` is escaped): no source escapes
# anything, and where markdown-it and Pandoc read characters differently the PDF and EPUB have
# always had Pandoc's reading — `**生成（rollout）**阶段` is bold to Pandoc only, lines starting
# with `| ` after a table's blank line are a line block, `\command` in prose is raw TeX.


def source_marker(path: Path, line: int) -> str:
    """An empty Div naming the author's file and line; the LaTeX filter (`render/pandoc.py`,
    filters/latex.lua) turns it into the TeX comment `% bookkit-source LINE PATH`, the EPUB filter drops
    it. Not a raw LaTeX block: a translation is read with raw TeX off (the trust boundary), and
    Pandoc then printed the block as code in the translations' PDFs, build paths and all."""
    return f'::: {{.{latex_errors.MARKER_CLASS} line="{line}" path="{path}"}}\n:::'


def escape(text: str) -> str:
    return ESCAPE_RE.sub(r"\\\1", text)


# A bound value this short is one unit of meaning ("8.0 ms", "NVIDIA RTX 4090"): its spaces
# become no-break spaces, so TeX never puts a number on one line (or page, with the footnotes
# between) and its unit on the next. Longer values (a phrase, a list) keep their breakpoints,
# or a line with one could not be justified.
UNBREAKABLE_MAX_CHARS = 20


def unbreakable(text: str) -> str:
    return text.replace(" ", "\u00a0") if len(text) <= UNBREAKABLE_MAX_CHARS else text


# What Pandoc would read as raw TeX (`\\input{…}`), raw HTML, attributes (`[x]{onclick=…}`,
# `{=latex}`) or math in a translation's text that markdown-it read as plain text (the site
# shows it as text): escaped, so the PDF and EPUB show the same text (the trust boundary,
# `bookkit.source.trust`). Emphasis and links keep Pandoc's reading, as in the original.
UNTRUSTED_RE = re.compile(r"([\\<>{}$])")
HTML_COMMENT_RE = re.compile(r"<!--.*?-->", re.S)


def untrusted_text(text: str) -> str:
    return UNTRUSTED_RE.sub(r"\\\1", text)


class PandocWriter:
    """One chapter's Pandoc Markdown, written from its resolved tokens.

    Numbers, ids and captions come from the token meta numbering stored (`TokenMeta`); bound
    numbers are formatted for the edition (their LaTeX form inside math); cross-references
    become links to the label's anchor; footnote labels get the chapter's prefix, since they
    are per chapter in the sources but must be unique in one Pandoc document.
    """

    def __init__(self, ctx: RenderContext, footnote_prefix: str) -> None:
        self.ctx = ctx
        self.strings = ctx.edition.strings
        self.prefix = footnote_prefix
        self.lines = ctx.chapter.text.splitlines()
        self.in_cell = False
        self.trusted = ctx.edition.spec.trusted

    # -- blocks ---------------------------------------------------------------------------
    def chapter(self, tokens, line_map: list[int] | None = None) -> str:
        """The chapter's text; `line_map` (if given) receives, for each line written, the line
        of the author's file it comes from (LaTeX errors are reported there)."""
        blocks: list[tuple[int, str]] = []
        i, last = 0, 0
        while i < len(tokens):
            tok = tokens[i]
            start = next((t.map[0] for t in tokens[i:] if t.map), last)
            block, i = self.block(tokens, i)
            if block:
                if line_map is not None and not tok.meta.get(M.TABLE_CAPTION):
                    # The author's file:line rides along into book.tex as a TeX comment, so a
                    # LaTeX error maps back whatever Pandoc and TeX do to line breaks
                    # (`latex_errors.locate`). A table's `: caption` stays next to its table.
                    blocks.append((start, source_marker(self.ctx.chapter.path, start + 1)))
                blocks.append((start, block))
            last = start
        if line_map is not None:
            for n, (start, block) in enumerate(blocks):
                count = block.count("\n") + 1 + (1 if n < len(blocks) - 1 else 0)
                line_map.extend(min(start + k, len(self.lines) - 1) + 1 for k in range(count))
        return "\n\n".join(b for _, b in blocks) + "\n"

    def blocks(self, tokens, i: int, until: str | None) -> tuple[list[str], int]:
        """The blocks from tokens[i] up to the closing token `until` (exclusive); returns them
        and the index after `until`."""
        out: list[str] = []
        while i < len(tokens):
            tok = tokens[i]
            if until is not None and tok.type == until:
                return out, i + 1
            block, i = self.block(tokens, i)
            if block is not None:
                out.append(block)
        return out, i

    def block(self, tokens, i: int) -> tuple[str | None, int]:
        tok = tokens[i]
        kind = tok.type
        if kind == "heading_open":
            return self.heading(tok, tokens[i + 1]), i + 3
        if kind == "paragraph_open":
            inline = tokens[i + 1]
            if M.FIGURE_ID in tok.meta:
                text = self.figure(tok, inline)
            elif tok.meta.get(M.TABLE_CAPTION):
                text = self.table_caption(tok, inline)
            else:
                text = self.prose(self.inline(inline.children or []), tok)
            i += 2
            while tokens[i].type != "paragraph_close":    # a footnote's back-reference
                i += 1
            return text, i + 1
        if kind in ("bullet_list_open", "ordered_list_open"):
            return self.list(tokens, i)
        if kind == "table_open":
            return self.table(tokens, i)
        if kind == "fence":
            return self.fence(tok), i + 1
        if kind == "code_block":
            return "\n".join("    " + line for line in tok.content.rstrip("\n").split("\n")), i + 1
        if kind == "math_block_label":
            return self.equation(tok), i + 1
        if kind == "math_block":
            return f"$$\n{self.math(tok.content.strip(), tok)}\n$$", i + 1
        if kind == "footnote_block_open":
            # markdown-it lists the notes in the order of their first reference; Pandoc takes
            # them by label: they are written in the author's order, to read like the source.
            notes, i = self.blocks(tokens, i + 1, "footnote_block_close")
            return "\n\n".join(text for _, text in sorted(notes)), i
        if kind == "footnote_open":
            return self.footnote(tokens, i)
        if kind == "blockquote_open":
            inner, i = self.blocks(tokens, i + 1, "blockquote_close")
            return "\n".join(("> " + line).rstrip() for line in "\n\n".join(inner).split("\n")), i
        if kind == "html_block":             # raw anchors become Pandoc spans with the id
            return self.prose(self.html(tok.content).rstrip("\n"), tok), i + 1
        if kind == "hr":
            return "-----", i + 1
        if kind == "front_matter":
            return None, i + 1
        if kind == "container_whatif_open":
            # A what-if region: the book's values, and one line pointing to the web edition.
            return "\n".join(export_note(tok, self.strings)).rstrip("\n"), i + 1
        if kind == "container_whatif_close":
            return None, i + 1
        raise BuildError(self.ctx.chapter.path, tok.map[0] + 1 if tok.map else None,
                         f"the PDF/EPUB writer does not know the block `{kind}`",
                         "add it to bookkit/render/pandoc/sources.py")

    def heading(self, tok, inline) -> str:
        level = int(tok.tag[1])
        title = self.prose(self.inline(inline.children or []), tok)
        number = tok.meta.get(M.NUMBER, "")
        if number:
            title = escape(self.strings["chapter"].format(n=number) if level == 1
                           else number) + " " + title
        return f"{'#' * level} {title} {{#{tok.attrGet('id')} .unnumbered}}"

    def figure(self, tok, inline) -> str:
        image = next(k for k in inline.children if k.type == "image")
        fid = tok.meta[M.FIGURE_ID]
        label = self.strings["figure"].format(n=tok.meta[M.NUMBER])
        if "static_src" in tok.meta:     # an image file: copied/converted by the export
            return realworld.static_figure(tok, self.inline(image.children or []),
                                                  escape(label), self.ctx,
                                                  alt=image.meta.get("alt", ""))
        caption = escape(label + self.strings["caption_sep"]) + self.inline(image.children or [])
        # A diagram's text alternative is the image's alt text (Pandoc keeps the caption
        # visible): the EPUB reader's long description; the PDF ignores it.
        drawn = self.ctx.figures.get((fid, self.ctx.edition.lang))
        if drawn is not None and drawn.description:
            alt = drawn.description.replace("\\", "\\\\").replace('"', '\\"')
            return f'![{caption}](figures/{fid}.pdf){{#{fid} alt="{alt}"}}'
        return f"![{caption}](figures/{fid}.pdf){{#{fid}}}"

    def table_caption(self, tok, inline) -> str:
        label = self.strings["table"].format(n=tok.meta.get(M.NUMBER, ""))
        ident = tok.meta.get(M.TABLE_ID)
        suffix = f" {{#{ident}}}" if ident else ""
        text = self.inline(inline.children or []).strip()
        return f": {escape(label + self.strings['caption_sep'])}{text}{suffix}"

    def equation(self, tok) -> str:
        body = self.math(tok.content.strip(), tok)
        return (f"[]{{#{tok.meta[M.EQUATION_ID]}}}\n$$\n{body}\n"
                f"\\tag{{{tok.meta[M.NUMBER]}}}\n$$")

    def fence(self, tok) -> str | None:
        words = tok.info.split()
        if words and words[0] == "calc":
            if "show" not in words:
                return None
            return "```python\n" + tok.content.rstrip("\n") + "\n```"
        return f"{tok.markup}{tok.info}\n{tok.content}{tok.markup}"

    def list(self, tokens, i: int) -> tuple[str, int]:
        opener = tokens[i]
        close = opener.type.replace("_open", "_close")
        items: list[str] = []
        i += 1
        while tokens[i].type != close:
            item = tokens[i]                      # list_item_open
            marker = (f"{item.info}{item.markup}" if opener.type == "ordered_list_open"
                      else item.markup)
            # Items are separated as the author separated them: Pandoc decides from the blank
            # lines between items whether they hold paragraphs or plain text.
            if items:
                items.append("\n\n" if self._blank_before(item) else "\n")
            inner, i = self.blocks(tokens, i + 1, "list_item_close")
            text = "\n\n".join(inner)
            pad = " " * (len(marker) + 1)
            lines = text.split("\n")
            items.append(f"{marker} {lines[0]}" + "".join(
                "\n" + (pad + line if line else "") for line in lines[1:]))
        return "".join(items), i + 1

    def _blank_before(self, tok) -> bool:
        line = tok.map[0] - 1 if tok.map else -1
        return 0 <= line < len(self.lines) and not self.lines[line].strip()

    def footnote(self, tokens, i: int) -> tuple[str, int]:
        label = tokens[i].meta["label"]
        line = next((t.map[0] for t in tokens[i + 1:] if t.map), 0)
        inner, i = self.blocks(tokens, i + 1, "footnote_close")
        lines = "\n\n".join(inner).split("\n")
        return (line, f"[^{self.prefix}-{label}]: {lines[0]}"
                + "".join("\n" + ("    " + ln if ln else "") for ln in lines[1:])), i

    def table(self, tokens, i: int) -> tuple[str, int]:
        start = tokens[i]
        rows: list[list[str]] = []
        i += 1
        while tokens[i].type != "table_close":
            tok = tokens[i]
            if tok.type == "tr_open":
                rows.append([])
            elif tok.type == "inline":
                self.in_cell = True
                rows[-1].append(self.prose(self.inline(tok.children or []), tok))
                self.in_cell = False
            i += 1
        # The delimiter row is the author's: in a wide table its dashes set the columns'
        # relative widths, which no token records.
        delimiter = self.lines[start.map[0] + 1].strip()
        caption = self._caption_row(tokens, i)
        if caption is not None:
            rows.pop()
        lines = ["| " + " | ".join(rows[0]) + " |", delimiter]
        lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
        if caption is not None:
            lines.append(caption)
        return "\n".join(lines), i + 1

    def _caption_row(self, tokens, close: int) -> str | None:
        """A `: caption {#tbl-…}` line written right under a table, without a blank line, is
        read by markdown-it as one more row (so the site shows it as a row and leaves the
        table unnumbered), and by Pandoc as the table's caption: write it as Pandoc reads it."""
        j = close - 1
        while tokens[j].type != "tr_open":
            j -= 1
        cells = [t for t in tokens[j:close] if t.type == "inline"]
        first = cells[0].content if cells else ""
        match = CAPTION_RE.match(first)
        if not first.startswith(": ") or not match or any(c.content.strip() for c in cells[1:]):
            return None
        kids = [copy.copy(k) for k in cells[0].children or []]
        if kids and kids[-1].type == "text" and match.group(2):
            kids[-1].content = re.sub(r"\s*\{#tbl-[A-Za-z0-9_-]+\}\s*$", "", kids[-1].content)
        if kids and kids[0].type == "text":   # keep ": " unescaped: it makes the caption
            kids[0].content = kids[0].content[2:].lstrip()
        text = ": " + self.inline(kids).strip()
        suffix = f" {{#{match.group(2)}}}" if match.group(2) else ""
        return f"{text}{suffix}"

    # -- inline ---------------------------------------------------------------------------
    def inline(self, children) -> str:
        out: list[str] = []
        autolink = False
        for index, tok in enumerate(children):
            kind = tok.type
            if autolink:                          # the URL again, as text: written already
                autolink = kind != "link_close"
                continue
            if kind == "text":
                text = tok.content
                if not self.trusted:   # a contributor's text: never TeX, HTML or attributes
                    text = untrusted_text(text)
                out.append(text.replace("|", r"\|") if self.in_cell else text)
            elif kind == "bound_value":
                text, _ = bound_text(self.ctx, tok.meta["name"],
                                     tok.meta.get("invalid") or tok.meta["spec"], tok)
                out.append(self.bound(text))
            elif kind == "math_inline":
                # Pandoc reads `$ x $` (space inside) as text; the site shows it as math.
                out.append(f"${self.math(tok.content, tok).strip()}$")
            elif kind == "math_inline_double":
                out.append(f"$${self.math(tok.content, tok).strip()}$$")
            elif kind == "xref":
                href, label = xref(self.ctx, tok.meta["id"], tok)
                anchor = href[href.index("#"):] if "#" in href else f"#{tok.meta['id']}"
                out.append(self.reference(label, anchor))
            elif kind == "code_inline":
                fence = tok.markup or "`"
                pad = " " if tok.content.startswith("`") or tok.content.endswith("`") else ""
                out.append(f"{fence}{pad}{tok.content}{pad}{fence}")
            elif kind in ("strong_open", "strong_close", "em_open", "em_close"):
                out.append(tok.markup)
            elif kind == "link_open" and tok.markup == "autolink":
                out.append(f"<{tok.attrs.get('href', '')}>")
                autolink = True
            elif kind == "link_open":
                out.append("[")
            elif kind == "link_close":
                opener = matching_open(children, index, "link_open", "link_close")
                if opener is None:
                    raise ValueError("unbalanced link")
                href = str(opener.attrs.get("href", ""))
                title = opener.attrs.get("title")
                out.append(f"]({href}" + (f' "{title}"' if title else "") + ")")
            elif kind == "image":
                alt = self.inline(tok.children or [])
                out.append(f"![{alt}]({tok.attrs.get('src', '')})")
            elif kind == "footnote_ref":
                out.append(f"[^{self.prefix}-{tok.meta['label']}]")
            elif kind == "softbreak":
                out.append("\n")
            elif kind == "hardbreak":
                out.append("\\\n")
            elif kind == "html_inline":
                out.append(self.html(tok.content))
            elif tok.children:
                out.append(self.inline(tok.children))
            else:
                out.append(escape(tok.content))
        return "".join(out)

    def bound(self, text: str) -> str:
        """A bound number's formatted text as written into the prose, short ones unbreakable."""
        return escape(unbreakable(text))

    def reference(self, label: str, anchor: str) -> str:
        """A cross-reference: a link to the anchor in the one Pandoc document."""
        return f"[{escape(label)}]({anchor})"

    def html(self, text: str) -> str:
        """Raw HTML as written; a translation's comments dropped (its reader takes no raw HTML,
        so they would print: `bookkit.source.trust` lets only anchors and comments through)."""
        return text if self.trusted else HTML_COMMENT_RE.sub("", text)

    def prose(self, text: str, tok) -> str:
        """Markdown written for other toolchains, made ready for Pandoc: local images copied
        into the export, raw HTML anchors, links to repository files and chapter files
        (`bookkit.render.pandoc.realworld`)."""
        return realworld.prose(text, self.ctx, tok)

    def math(self, tex: str, tok) -> str:
        return BOUND_RE.sub(lambda b: bound_text(self.ctx, b.group(1), b.group(2) or "", tok,
                                                 latex=True)[0], tex)


def export_chapter(tokens, ctx: RenderContext, prefix_footnotes: str,
                   line_map: list[int] | None = None) -> str:
    """The chapter's Pandoc Markdown (see `PandocWriter`)."""
    return PandocWriter(ctx, prefix_footnotes).chapter(tokens, line_map)


def _substitute(line: str, ctx: RenderContext) -> str:
    """Bound numbers in one source line: their LaTeX form inside math, their text elsewhere."""
    def prose(text: str) -> str:
        return BOUND_RE.sub(lambda b: escape_emphasis(
            bound_text(ctx, b.group(1), b.group(2) or "", None)[0]), text)

    out, pos = [], 0
    for m in SEGMENT_RE.finditer(line):
        out.append(prose(line[pos:m.start()]))
        seg = m.group(0)
        if seg.startswith("$"):
            seg = BOUND_RE.sub(lambda b: bound_text(ctx, b.group(1), b.group(2) or "", None,
                                                    latex=True)[0], seg)
        out.append(seg)
        pos = m.end()
    out.append(prose(line[pos:]))
    return "".join(out)


def escape_emphasis(text: str) -> str:
    return text.replace("*", r"\*").replace("_", r"\_")


def write_sources(resolved: ResolvedBook, edition: str, out_dir: Path, chapter: int | None = None,
                  date: str = "2026-01-01", version: str = "dev") -> Path:
    """Write the edition's Pandoc sources into out_dir (replaced as a whole); returns out_dir.
    The figures must have been drawn as PDF and SVG."""
    ed = resolved.editions[edition]
    tmp = out_dir.with_name(out_dir.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    (tmp / "figures").mkdir(parents=True)
    errors, names, sourcemap = [], [], {}
    for ch in ed.chapters:
        if chapter is not None and ch.source.number != chapter:
            continue
        ctx = chapter_context(resolved, ed, ch, {})
        line_map: list[int] = []
        text = export_chapter(ch.tokens, ctx, ch.source.slug, line_map)
        errors.extend(ctx.errors)
        name = ch.source.path.name
        (tmp / name).write_text(text, encoding="utf-8")
        sourcemap[name] = (ch.source.path, line_map)
        if not ctx.errors:
            realworld.copy_images(ctx, tmp)
        names.append(name)
        for fid, _src, _line in ch.outline.figures:
            image = resolved.figures[(fid, ed.info.lang)]
            shutil.copyfile(image.pdf, tmp / "figures" / f"{fid}.pdf")
            shutil.copyfile(image.svg, tmp / "figures" / f"{fid}.svg")
    if errors:
        raise BuildError(None, None, "\n".join(e.render() for e in errors))
    (tmp / "chapters.txt").write_text("\n".join(names) + "\n", encoding="utf-8")
    realworld.write_sourcemap(tmp, sourcemap)
    # A one-chapter export still links to the rest of the book: list every label of the edition
    # so the PDF build can tell a reference to another chapter from a broken one.
    (tmp / "book-ids.txt").write_text("\n".join(sorted(ed.labels)) + "\n", encoding="utf-8")
    info = ed.info
    meta = {
        "title": info.title, "subtitle": info.subtitle, "author": info.author,
        "lang": info.lang, "edition": edition,
        "identifier": "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL,
                                                   f"ai-infra-book/{edition}")),
        "date": date, "version": version,
        "toc-title": info.strings["contents"],
    }
    (tmp / "metadata.yaml").write_text(yaml.safe_dump(meta, allow_unicode=True, sort_keys=True),
                                       encoding="utf-8")
    swap_dir(tmp, out_dir)
    return out_dir


def substituted_text(resolved: ResolvedBook, edition: str) -> dict[str, str]:
    """{file name: text} of the edition's chapters with bound numbers substituted and nothing
    else changed: line numbers stay the author's, so a checker can report `file:line`."""
    ed = resolved.editions[edition]
    out = {}
    for ch in ed.chapters:
        ctx = chapter_context(resolved, ed, ch, {})
        out[ch.source.path.name] = "\n".join(
            _substitute(line, ctx) if "{{" in line else line
            for line in ch.source.text.split("\n"))
    return out
