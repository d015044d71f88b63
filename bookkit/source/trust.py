"""The trust boundary between the author's code and contributors' text (CONTRIBUTING, "Threat
model").

Who is trusted is decided by the edition registry (`EditionSpec.trusted`: the original); this
module says what an untrusted edition's chapter may hold, and is asked by the resolve stage
(`Resolver.check_trust`, before an edition is numbered: the build stops with every problem at
its file:line), by `check_site.py` (`bookkit.check.trust`: errors) and by
`check_translation.py` (high findings). A translation is text: it
may carry the documented raw anchors and nothing else of HTML, no raw TeX, no figure script but
the original's figure of the same id, and math built only from control sequences the
original's author used. Some rules hold for every edition (no `javascript:`/`data:` URLs, no
unclosed fence, figure scripts only from the original's `figures/`).

Not a stage: the resolve stage and the source checks ask the same questions, so the answers
live here, beside `markdown.py` and `images.py`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from markdown_it.token import Token

# The raw HTML a translation may carry: the anchor forms of CONTRIBUTING ("Chapters written for
# other toolchains"), `<a id="x"></a>`, `<a name="x">text</a>`, `<span id="x"></span>`. Tag ->
# the attributes it may have (exactly one of them, an identifier).
ANCHOR_TAGS = {"a": ("id", "name"), "span": ("id",)}
_IDENT_RE = re.compile(r"^[A-Za-z0-9_:.-]+$")
# URL schemes no edition's output may carry: script (javascript:, vbscript:), inline documents
# (data:, which can hold HTML or SVG with script) and local files.
UNSAFE_SCHEME_RE = re.compile(r"^\s*(?:javascript|vbscript|data|file)\s*:", re.I)
# A Markdown link or autolink markdown-it refused and left as text, which Pandoc would still read
# as a link (into the EPUB): `[x](javascript:…)`, `<data:…>`.
_TEXT_LINK_RE = re.compile(r"(?:\]\(\s*<?|\]:\s*<?|<)\s*(?:javascript|vbscript|data|file)\s*:", re.I)
_CONTROL_SEQ_RE = re.compile(r"\\(?:[A-Za-z@]+|.)", re.S)
_MATH_TYPES = ("math_inline", "math_inline_double", "math_block", "math_block_label")


@dataclass(frozen=True)
class Problem:
    line: int | None
    message: str
    hint: str = ""


class _AnchorsOnly(HTMLParser):
    """Reads a raw HTML fragment and records everything that is not an anchor form.

    The standard library's tokenizer (the HTML5 tokenizing rules for tags, attributes,
    comments and character references) with an allow-list, rather than a sanitiser such as
    nh3: a translation's HTML is not cleaned, it is refused with its line, and an allow-list of
    two tags needs no dependency.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.bad: list[str] = []

    def handle_starttag(self, tag, attrs):
        allowed = ANCHOR_TAGS.get(tag)
        names = [k for k, _v in attrs]
        if (allowed is None or len(attrs) != 1 or names[0] not in allowed
                or not _IDENT_RE.match(attrs[0][1] or "")):
            shown = " ".join(f'{k}="{v}"' if v is not None else k for k, v in attrs)
            self.bad.append(f"<{tag}{' ' + shown if shown else ''}>")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag not in ANCHOR_TAGS:
            self.bad.append(f"</{tag}>")

    def handle_data(self, data):
        if "<" in data:    # a tag the tokenizer could not finish: never pass it on
            self.bad.append(data.strip()[:40])

    def handle_decl(self, decl):
        self.bad.append(f"<!{decl}>")

    def unknown_decl(self, data):
        self.bad.append(f"<![{data}]>")

    def handle_pi(self, data):
        self.bad.append(f"<?{data}>")


def disallowed_html(fragment: str) -> list[str]:
    """The parts of a raw HTML fragment that are not one of the anchor forms (empty: allowed)."""
    parser = _AnchorsOnly()
    parser.feed(fragment)
    parser.close()
    return parser.bad


def _line(tok: Token) -> int | None:
    return tok.map[0] + 1 if tok.map else None


class _Walked(list):
    """A chapter's tokens in `_walk`'s order, listed once: `chapter_problems` runs five checks
    over every token (~120,000 tokens a cold build)."""


def _walk(tokens: list[Token]):
    if isinstance(tokens, _Walked):
        return tokens
    return _walk_tokens(tokens)


def _walk_tokens(tokens: list[Token]):
    for tok in tokens:
        yield tok
        for child in tok.children or []:
            yield child
            yield from child.children or []


def math_commands(tokens: list[Token]) -> set[str]:
    """The TeX control sequences of a chapter's math (`\\frac`, `\\text`, `\\,`)."""
    return {cs for tok in _walk(tokens) if tok.type in _MATH_TYPES
            for cs in _CONTROL_SEQ_RE.findall(tok.content)}


def figure_scripts(tokens: list[Token]) -> dict[str, tuple[str, int | None]]:
    """{figure id: (script path as written, line)} of every image naming a `.py` file (a
    figure script; one not alone in its paragraph is the renderer's error)."""
    return {str(tok.attrs.get("id") or ""): (str(tok.attrs.get("src", "")), _line(tok))
            for tok in _walk(tokens)
            if tok.type == "image" and str(tok.attrs.get("src", "")).endswith(".py")}


def unclosed_fence(tokens: list[Token], lines: list[str]) -> Problem | None:
    """A fence that is never closed runs to the end of the file and turns the rest of the
    chapter into code (later errors then point far from the cause): named at its opening line."""
    for tok in tokens:
        if tok.type != "fence" or not tok.map:
            continue
        end = tok.map[1]
        closing = lines[end - 1].strip() if tok.map[0] + 1 < end <= len(lines) else ""
        if not (closing.startswith(tok.markup) and set(closing) == {tok.markup[0]}):
            return Problem(_line(tok), f"this {tok.markup} code fence is never closed: it runs "
                           "to the end of the file and takes everything after it as code",
                           f"end it with a line holding only {tok.markup}")
    return None


def figure_problems(tokens: list[Token], figures_dir: Path, root: Path) -> list[Problem]:
    """Every edition: a figure script is a file directly in the original's `figures/` folder,
    named as `figures/NAME.py`, not a symlink."""
    out = []
    base = figures_dir.parent
    for fid, (src, line) in figure_scripts(tokens).items():
        path = base / src
        inside = (not Path(src).is_absolute() and ".." not in Path(src).parts
                  and path.parent == figures_dir)
        if not inside or path.is_symlink():
            out.append(Problem(line, f"figure script `{src}` is not in "
                               f"{figures_dir.relative_to(root).as_posix()}/: only the "
                               "original's figure scripts run",
                               "write ![caption](figures/NAME.py){#fig-x}"))
    return out


def untrusted_problems(tokens: list[Token], original_tokens: list[Token],
                       original_math: set[str] | None = None) -> list[Problem]:
    """What a contributor's (untrusted) chapter may not hold. `original_tokens`: the original's
    chapter of the same file (its figures are the ones a translation may show);
    `original_math`: the control sequences of all the original's math (default: that
    chapter's)."""
    out: list[Problem] = []
    allowed_math = original_math if original_math is not None else math_commands(
        original_tokens)
    original_figures = figure_scripts(original_tokens)
    previous: Token | None = None
    for tok in _walk(tokens):
        kind = tok.type
        if kind in ("html_inline", "html_block"):
            bad = disallowed_html(tok.content)
            if bad:
                out.append(Problem(_line(tok), f"raw HTML `{bad[0]}` is not allowed in a "
                                   "translation: only the anchors <a id=\"x\"></a>, "
                                   "<a name=\"x\">text</a> and <span id=\"x\"></span>",
                                   "use Markdown links, emphasis and images instead"))
        elif kind == "fence" and tok.info.strip().startswith("{="):
            out.append(Problem(_line(tok), f"a raw ```{tok.info.strip()} block is not allowed "
                               "in a translation: only the original's author writes raw output",
                               "use a plain code block"))
        elif kind == "fence" and tok.info.split()[:1] == ["calc"]:
            out.append(Problem(_line(tok), "a ```calc cell in a translation: cells run only in "
                               "the original", "bind the original's names with {{ name }}"))
        elif kind == "text" and previous is not None and previous.type == "code_inline" \
                and tok.content.startswith("{="):
            out.append(Problem(_line(tok), "a raw inline `…`{=format} is not allowed in a "
                               "translation", "write the text without the {=…} attribute"))
        elif kind in _MATH_TYPES:
            if "^^" in tok.content:
                out.append(Problem(_line(tok), "`^^` in math: TeX reads it as a character "
                                   "code, which can spell any command", "remove it"))
            unknown = sorted(set(_CONTROL_SEQ_RE.findall(tok.content)) - allowed_math)
            if unknown:
                out.append(Problem(_line(tok), f"math command {unknown[0]} is not used in the "
                                   "original's math: a translation's math may use only "
                                   "commands the original uses", "copy the original's formula"))
        elif kind == "image" and str(tok.attrs.get("src", "")).endswith(".py"):
            fid = str(tok.attrs.get("id") or "")
            src = str(tok.attrs.get("src", ""))
            if original_figures.get(fid, (None,))[0] != src:
                known = original_figures.get(fid)
                out.append(Problem(_line(tok), f"figure `{src}`{' #' + fid if fid else ''} is "
                                   "not the original's figure: a translation shows the "
                                   "original's figures (same id, same script) and runs no "
                                   "script of its own",
                                   f"write ![caption]({known[0]}){{#{fid}}}" if known else
                                   "use an id and script of the original's chapter"))
        previous = tok
    return out


def unsafe_url_problems(tokens: list[Token]) -> list[Problem]:
    """Every edition: no link or image to a script, an inline document or a local file, also
    not as text markdown-it refused but Pandoc would read as a link."""
    out = []
    for tok in _walk(tokens):
        url = None
        if tok.type == "link_open":
            url = str(tok.attrs.get("href", ""))
        elif tok.type == "image":
            url = str(tok.attrs.get("src", ""))
        handlers = tok.attrs and [k for k in tok.attrs if str(k).lower().startswith("on")]
        if handlers:
            out.append(Problem(_line(tok), f"attribute `{handlers[0]}` is not allowed: an event "
                               "handler runs script", "remove it"))
        elif url is not None and UNSAFE_SCHEME_RE.match(url):
            out.append(Problem(_line(tok), f"URL `{url[:40]}` is not allowed: no "
                               "javascript:, vbscript:, data: or file: links or images",
                               "link to an https:// page or a file of the book"))
        elif tok.type == "text" and _TEXT_LINK_RE.search(tok.content):
            out.append(Problem(_line(tok), "a link to a javascript:, vbscript:, data: or file: "
                               "URL is not allowed", "link to an https:// page"))
    return out


# Elements of an SVG that run script or embed a document: refused in a contributor's SVG
# image (the site ships it as a file of its origin, and inlines an SVG figure into the page,
# where its event handlers would run) and in any SVG of the built site.
SVG_ACTIVE_TAGS = ("script", "foreignobject", "iframe", "embed", "object", "handler", "listener")
SVG_URL_ATTRS = ("href", "xlink:href", "src", "action", "formaction", "data", "values", "from",
                 "to", "by")
# A raster drawn into a figure (matplotlib's imshow) is embedded as a data: URL of an image
# type that cannot hold script: the one data: URL an SVG may carry.
_RASTER_DATA_RE = re.compile(r"^\s*data:image/(?:png|jpeg|gif|webp);base64,", re.I)


class _SvgScan(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []

    def handle_starttag(self, tag, attrs):
        line = self.getpos()[0]
        if tag.lower() in SVG_ACTIVE_TAGS:
            self.found.append((line, f"<{tag}> runs script or embeds a document"))
        for name, value in attrs:
            name = name.lower()
            if name.startswith("on"):
                self.found.append((line, f"<{tag} {name}=…>: an event-handler attribute runs "
                                   "script"))
            elif (name in SVG_URL_ATTRS and value and UNSAFE_SCHEME_RE.match(value)
                  and not (tag == "image" and _RASTER_DATA_RE.match(value))):
                self.found.append((line, f"<{tag} {name}=\"{value[:40]}\">: javascript:, "
                                   "vbscript:, data: and file: URLs are not allowed"))

    handle_startendtag = handle_starttag


def unsafe_svg(text: str) -> list[tuple[int, str]]:
    """(line, what) for everything in an SVG document that could run script."""
    if not re.search(r"<\s*(?:script|foreignobject|iframe|embed|object|handler|listener)\b"
                     r"|\son[a-z]+\s*=|javascript:|vbscript:|data:|file:", text, re.I):
        return []        # the parse is for files that might hold one
    parser = _SvgScan()
    parser.feed(text)
    parser.close()
    return parser.found


def image_problems(tokens: list[Token], chapter_path: Path, original_dir: str,
                   trusted: bool = True) -> list[Problem]:
    """Every edition: an image is a file of the book, reached without a symlink (a missing
    image is the renderers' error, with the same line). An untrusted edition's own SVG image
    holds no script."""
    from bookkit.source import images
    out = []
    for tok in _walk(tokens):
        src = str(tok.attrs.get("src", "")) if tok.type == "image" else ""
        if not src or src.endswith(".py") or not images.is_local(src):
            continue
        try:
            path = images.source_path(chapter_path, src, original_dir)
        except images.UnsafeImage as exc:
            out.append(Problem(_line(tok), str(exc)))
            continue
        except images.ImageError:
            continue
        if not trusted and path.suffix.lower() == ".svg" and path.parent.is_relative_to(
                chapter_path.parent):
            found = unsafe_svg(path.read_text(encoding="utf-8", errors="replace"))
            if found:
                out.append(Problem(_line(tok), f"SVG image {src} is not allowed in a "
                                   f"translation: line {found[0][0]}: {found[0][1]}",
                                   "export the drawing without scripts, links or event "
                                   "handlers"))
    return out


def chapter_problems(tokens: list[Token], text: str, trusted: bool, original_tokens: list[Token],
                     original_math: set[str], figures_dir: Path, root: Path,
                     chapter_path: Path | None = None, original_dir: str = "") -> list[Problem]:
    """Everything this module refuses in one chapter of an edition (trusted: the original).
    With `chapter_path`, its images too (`original_dir`: the original's folder, whose images a
    translation may reuse)."""
    fence = unclosed_fence(tokens, text.splitlines())
    out = [fence] if fence else []
    walked = _Walked(_walk_tokens(tokens))
    out += unsafe_url_problems(walked) + figure_problems(walked, figures_dir, root)
    if chapter_path is not None:
        out += image_problems(walked, chapter_path, original_dir, trusted)
    if not trusted:
        out += untrusted_problems(walked, original_tokens, original_math)
    return sorted(out, key=lambda p: p.line or 0)
