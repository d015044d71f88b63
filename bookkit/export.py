"""Pandoc sources for the PDF and EPUB, made from the same resolved book as the site.

Output (one directory per edition): `metadata.yaml`, `chapters.txt`, one Pandoc-Markdown file per
chapter with numbers substituted, headings/figures/tables/equations numbered by the pipeline,
cross-references as links and footnote labels made unique across the book, and
`figures/<id>.pdf|svg`. `bookkit.render.pandoc` turns it into PDF and EPUB.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import yaml

from .build import BuildOptions, Builder
from .fsutil import swap_dir
from .load import load_book
from .markdown import BOUND_RE, XREF_RE
from .model import BuildError
from .render import pandoc_realworld
from .render.html import RenderContext, bound_text, xref
from .resolve.scenarios import export_note

ROOT = Path(__file__).resolve().parent.parent
# Inline code spans and math, which inline substitutions must treat differently from prose.
SEGMENT_RE = re.compile(r"(`+)(?:.+?)\1|\$\$.+?\$\$|(?<![\\$])\$(?!\s)[^$\n]+?(?<!\s)\$")
FOOTNOTE_RE = re.compile(r"\[\^([^\]\s]+)\]")
EDITION_FILES = {"zh": "AI-Infra-Book", "en": "AI-Infra-Book-EN", "zh-tw": "AI-Infra-Book-ZH-TW"}


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


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
        text = pandoc_realworld.prose(text, ctx, tok)   # images, raw anchors, repo links
    return text


def _escape(text: str) -> str:
    return text.replace("*", r"\*").replace("_", r"\_")


def export_chapter(tokens, ctx: RenderContext, prefix_footnotes: str,
                   line_map: list[int] | None = None) -> str:
    """The chapter's Pandoc Markdown, built line by line from the source and its tokens;
    `line_map` (if given) receives the source line of each exported line."""
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
            if "static_src" in tok.meta:     # an image file: copied/converted by the export
                replace[start] = [pandoc_realworld.static_figure(tok, caption, label, ctx)]
                skip.update(range(start, end))
                continue
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
        elif tok.type == "container_whatif_open":
            # A what-if region: the book's values, and one line pointing to the web edition.
            replace[start] = export_note(tok, s)
            skip.add(start)
            skip.add(end)                         # the closing `:::` (the token map ends on it)
        elif tok.type == "math_block_label":
            body = BOUND_RE.sub(lambda b: bound_text(ctx, b.group(1), b.group(2) or "", tok,
                                                     latex=True)[0], tok.content.strip())
            replace[start] = [f"[]{{#{tok.meta['equation_id']}}}", "$$", body,
                              f"\\tag{{{tok.meta['number']}}}", "$$"]
            skip.update(range(start, end))
    out, origin = [], []
    for j, line in enumerate(lines):
        if j in replace:
            out.extend(replace[j])
            origin.extend([j + 1] * len(replace[j]))
        elif j not in skip:
            out.append(_inline(line, ctx, pandoc_realworld.line_token(j)))
            origin.append(j + 1)
    if line_map is not None:
        line_map.extend(origin)
    text = "\n".join(out) + "\n"
    # Footnote labels are per chapter in the sources but must be unique in one Pandoc document.
    return _rename_footnotes(text, prefix_footnotes)


def _rename_footnotes(text: str, prefix: str) -> str:
    parts = re.split(r"(```.*?```)", text, flags=re.S)
    return "".join(p if p.startswith("```") else
                   FOOTNOTE_RE.sub(lambda m: f"[^{prefix}-{m.group(1)}]", p) for p in parts)


def export_edition(edition: str, out_dir: Path, chapter: int | None = None,
                   builder: Builder | None = None) -> Path:
    """Write the edition's resolved Pandoc sources into out_dir; returns out_dir."""
    builder = builder or Builder(BuildOptions(root=ROOT, out=ROOT / "build" / "site",
                                              editions=[edition], quiet=True))
    book = load_book(builder.root, [edition])
    if edition not in book.editions:
        raise BuildError(None, None, f"unknown edition `{edition}`", "use zh, en or zh-tw")
    cells, outlines, labels, figures, _ = builder.resolve(book)
    ed = book.editions[edition]
    tmp = out_dir.with_name(out_dir.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    (tmp / "figures").mkdir(parents=True)
    errors, names, sourcemap = [], [], {}
    for ch in ed.chapters:
        if chapter is not None and ch.number != chapter:
            continue
        tokens, _env = builder.parsed(ch)
        ctx = RenderContext(chapter=ch, edition=ed.info, labels=labels[edition],
                            values=cells[ch.number].values, math={}, figures=figures,
                            figure_sizes={},
                            chapter_files={c.path.name: c.slug for c in book.original.chapters})
        line_map: list[int] = []
        text = export_chapter(tokens, ctx, ch.slug, line_map)
        errors.extend(ctx.errors)
        name = ch.path.name
        (tmp / name).write_text(text, encoding="utf-8")
        sourcemap[name] = (ch.path, line_map)
        if not ctx.errors:
            pandoc_realworld.copy_images(ctx, tmp)
        names.append(name)
        for fid, _src, _line in outlines[edition][ch.number].figures:
            image = figures[(fid, ed.info.lang)]
            shutil.copyfile(image.pdf, tmp / "figures" / f"{fid}.pdf")
            shutil.copyfile(image.svg, tmp / "figures" / f"{fid}.svg")
    if errors:
        raise BuildError(None, None, "\n".join(e.render() for e in errors))
    (tmp / "chapters.txt").write_text("\n".join(names) + "\n", encoding="utf-8")
    pandoc_realworld.write_sourcemap(tmp, sourcemap)
    # A one-chapter export still links to the rest of the book: list every label of the edition
    # so the PDF build can tell a reference to another chapter from a broken one.
    (tmp / "book-ids.txt").write_text("\n".join(sorted(labels[edition])) + "\n", encoding="utf-8")
    date = _git("log", "-1", "--format=%cs") or "2026-01-01"
    meta = {
        "title": ed.info.title, "subtitle": ed.info.subtitle, "author": ed.info.author,
        "lang": ed.info.lang, "edition": edition,
        "identifier": "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL,
                                                   f"ai-infra-book/{edition}")),
        "date": date, "version": _git("rev-parse", "--short", "HEAD") or "dev",
        "toc-title": ed.info.strings["contents"],
    }
    (tmp / "metadata.yaml").write_text(yaml.safe_dump(meta, allow_unicode=True, sort_keys=True),
                                       encoding="utf-8")
    swap_dir(tmp, out_dir)
    return out_dir


def resolved_markdown(root: Path = ROOT, builder: Builder | None = None) -> dict:
    """{(edition, file name): text} with bound numbers substituted and nothing else changed.

    Line numbers stay those of the author's file, so a checker can report `file:line`.
    """
    builder = builder or Builder(BuildOptions(root=root, out=root / "build" / "site", quiet=True))
    book = load_book(builder.root)
    cells, _outlines, labels, _figures, _ = builder.resolve(book)
    out = {}
    for key, ed in book.editions.items():
        for ch in ed.chapters:
            ctx = RenderContext(chapter=ch, edition=ed.info, labels=labels[key],
                                values=cells[ch.number].values, math={}, figures={},
                                figure_sizes={})
            text = "\n".join(_inline(line, ctx, None, links=False) if "{{" in line else line
                             for line in ch.text.split("\n"))
            out[(key, ch.path.name)] = text
    return out


def export_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bookkit export",
                                     description="Write resolved Pandoc sources for one edition.")
    parser.add_argument("--edition", required=True, choices=["zh", "en", "zh-tw"])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--chapter", type=int)
    args = parser.parse_args(argv)
    out = args.out or ROOT / "build" / "pandoc" / args.edition
    try:
        export_edition(args.edition, out, args.chapter)
    except BuildError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        return 1
    print(out)
    return 0
