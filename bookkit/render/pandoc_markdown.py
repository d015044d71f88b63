"""Pandoc Markdown from the resolved book: the sources of the PDF and the EPUB.

`write_sources` writes one directory per edition: `metadata.yaml`, `chapters.txt`, one Pandoc
Markdown file per chapter with numbers substituted, headings/figures/tables/equations numbered
by the pipeline, cross-references as links and footnote labels made unique across the book,
and `figures/<id>.pdf|svg`. `bookkit.render.pandoc` turns that directory into PDF and EPUB.
"""
from __future__ import annotations

import re
import shutil
import uuid
from pathlib import Path

import yaml

from ..fsutil import swap_dir
from ..markdown import BOUND_RE, XREF_RE
from ..model import BuildError, ResolvedBook, TokenMeta as M
from .html import RenderContext, bound_text, xref
from .website import chapter_context

# Inline code spans and math, which inline substitutions must treat differently from prose.
SEGMENT_RE = re.compile(r"(`+)(?:.+?)\1|\$\$.+?\$\$|(?<![\\$])\$(?!\s)[^$\n]+?(?<!\s)\$")
FOOTNOTE_RE = re.compile(r"\[\^([^\]\s]+)\]")


def _inline(line: str, ctx: RenderContext, tok, links: bool = True) -> str:
    """Substitute bound numbers (LaTeX form inside math) and cross-references in one line."""
    out, pos = [], 0
    for m in SEGMENT_RE.finditer(line):
        out.append(_prose(line[pos:m.start()], ctx, tok, links))
        seg = m.group(0)
        if seg.startswith("$"):
            seg = BOUND_RE.sub(lambda b: bound_text(ctx, b.group(1), b.group(2) or "", tok,
                                                    latex=True)[0], seg)
        out.append(seg)
        pos = m.end()
    out.append(_prose(line[pos:], ctx, tok, links))
    return "".join(out)


def _prose(text: str, ctx: RenderContext, tok, links: bool) -> str:
    text = BOUND_RE.sub(lambda b: _escape(bound_text(ctx, b.group(1), b.group(2) or "", tok)[0]),
                        text)
    if links:
        def ref(m):
            if m.start() > 0 and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_."):
                return m.group(0)
            target = m.group(1).rstrip(".")
            href, label = xref(ctx, target, tok)
            tail = m.group(1)[len(target):]
            anchor = href[href.index("#"):] if "#" in href else f"#{target}"
            return f"[{label}]({anchor}){tail}"
        text = XREF_RE.sub(ref, text)
    return text


def _escape(text: str) -> str:
    return text.replace("*", r"\*").replace("_", r"\_")


def export_chapter(tokens, ctx: RenderContext, prefix_footnotes: str) -> str:
    """The chapter's Pandoc Markdown, built line by line from the source and its tokens."""
    lines = ctx.chapter.text.splitlines()
    s = ctx.edition.strings
    replace: dict[int, list[str]] = {}   # first line index -> replacement lines
    skip: set[int] = set()
    for i, tok in enumerate(tokens):
        if not tok.map:
            continue
        start, end = tok.map
        if tok.type == "fence":
            words = tok.info.split()
            if words and words[0] == "calc":
                skip.update(range(start, end))
                if "show" in words:
                    replace[start] = ["```python", *tok.content.rstrip("\n").split("\n"), "```"]
            else:
                for j in range(start, end):
                    replace[j] = [lines[j]]   # verbatim: no substitutions inside code
                skip.update(range(start, end))
        elif tok.type == "heading_open":
            title = tokens[i + 1].content.strip()
            number = tok.meta.get("number", "")
            level = int(tok.tag[1])
            if number:
                title = (s["chapter"].format(n=number) if level == 1 else number) + " " + title
            ident = tok.attrGet("id")
            line = f"{'#' * level} {_inline(title, ctx, tok)} {{#{ident} .unnumbered}}"
            replace[start] = [line]
            skip.update(range(start, end))
        elif tok.type == "paragraph_open" and "figure_id" in tok.meta:
            image = next(k for k in tokens[i + 1].children if k.type == "image")
            fid = tok.meta["figure_id"]
            caption = _inline(image.content, ctx, tok)
            label = s["figure"].format(n=tok.meta["number"])
            replace[start] = [f"![{label}{s['caption_sep']}{caption}](figures/{fid}.pdf){{#{fid}}}"]
            skip.update(range(start, end))
        elif tok.type == "paragraph_open" and tok.meta.get("table_caption"):
            text = tokens[i + 1].content[2:].strip()
            ident = tok.meta.get("table_id")
            text = re.sub(r"\s*\{#tbl-[A-Za-z0-9_-]+\}\s*$", "", text)
            label = s["table"].format(n=tok.meta.get("number", ""))
            suffix = f" {{#{ident}}}" if ident else ""
            replace[start] = [f": {label}{s['caption_sep']}{_inline(text, ctx, tok)}{suffix}"]
            skip.update(range(start, end))
        elif tok.type == "math_block_label":
            body = BOUND_RE.sub(lambda b: bound_text(ctx, b.group(1), b.group(2) or "", tok,
                                                     latex=True)[0], tok.content.strip())
            replace[start] = [f"[]{{#{tok.meta['equation_id']}}}", "$$", body,
                              f"\\tag{{{tok.meta['number']}}}", "$$"]
            skip.update(range(start, end))
    out = []
    for j, line in enumerate(lines):
        if j in replace:
            out.extend(replace[j])
        elif j not in skip:
            out.append(_inline(line, ctx, None))
    text = "\n".join(out) + "\n"
    # Footnote labels are per chapter in the sources but must be unique in one Pandoc document.
    return _rename_footnotes(text, prefix_footnotes)


def _rename_footnotes(text: str, prefix: str) -> str:
    parts = re.split(r"(```.*?```)", text, flags=re.S)
    return "".join(p if p.startswith("```") else
                   FOOTNOTE_RE.sub(lambda m: f"[^{prefix}-{m.group(1)}]", p) for p in parts)



def write_sources(resolved: ResolvedBook, edition: str, out_dir: Path, chapter: int | None = None,
                  date: str = "2026-01-01", version: str = "dev") -> Path:
    """Write the edition's Pandoc sources into out_dir (replaced as a whole); returns out_dir.
    The figures must have been drawn as PDF and SVG."""
    ed = resolved.editions[edition]
    tmp = out_dir.with_name(out_dir.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    (tmp / "figures").mkdir(parents=True)
    errors, names = [], []
    for ch in ed.chapters:
        if chapter is not None and ch.source.number != chapter:
            continue
        ctx = chapter_context(resolved, ed, ch, {})
        text = export_chapter(ch.tokens, ctx, ch.source.slug)
        errors.extend(ctx.errors)
        name = ch.source.path.name
        (tmp / name).write_text(text, encoding="utf-8")
        names.append(name)
        for fid, _src, _line in ch.outline.figures:
            image = resolved.figures[(fid, ed.info.lang)]
            shutil.copyfile(image.pdf, tmp / "figures" / f"{fid}.pdf")
            shutil.copyfile(image.svg, tmp / "figures" / f"{fid}.svg")
    if errors:
        raise BuildError(None, None, "\n".join(e.render() for e in errors))
    (tmp / "chapters.txt").write_text("\n".join(names) + "\n", encoding="utf-8")
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
            _inline(line, ctx, None, links=False) if "{{" in line else line
            for line in ch.source.text.split("\n"))
    return out
