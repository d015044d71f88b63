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
from .render.html import RenderContext, bound_text, xref

ROOT = Path(__file__).resolve().parent.parent
# Inline code spans and math, which inline substitutions must treat differently from prose.
SEGMENT_RE = re.compile(r"(`+)(?:.+?)\1|\$\$.+?\$\$|(?<![\\$])\$(?!\s)[^$\n]+?(?<!\s)\$")
FOOTNOTE_RE = re.compile(r"\[\^([^\]\s]+)\]")


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
    errors, names = [], []
    for ch in ed.chapters:
        if chapter is not None and ch.number != chapter:
            continue
        tokens, _env = builder.parsed(ch)
        ctx = RenderContext(chapter=ch, edition=ed.info, labels=labels[edition],
                            values=cells[ch.number].values, math={}, figures=figures,
                            figure_sizes={})
        text = export_chapter(tokens, ctx, ch.slug)
        errors.extend(ctx.errors)
        name = ch.path.name
        (tmp / name).write_text(text, encoding="utf-8")
        names.append(name)
        for fid, _src, _line in outlines[edition][ch.number].figures:
            image = figures[(fid, ed.info.lang)]
            shutil.copyfile(image.pdf, tmp / "figures" / f"{fid}.pdf")
            shutil.copyfile(image.svg, tmp / "figures" / f"{fid}.svg")
    if errors:
        raise BuildError(None, None, "\n".join(e.render() for e in errors))
    (tmp / "chapters.txt").write_text("\n".join(names) + "\n", encoding="utf-8")
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


def book_main(kind: str, argv: list[str] | None = None) -> int:
    """`python -m bookkit pdf|epub`: export the edition's Pandoc sources (or take `--source`),
    then build the PDF or EPUB with :mod:`bookkit.render.pandoc`."""
    from .render import pandoc

    ap = argparse.ArgumentParser(prog=f"python -m bookkit {kind}",
                                 description=f"Build the book's {kind.upper()} for one edition.")
    ap.add_argument("--edition", required=True, choices=sorted(pandoc.EDITIONS))
    ap.add_argument("--chapter", type=int, default=None,
                    help="build one chapter for proofreading (0 = preface)")
    ap.add_argument("--out", type=Path, default=None,
                    help="output file (default: the edition's book file; "
                         "with --chapter a -chNN file next to it)")
    ap.add_argument("--source", type=Path, default=None,
                    help="resolved source directory (default: export build/pandoc/<edition>)")
    if kind == "pdf":
        ap.add_argument("--keep-tex", type=Path, default=None, help="copy book.tex/book.log here")
    else:
        ap.add_argument("--no-check", action="store_true", help="skip epubcheck")
    args = ap.parse_args(argv)
    out = args.out or pandoc._default_out(kind, args.edition, args.chapter)
    if args.chapter is not None and args.out is not None and \
            out.resolve() == pandoc._default_out(kind, args.edition, None).resolve():
        out = pandoc._default_out(kind, args.edition, args.chapter)  # never clobber the book
    try:
        src = args.source or export_edition(args.edition, ROOT / "build" / "pandoc" / args.edition,
                                            chapter=args.chapter)
        if kind == "pdf":
            r = pandoc.build_pdf(src, out, chapter=args.chapter, edition=args.edition,
                                 keep_tex=args.keep_tex)
            print(f"built {_rel(r.output)}: {r.pages} pages, {r.latex_runs} XeLaTeX run(s), "
                  f"{r.seconds:.1f} s")
        else:
            r = pandoc.build_epub(src, out, chapter=args.chapter, edition=args.edition,
                                  check=not args.no_check)
            print(f"built {_rel(r.output)}: {r.output.stat().st_size // 1024} KiB, "
                  f"epubcheck {'skipped' if args.no_check else 'clean'}, {r.seconds:.1f} s")
    except BuildError as exc:
        print(exc.render(), file=sys.stderr)
        print(f"error: {kind.upper()} build failed; {_rel(out)} was left unchanged",
              file=sys.stderr)
        return 1
    return 0


def _rel(p: Path) -> str:
    try:
        return str(Path(p).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(p)
