"""What the Pandoc export does with Markdown written for other toolchains: static images (copied
and converted into the export's `figures/`), raw HTML anchors (Pandoc spans with an id), links to
repository files (absolute under `repo_url:`) and to other chapter files (`#id` in the one
document), and the map from exported lines back to the author's file (`sourcemap.json`) that
turns a LaTeX error into `manuscripts/03-x.md:42`.

`bookkit.pipeline.export` calls these hooks; the site does the same through `bookkit.render.site.html`.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from markdown_it.token import Token

from bookkit.source import images
from bookkit.source.links import (INLINE_LINK_RE, LinkError, anchors_for_pandoc,
                                   chapter_link_for_pandoc, links_for_pandoc, repo_link)

SOURCEMAP = "sourcemap.json"


def _root(ctx) -> Path:
    return ctx.chapter.path.parent.parent


def _image_target(ctx, tok: Token | None, src: str) -> str:
    """Register a local image for the export and return the path the Markdown should name."""
    try:
        source = images.source_path(ctx.chapter.path, src, ctx.edition.spec.original_dir)
        images.pandoc_files(_root(ctx), source, images.pandoc_name(src))   # fails early
    except (images.ImageError, OSError) as exc:
        ctx.fail(tok, str(exc))
        return src
    target = images.pandoc_target(src)
    ctx.assets[target] = source
    return target


def prose(text: str, ctx, tok: Token | None) -> str:
    """One line of prose (outside code and math), made ready for Pandoc."""
    if "<" in text:
        text = anchors_for_pandoc(text)
    if "](" not in text and "]:" not in text:
        return text

    def image(m):
        src = m.group(3).strip("<>")
        if not m.group(1) or not images.is_local(src) or src.endswith(".py"):
            return m.group(0)
        return f"![{m.group(2)}]({_image_target(ctx, tok, src)}{m.group(4)})"

    def link(target: str) -> str | None:
        chapter_ids = {l.slug: l.id for l in ctx.labels.values() if l.kind == "chapter"}
        local = chapter_link_for_pandoc(target, ctx.chapter_files, chapter_ids)
        if local is not None:
            return local
        try:
            return repo_link(_root(ctx), ctx.chapter.path, target, ctx.edition.repo)
        except LinkError as exc:
            ctx.fail(tok, str(exc))
            return None

    text = INLINE_LINK_RE.sub(image, text)
    return links_for_pandoc(text, link)


def static_figure(tok: Token, caption: str, label: str, ctx, alt: str = "") -> str:
    """The exported line of a static figure: numbered caption, converted image, its ID."""
    target = _image_target(ctx, tok, tok.meta["static_src"])
    sep = ctx.edition.strings["caption_sep"]
    # The caption line's text is the caption (inside the float, so LaTeX keeps them together);
    # the author's alt text stays the image's alt (`fig-alt`: the EPUB's `alt`).
    extra = f' fig-alt="{_attr(alt)}"' if alt else ""
    return f"![{label}{sep}{caption}]({target}){{#{tok.meta['figure_id']}{extra}}}"


def _attr(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def copy_images(ctx, out_dir: Path) -> None:
    """Copy (and convert) the images the chapter's export names into `out_dir` (the export)."""
    for target, source in sorted(ctx.assets.items()):
        for file, data in images.pandoc_files(_root(ctx), source, Path(target).stem).items():
            shutil.copyfile(data, out_dir / "figures" / file)


def write_sourcemap(out_dir: Path, maps: dict[str, tuple[Path, list[int]]]) -> None:
    """{exported file: {"source": the author's file, "lines": its line for each exported line}}
    (read by `bookkit.render.pandoc.latex_errors`)."""
    data = {name: {"source": str(source), "lines": lines}
            for name, (source, lines) in sorted(maps.items())}
    (out_dir / SOURCEMAP).write_text(json.dumps(data, ensure_ascii=False) + "\n",
                                     encoding="utf-8")
