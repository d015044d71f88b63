"""Font-coverage preflight for the PDF build.

Before XeLaTeX runs, every character of every resolved chapter (and of the title metadata)
must have a glyph in the font that will actually set it.  Fonts are located with
``fc-match`` and their cmaps read with fontTools (``TTCollection`` for ``.ttc`` files), so
the check uses the very files XeLaTeX will load.

Which font must cover a character depends on where it is (the template's choices), read from
the parser's tokens (:mod:`bookkit.source.markdown`), so markup, link targets and the raw-LaTeX source
markers are not taken for text:

* body text, captions, tables, footnotes, alt texts -> the serif fonts;
* headings and the title/subtitle/author metadata -> the sans fonts;
* fenced code and inline code spans -> the mono fonts;
* math (``$…$``, ``$$…$$``) -> the math font, or the text fonts (``\\text{…}`` and
  xeCJK's ``CJKmath`` set text inside math with the serif/CJK fonts).  TeX command names
  are ASCII, so checking the raw math source is safe.

Within each role, xeCJK sends CJK characters (Han, kana, Hangul, CJK punctuation, full-width
forms, …) to the CJK font and everything else to the Latin font.  Characters in the ambiguous
punctuation/symbol blocks (General Punctuation, Latin-1 punctuation, arrows, …), which xeCJK
may give to either font depending on its character classes, are accepted when either font of
the role covers them.  Anything this approximation misses is caught after the build, where
``Missing character`` lines in the XeLaTeX log fail the build.
"""
from __future__ import annotations

import functools
import hashlib
import subprocess
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from bookkit.source.markdown import parse

__all__ = ["FontSet", "CoverageError", "fontset_for", "resolve_font", "font_cmap",
           "preflight"]


class CoverageError(Exception):
    """A character has no glyph in the fonts chosen for it."""


@dataclass(frozen=True)
class FontSet:
    serif: str
    sans: str
    mono: str
    math: str
    cjk_serif: str
    cjk_sans: str
    cjk_mono: str
    cjk_serif_bold: str
    cjk_sans_bold: str
    serif_features: str = ""   # fontspec options of the Latin serif (template: latin-serif-features)
    serif_fallback: str = ""   # sets FALLBACK_RANGES in body text when the serif lacks them

    def role(self, role: str) -> tuple[str, str]:
        """(Latin font, CJK font) used for a role: serif, sans or mono."""
        return {"serif": (self.serif, self.cjk_serif), "sans": (self.sans, self.cjk_sans),
                "mono": (self.mono, self.cjk_mono)}[role]


def fontset_for(spec) -> FontSet:
    """The fonts of an edition (its registry entry, `EditionSpec`): DejaVu for Latin (full
    coverage), Noto CJK for CJK in the region (glyph forms: SC, TC, JP) its language record
    names (bookkit/locale/languages.py).

    The English edition loads the SC fonts for any stray CJK.
    """
    region = spec.language.cjk_region
    # Chinese editions: Latin in the body font's own Latin glyphs. Noto Serif CJK carries a
    # proportional Latin (Source Serif's design) drawn to match its Han; DejaVu Serif beside
    # it was visibly heavier and wider (vertical stems ~0.090 em against 0.083 em, a much
    # larger x-height). It has no italic: slanted, which the few Latin titles in italics bear.
    # It lacks most superscript digits (10⁹): those come from DejaVu Serif (FALLBACK_RANGES).
    if spec.is_cjk:
        serif = f"Noto Serif CJK {region}"
        return FontSet(serif=serif, sans="DejaVu Sans", mono="DejaVu Sans Mono",
                       math="DejaVu Math TeX Gyre",
                       cjk_serif=serif, cjk_sans=f"Noto Sans CJK {region}",
                       cjk_mono=f"Noto Sans Mono CJK {region}",
                       cjk_serif_bold=f"{serif} Bold", cjk_sans_bold=f"Noto Sans CJK {region} Bold",
                       serif_features=(f"BoldFont={{{serif} Bold}},ItalicFont={{{serif}}},"
                                       f"ItalicFeatures={{FakeSlant=0.2}},BoldItalicFont={{{serif} Bold}},"
                                       "BoldItalicFeatures={FakeSlant=0.2}"),
                       serif_fallback="DejaVu Serif")
    return FontSet(serif="DejaVu Serif", sans="DejaVu Sans", mono="DejaVu Sans Mono",
                   math="DejaVu Math TeX Gyre",
                   cjk_serif=f"Noto Serif CJK {region}", cjk_sans=f"Noto Sans CJK {region}",
                   cjk_mono=f"Noto Sans Mono CJK {region}",
                   cjk_serif_bold=f"Noto Serif CJK {region} Bold",
                   cjk_sans_bold=f"Noto Sans CJK {region} Bold")


@functools.lru_cache(maxsize=None)
def resolve_font(family: str) -> tuple[Path, int]:
    """Font file and TTC face index of a family, via fontconfig.  Fails if not installed."""
    query = family
    if family.endswith(" Bold"):  # fontspec finds "X Bold" by full name; fontconfig wants a style
        family = family[:-5]
        query = f"{family}:style=Bold"
    try:
        out = subprocess.run(["fc-match", "-f", "%{file}\t%{index}\t%{family}", query],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise CoverageError(f"cannot run fc-match to locate font {family!r}: {exc}") from exc
    path, index, families = (out.split("\t") + ["", "", ""])[:3]
    base = family.split(":")[0]
    names = [f.strip().lower() for f in families.split(",")]
    # fc-match always answers with *some* font: insist on the family we asked for.
    if base.lower() not in names and not any(base.lower().startswith(n) for n in names if n):
        raise CoverageError(f"font {family!r} is not installed (fc-match gave {families!r} in {path})")
    return Path(path), int(index or 0)


@functools.lru_cache(maxsize=None)
def font_cmap(family: str) -> frozenset[int]:
    """Code points covered by a font family's file (the face fontconfig picks)."""
    from fontTools.ttLib import TTCollection, TTFont

    path, index = resolve_font(family)
    if path.suffix.lower() in (".ttc", ".otc"):
        coll = TTCollection(str(path), lazy=True)
        font = coll.fonts[index]
    else:
        font = TTFont(str(path), lazy=True, fontNumber=index)
    cmap = font.getBestCmap() or {}
    return frozenset(cmap)


# ------------------------------------------------------------------ character classes
_CJK_RANGES = (
    (0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x2FF0, 0x303F), (0x3040, 0x31FF), (0x3200, 0x4DBF),
    (0x4E00, 0x9FFF), (0xA960, 0xA97F), (0xAC00, 0xD7FF), (0xF900, 0xFAFF), (0xFE10, 0xFE1F),
    (0xFE30, 0xFE4F), (0xFF00, 0xFFEF), (0x1F200, 0x1F2FF), (0x20000, 0x3FFFF),
)
# Either font of the role may set these (xeCJK's character classes vary by setting).
_AMBIGUOUS_RANGES = ((0x00A0, 0x00BF), (0x00D7, 0x00D7), (0x00F7, 0x00F7), (0x02C6, 0x02DD),
                     (0x2000, 0x2BFF))


# Superscripts and subscripts (10⁹, 10⁻³): set in `serif_fallback` where the body text has
# one (the LaTeX filter wraps them, filters/serif_fallback.lua).
FALLBACK_RANGES = ((0x2070, 0x209F),)


def _in(cp: int, ranges) -> bool:
    return any(lo <= cp <= hi for lo, hi in ranges)


def _ignored(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return ch in " \t\r\n\u00a0" or cat in ("Cc", "Cf") or ch == "\ufeff"


def covered(ch: str, role: str, fs: FontSet) -> tuple[bool, list[str]]:
    """Is ``ch`` covered in ``role`` (serif/sans/mono/math)?  Also returns the fonts tried."""
    cp = ord(ch)
    if role == "math":
        fonts = [fs.math, fs.serif, fs.cjk_serif]
    else:
        latin, cjk = fs.role(role)
        if _in(cp, _CJK_RANGES):
            fonts = [cjk]
        elif _in(cp, _AMBIGUOUS_RANGES):
            fonts = [latin, cjk]
        else:
            fonts = [latin]
        if role == "serif" and fs.serif_fallback and _in(cp, FALLBACK_RANGES):
            fonts = [*fonts, fs.serif_fallback]
    return any(cp in font_cmap(f) for f in fonts), fonts


# ------------------------------------------------------------------ markdown scanning
# Read through the parser's token stream (bookkit/source/markdown.py), as every other reader of the
# Markdown: which text is a heading, code or math is what the parser says, not a line pattern.
_INLINE_ROLES = {"code_inline": "mono", "math_inline": "math", "math_inline_double": "math"}
_BLOCK_ROLES = {"fence": "mono", "code_block": "mono", "math_block": "math",
                "math_block_label": "math", "html_block": "serif"}


def _segments(text: str):
    """Yield (line_no, role, chunk) for a resolved Pandoc Markdown file."""
    tokens, _env = parse(text)
    for i, tok in enumerate(tokens):
        if tok.type == "inline":
            opener = tokens[i - 1] if i else None
            heading = opener is not None and opener.type == "heading_open"
            typed = opener.meta.get("typed_number") if opener is not None else None
            if typed is not None:   # printed as written ("第 1 章"); the parser set it aside
                yield typed.line, "sans" if heading else "serif", typed.number
            yield from _inline(tok.children or [], "sans" if heading else "serif")
        elif tok.type in _BLOCK_ROLES and tok.map:
            role = _BLOCK_ROLES[tok.type]
            first = tok.map[0] + (1 if tok.type == "fence" else 0)   # after the opening fence
            if tok.type == "fence" and tok.info.strip() == "{=latex}":
                # raw LaTeX: its text is set in the body font; `%` lines are TeX comments
                # (the source markers, whose paths are never printed)
                role = "serif"
            for offset, line in enumerate(tok.content.splitlines()):
                if role == "serif" and line.lstrip().startswith("%"):
                    continue
                yield first + offset + 1, role, line


def _inline(children, base: str):
    for child in children:
        line = child.map[0] + 1 if child.map else 0
        if child.type in _INLINE_ROLES:
            yield line, _INLINE_ROLES[child.type], child.content
        elif child.type in ("text", "html_inline", "xref"):
            yield line, base, child.content
        elif child.children:   # an image's alt text, a link's text
            yield from _inline(child.children, base)
        if child.type == "image":   # `{… alt="…"}` goes into \includegraphics[alt={…}]
            for key, value in child.attrs.items():
                if key not in ("src", "id", "class") and isinstance(value, str):
                    yield line, base, value


def _metadata_lines(meta_path: Path):
    """Lines of metadata.yaml whose values end up on the cover/title page/headers (sans)."""
    keys = ("title", "subtitle", "author", "cover-title-lines", "toc-title", "  -")
    for no, line in enumerate(meta_path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith(keys):
            yield no, "sans", line.split(":", 1)[-1] if not line.startswith("  -") else line[3:]


def preflight(files, fs: FontSet, metadata: Path | None = None,
              keep: Path | None = None) -> int:
    """Check every character of ``files`` (and the metadata) against ``fs``.

    Raises :class:`CoverageError` with ``file:line: character U+XXXX 'c' is not covered by
    <fonts>`` for the first uncovered character.  Returns the number of characters checked.
    ``keep``, if given, is a folder that remembers the files that passed (by their text, the
    fonts and this module's code): parsing the book's ~1.5 MB again to check them was ~5 s
    of every PDF build.
    """
    count = 0
    sources = []
    if metadata is not None and metadata.exists():
        sources.append((metadata, lambda m=metadata: list(_metadata_lines(m)), None))
    salt = hashlib.sha256(Path(__file__).read_bytes() + repr(fs).encode()).digest()
    passed: set[str] = set()
    for f in files:
        f = Path(f)
        data = f.read_bytes()
        mark = hashlib.sha256(salt + data).hexdigest()[:32]
        passed.add(mark)
        known = keep / mark if keep is not None else None
        if known is not None and known.is_file():
            count += int(known.read_text(encoding="ascii") or 0)
            continue
        sources.append((f, lambda d=data: list(_segments(d.decode("utf-8"))), known))
    # A character is looked up once per role: a book has ~10^6 characters but a few thousand
    # distinct ones, and looking each up again was ~80 % of a warm PDF build's Python time.
    covered_in: dict[str, set[str]] = {}
    ignored: set[str] = set()
    for path, segments, known in sources:
        in_file = 0
        for no, role, chunk in segments():
            seen = covered_in.setdefault(role, set())
            for ch in chunk:
                if ch in seen:
                    in_file += 1
                    continue
                if ch in ignored:
                    continue
                if _ignored(ch):
                    ignored.add(ch)
                    continue
                in_file += 1
                ok, fonts = covered(ch, role, fs)
                if not ok:
                    raise CoverageError(
                        f"{path}:{no}: character U+{ord(ch):04X} {ch!r} is not covered by "
                        f"{' / '.join(fonts)} ({role} text)")
                seen.add(ch)
        count += in_file
        if known is not None:
            known.parent.mkdir(parents=True, exist_ok=True)
            known.write_text(str(in_file), encoding="ascii")
    if keep is not None and keep.is_dir():    # only the current files' marks are kept
        for old in keep.iterdir():
            if old.name not in passed:
                old.unlink(missing_ok=True)
    return count
