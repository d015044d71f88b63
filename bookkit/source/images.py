"""Static images (`![caption](images/x.svg)`, `.png`, `.jpg`, `.pdf` next to a chapter).

A paragraph holding only a local image is a *static figure*: numbered with the executable
figures (`图 3-2`), its alt text shown as the caption on the site, in the PDF and in the EPUB.
Each output gets a format it can show:

| source | site            | LaTeX (PDF)                 | EPUB                     |
|--------|-----------------|-----------------------------|--------------------------|
| SVG    | as is           | converted to PDF (CairoSVG) | as is                    |
| PNG/JPG| as is           | as is                       | as is                    |
| PDF    | converted to SVG (`pdftocairo -svg`, poppler-utils) | as is | the converted SVG |

Conversions are content-addressed files under `build/images/` (made once per image version), so
a rebuild converts nothing and the output stays byte-identical.

Not a stage: the renderers (site, Pandoc) and the source checks all ask the same questions of an
image (where is its file, which format does each output get), so the answers live here, beside
`markdown.py`, rather than in one stage the others would have to reach into. Numbering a static
figure is the resolve stage's part (`resolve/numbering.py`).
"""
from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote

from markdown_it.token import Token

from bookkit.util.cache import sha256_bytes

RASTER = (".png", ".jpg", ".jpeg")
VECTOR = (".svg", ".pdf")
SUPPORTED = RASTER + VECTOR
_REMOTE_RE = re.compile(r"^[a-z][a-z0-9+.-]*:|^/", re.I)


class ImageError(Exception):
    """An image that is missing or cannot be converted (message says what to do)."""


class UnsafeImage(ImageError):
    """An image reached through a symlink or outside the book (a file of the build machine)."""


def is_local(src: str) -> bool:
    return bool(src) and not _REMOTE_RE.match(src)


def lone_image(tokens: list[Token], i: int) -> Token | None:
    """The image of a paragraph that holds only an image (and blank text), else None.

    Asked of every paragraph of every chapter each time an edition is numbered: it stops at
    the first child that is not blank text or a first image, where listing the children
    walked all of a long paragraph's (a third of renumbering an edition)."""
    if tokens[i].type != "paragraph_open" or i + 1 >= len(tokens):
        return None
    found = None
    for kid in tokens[i + 1].children or ():
        if kid.type == "text" and not kid.content.strip():
            continue
        if found is not None or kid.type != "image":
            return None
        found = kid
    return found


def is_static_figure(tokens: list[Token], i: int) -> bool:
    """A paragraph holding only a local image that is not a figure script."""
    image = lone_image(tokens, i)
    if image is None:
        return False
    src = str(image.attrs.get("src", ""))
    return is_local(src) and not src.endswith(".py")


def source_path(chapter_path: Path, src: str, original_dir: str) -> Path:
    """The file an image path names: relative to the chapter; a translation may reuse the
    original's image (same relative path under the original's folder, `original_dir`, as the
    caller's registry names it). Percent-encoding is decoded."""
    rel = Path(unquote(src.split("#")[0].split("?")[0]))
    if ".." in rel.parts:
        raise ImageError(f"image path {rel.as_posix()} leaves the edition folder: keep images "
                         f"under {chapter_path.parent.name}/ (e.g. images/)")
    root = chapter_path.parent.parent
    candidates = [chapter_path.parent / rel,
                  root / original_dir / rel]
    for candidate in candidates:
        if candidate.is_file():
            return _inside_book(root, candidate, rel)
    raise ImageError(f"image not found: {rel.as_posix()} (paths are relative to the chapter "
                     f"file; put it in {chapter_path.parent.name}/{rel.parent.as_posix()}/)")


def _inside_book(root: Path, path: Path, rel: Path) -> Path:
    """`path` if it is a file of the book reached without a symlink: a link could put any file
    of the build machine (`images/x.svg -> /etc/passwd`) on the site and into the PDF."""
    # The common case in one realpath: the file's real path is its path under the book's
    # real root, so no component between the two is a link (lstat-ing every parent and
    # resolving both paths for each image was ~20 ms of a one-second build).
    # (`realpath` of `path` itself, not of its `abspath`: that drops `x/..` before any link
    # `x` is followed, and the file opened later is `path`)
    inside = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    if not inside.startswith(".." + os.sep) and os.path.realpath(path) == os.path.join(
            _real_path(str(root)), inside):
        return path
    link = next((p for p in (path, *path.parents) if p.is_symlink()
                 and root in p.parents), None)
    if link is not None:
        raise UnsafeImage(f"image {rel.as_posix()} is reached through a symlink "
                         f"({link.relative_to(root).as_posix()}): images must be files of the book; "
                         "copy the file in instead of linking it")
    if root.resolve() not in path.resolve().parents:
        raise UnsafeImage(f"image {rel.as_posix()} is outside the book")
    return path


@lru_cache(maxsize=16)
def _real_path(path: str) -> str:
    return os.path.realpath(path)


def _check_format(path: Path) -> str:
    ext = path.suffix.lower()
    if ext not in SUPPORTED:
        raise ImageError(f"image format `{ext}` of {path.name} cannot go into the PDF and EPUB "
                         f"(use one of {', '.join(SUPPORTED)})")
    return ext


def _converted(root: Path, source: Path, ext: str, convert) -> Path:
    """`build/images/<sha>.<ext>`: made once per source content."""
    data = source.read_bytes()
    out = root / "build" / "images" / f"{sha256_bytes(data)[:16]}{ext}"
    if not out.is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")   # builds may run side by side
        convert(source, tmp)
        tmp.replace(out)
    return out


def _pdf_to_svg(source: Path, out: Path) -> None:
    """The first page of a PDF image as SVG (an image is one page; text becomes outlines)."""
    exe = shutil.which("pdftocairo")
    if exe is None:
        raise ImageError(f"{source.name}: converting a PDF image needs `pdftocairo` "
                         "(poppler-utils; run `make setup`)")
    res = subprocess.run([exe, "-svg", "-f", "1", "-l", "1", str(source), str(out)],
                         capture_output=True, text=True)
    if res.returncode != 0 or not out.is_file():
        raise ImageError(f"{source.name}: pdftocairo could not convert it "
                         f"({res.stderr.strip() or 'exit ' + str(res.returncode)}); "
                         "is it a valid PDF?")


def _svg_to_pdf(source: Path, out: Path) -> None:
    try:
        import cairosvg
    except ImportError as exc:   # libcairo2 missing: cairocffi cannot load it
        raise ImageError(f"{source.name}: converting an SVG image needs CairoSVG and libcairo2 "
                         f"(run `make setup`): {exc}") from exc
    try:
        pdf = cairosvg.svg2pdf(url=str(source))
    except Exception as exc:  # noqa: BLE001 - CairoSVG raises parser errors of several kinds
        raise ImageError(f"{source.name}: not a valid SVG ({type(exc).__name__}: {exc})") from exc
    # Cairo stamps the current time and ignores SOURCE_DATE_EPOCH; a date of the same length
    # keeps the cross-reference offsets valid and the bytes reproducible.
    out.write_bytes(re.sub(rb"(/CreationDate \(D:)\d{14}", rb"\g<1>19700101000000", pdf))


def site_file(root: Path, source: Path, src: str) -> tuple[str, Path]:
    """(path on the site, file to copy there): PDF images become SVG, others go as they are."""
    ext = _check_format(source)
    if ext == ".pdf":
        return src.split("#")[0] + ".svg", _converted(root, source, ".svg", _pdf_to_svg)
    return src.split("#")[0], source


def pandoc_name(src: str) -> str:
    """The file name in the export's `figures/`: `images/a b.svg` -> `img-images-a-b-svg`."""
    return "img-" + re.sub(r"[^A-Za-z0-9]+", "-", unquote(src)).strip("-")


def pandoc_files(root: Path, source: Path, name: str) -> dict[str, Path]:
    """{file name in the export's figures/: file to copy}. The Markdown names the first one;
    the EPUB filter swaps a `.pdf` for the `.svg` beside it."""
    ext = _check_format(source)
    if ext == ".svg":
        return {f"{name}.pdf": _converted(root, source, ".pdf", _svg_to_pdf),
                f"{name}.svg": source}
    if ext == ".pdf":
        return {f"{name}.pdf": source,
                f"{name}.svg": _converted(root, source, ".svg", _pdf_to_svg)}
    return {f"{name}{ext}": source}


def pandoc_target(src: str) -> str:
    """What the exported Markdown links to for the image `src`."""
    ext = Path(unquote(src)).suffix.lower()
    name = pandoc_name(src)
    return f"figures/{name}{'.pdf' if ext in VECTOR else ext}"


def image_size(path: Path) -> tuple[int, int] | None:
    """Width and height in CSS pixels (for `<img width height>`: no layout shift), if known."""
    ext = path.suffix.lower()
    if ext == ".svg":
        head = path.read_bytes()[:2000].decode("utf-8", "replace")
        tag = re.search(r"<svg\b[^>]*>", head, re.S)
        if not tag:
            return None
        size = []
        for attr in ("width", "height"):
            m = re.search(rf'\b{attr}="([\d.]+)(px|pt)?"', tag.group(0))
            if not m:
                return None
            size.append(round(float(m.group(1)) * (4 / 3 if m.group(2) == "pt" else 1)))
        return size[0], size[1]
    if ext == ".png":
        # A PNG's size is in its first chunk (IHDR, bytes 16-24, big-endian); read by hand
        # because importing Pillow was ~30 ms of a one-second cold build.
        with open(path, "rb") as fh:
            head = fh.read(24)
        if head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR":
            return struct.unpack(">II", head[16:24])
    if ext in RASTER:
        from PIL import Image
        with Image.open(path) as im:
            return im.size
    return None


@dataclass(frozen=True)
class SiteImage:
    src: str                  # as the page links it
    size: tuple[int, int] | None


def resolve_site_image(ctx, tok: Token, src: str) -> SiteImage | None:
    """Register a local image as a site asset (converted if needed); None after an error."""
    root = ctx.chapter.path.parent.parent
    try:
        source = source_path(ctx.chapter.path, src, ctx.edition.spec.original_dir)
        site_path, data_file = site_file(root, source, src)
        size = image_size(data_file)
    except (ImageError, OSError) as exc:
        ctx.fail(tok, str(exc))
        return None
    ctx.assets[unquote(site_path)] = data_file
    return SiteImage(site_path, size)


def check_image(chapter_path: Path, root: Path, src: str, original_dir: str) -> str | None:
    """Why a local image would fail the build (missing, unsupported, unconvertible), or None."""
    try:
        source = source_path(chapter_path, src, original_dir)
        site_file(root, source, src)
        pandoc_files(root, source, pandoc_name(src))
    except (ImageError, OSError) as exc:
        return str(exc)
    return None

