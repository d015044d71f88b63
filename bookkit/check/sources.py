"""Source checks for Markdown written for other toolchains, where the build fixes things silently
or where only the PDF would break: typed heading and caption numbers (removed by the build),
images that are missing or cannot be converted, HTML ids the PDF and EPUB do not get, links to
`#ids` that nothing defines, repository links without `repo_url:`. `scripts/check_site.py` runs
them; the build prints the typed numbers as warnings.

Every finding is a warning at `path:line` (the build itself fails on a missing image or an
unusable link; these tell the author before the PDF does).
"""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from bookkit.source.markdown import not_prose_lines, parse
from bookkit.source import images
from bookkit.source.links import (INLINE_LINK_RE, LinkError, RAW_ANCHOR_RE, is_relative,
                                   raw_anchor_ids, repo_link, repo_settings)
from bookkit.source.typed_numbers import message, typed_numbers
from bookkit.model import WARNING, Finding

# An HTML tag with an id the Pandoc export does not turn into an anchor (`<div id=x>`,
# unquoted ids): fine on the site, a dangling reference in the PDF.
_HTML_ID_RE = re.compile(r"<([a-zA-Z][a-zA-Z0-9]*)\b[^>]*?\s(?:id|name)\s*=\s*[\"']?([\w:.-]+)")
_CODE_RE = re.compile(r"(`+).+?\1")


def _prose_lines(tokens, text: str) -> list[tuple[int, str]]:
    """(1-based line, text without inline code) of every line outside fenced code and math."""
    hidden = not_prose_lines(tokens)
    return [(i + 1, _CODE_RE.sub("", line)) for i, line in enumerate(text.splitlines())
            if i not in hidden]


def markup_left_as_text(rel: str, tokens) -> list[Finding]:
    """Markdown the parser read as plain text although the author meant markup (the PDF, made by
    Pandoc, often gets these right, so only the site shows them):
    - `**` left in the text: CommonMark does not let `**` close after a punctuation mark when a
      letter follows, nor open after a letter before punctuation, which Chinese hits all the
      time (`**生成（rollout）**阶段`, `所以**{{ x }}**`);
    - a table's `: caption` line written with no blank line above it becomes a table row;
    - a blank line inside a table ends it, and the rows after it show as text with pipes.
    """
    out: list[Finding] = []
    row_cells: list[str] = []
    for i, tok in enumerate(tokens):
        line = (tok.map[0] + 1) if tok.map else 0
        if tok.type == "tr_open":
            row_cells, row_line = [], line
        elif tok.type == "inline" and tokens[i - 1].type in ("td_open", "th_open"):
            row_cells.append(tok.content.strip())
        elif tok.type == "tr_close" and row_cells and row_cells[0].startswith(": ") \
                and not any(row_cells[1:]):
            out.append(Finding("markup-as-text", f"{rel}:{row_line}",
                               "this `: caption` line is read as a row of the table above it: "
                               "leave a blank line between the table and its caption",
                               WARNING, row_line))
        elif tok.type == "inline" and tokens[i - 1].type == "paragraph_open":
            if re.match(r"\|.*\|", tok.content) and tok.content.count("|") >= 3:
                out.append(Finding("markup-as-text", f"{rel}:{line}",
                                   "table rows outside a table, shown as text with pipes: a "
                                   "blank line ends a table; remove the blank line above",
                                   WARNING, line))
            depth = in_link = 0
            for child in tok.children or []:
                depth += {"strong_open": 1, "strong_close": -1}.get(child.type, 0)
                in_link += {"link_open": 1, "link_close": -1}.get(child.type, 0)
                # `**a（b）**c … **d**` pairs the wrong markers: bold inside bold, never meant.
                # A link's text is not checked: `__` is common in URLs (`group__CUDA.html`).
                if (child.type == "text" and not in_link
                        and ("**" in child.content or "__" in child.content)) or depth > 1:
                    out.append(Finding(
                        "markup-as-text", f"{rel}:{line}",
                        "`**` shown as text: CommonMark cannot close `**` after punctuation "
                        "followed by a letter, nor open it after a letter before punctuation "
                        "(`**生成（rollout）**阶段`): move the marker next to the letters "
                        "(`**生成**（rollout）`) or drop the emphasis", WARNING, line))
                    break
    return out


def chapter_findings(root: Path, path: Path, text: str, known_ids: set[str],
                     original_dir: str, repo: dict, tokens=None) -> list[Finding]:
    """The checks above on one chapter file; `known_ids` are every id of the edition,
    `original_dir` the original's folder (whose images a translation may reuse)."""
    if tokens is None:
        tokens, _ = parse(text)
    rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    out = [Finding("typed-number", f"{rel}:{t.line}", message(t), WARNING, t.line)
           for t in typed_numbers(tokens)]
    for line, prose in _prose_lines(tokens, text):
        for m in _HTML_ID_RE.finditer(prose):
            tag_start = m.start()
            if not any(a.start() == tag_start for a in RAW_ANCHOR_RE.finditer(prose)):
                out.append(Finding("raw-anchor", f"{rel}:{line}",
                                   f"HTML id `{m.group(2)}` on <{m.group(1)}> works on the site "
                                   f"only: write <a id=\"{m.group(2)}\"></a> or a {{#{m.group(2)}}} "
                                   "attribute so the PDF and EPUB get it too", WARNING, line))
        for m in INLINE_LINK_RE.finditer(prose):
            target = m.group(3).strip("<>")
            if m.group(1):
                if images.is_local(target) and not target.endswith(".py"):
                    problem = images.check_image(path, root, target, original_dir)
                    if problem:
                        out.append(Finding("image", f"{rel}:{line}", problem, WARNING, line))
                continue
            path_part, _, fragment = target.partition("#")
            if target.startswith("#") or (path_part.endswith(".md") and fragment):
                if fragment and unquote(fragment) not in known_ids:
                    out.append(Finding("unresolved-anchor", f"{rel}:{line}",
                                       f"nothing defines the id `{unquote(fragment)}` (no heading "
                                       "{#id}, label or <a id> in this edition)", WARNING, line))
            elif is_relative(target) and not path_part.endswith(".md"):
                try:
                    repo_link(root, path, target, repo)
                except LinkError as exc:
                    out.append(Finding("repo-link", f"{rel}:{line}", str(exc), WARNING, line))
    return out


# What a chapter must contain for any check above to find something (headings opening with a
# number-like word, HTML ids, relative links and images, typed caption numbers): chapters without
# any are not parsed, which keeps check_site fast on a book written in the dialect.
_CANDIDATE_RE = re.compile(
    r"^#{1,6}\s+(?:第|[Cc]hapter|[Ss]ection|[Pp]art|[Aa]ppendix|§|[A-Z]?\d)"
    r"|<[a-zA-Z][^>]*\s(?:id|name)\s*="
    r"|\]\((?!https?:|mailto:|figures/[^)\s]*\.py)"
    r"|^!\[(?:图|圖|表|[Ff]ig|[Tt]able)", re.M)

_FRAGMENT_LINK_RE = re.compile(r"\]\(<?[^)\s#]*#")


def _edition_ids(chapters) -> set[str]:
    """Every id a link may name in an edition: headings (positional too), figures, tables,
    equations, raw anchors."""
    from bookkit.model import BuildError
    from bookkit.resolve.numbering import number_chapter
    labels: dict = {}
    known: set[str] = set()
    for chapter in chapters:
        tokens, _ = parse(chapter.text)
        try:
            number_chapter(chapter, tokens, labels)
        except BuildError:
            pass  # the build reports it
        known.update(str(t.attrGet("id")) for t in tokens if t.attrGet("id"))
        known.update(i for i, _ in raw_anchor_ids(chapter.text))
        known.update(re.findall(r"\{#([A-Za-z][\w:.-]*)", chapter.text))
    return known | set(labels)


def source_findings(root: Path) -> list[Finding]:
    """The checks over every chapter of every edition folder that exists."""
    from bookkit.load.config import edition_file, read_book_config
    from bookkit.model import ChapterSource
    root = Path(root).resolve()
    config = read_book_config(root)
    plan = config.chapters
    out: list[Finding] = []
    for spec in config.registry:     # the chapter files that exist, as each edition names them
        key, folder = spec.id, spec.dir
        files = [(number, edition_file(config, number, spec), slug) for number, _f, slug in plan]
        chapters = [ChapterSource(key, number, slug, root / folder / file,
                                  (root / folder / file).read_text(encoding="utf-8"))
                    for number, file, slug in files if (root / folder / file).is_file()]
        candidates = [c for c in chapters if _CANDIDATE_RE.search(c.text)]
        links_to_ids = any(_FRAGMENT_LINK_RE.search(c.text) for c in candidates)
        known = _edition_ids(chapters) if links_to_ids else set()
        for chapter in chapters:       # every chapter: ~10 ms of parsing each
            tokens, _ = parse(chapter.text)
            rel = chapter.path.relative_to(root).as_posix()
            out += markup_left_as_text(rel, tokens)
            if chapter in candidates:
                out += chapter_findings(root, chapter.path, chapter.text, known,
                                        config.registry.original.dir,
                                        repo_settings(config.data), tokens)
    return out
