"""Map a XeLaTeX error in the generated `book.tex` back to the author's file and line.

The export puts a marker before every top-level block of a chapter, a raw LaTeX comment
`% bookkit-source 42 /path/manuscripts/01-x.md` that Pandoc copies into `book.tex` on a line of
its own: the last marker above the failing line names the block's file and first line, and the
line of the block sharing the most words with the failing TeX line is the one reported. Markers
are independent of how Pandoc wraps the generated lines (a long `\\chapter*{…}` title spans
several lines; counting or matching lines alone then named the previous chapter).

Without markers (sources exported before them), the older reckoning applies. XeLaTeX reports
`./book.tex:1234: Undefined control sequence.` and the text before the error (`l.1234 …`). The chapter is the last `\\chapter{…\\label{id}}` above that line; within the
chapter's exported Markdown, the line sharing the most words and control sequences with the
failing TeX line is the one Pandoc made it from (Pandoc keeps no source positions for LaTeX);
`sourcemap.json`, written by the export, turns that exported line into the author's
`manuscripts/03-x.md:42`.

TeX wraps its log at 79 columns, which cut file names and messages in half: `TEX_ENV` widens it.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

# kpathsea reads these from the environment: one log line per message, never wrapped.
TEX_ENV = {"max_print_line": "100000", "error_line": "254", "half_error_line": "238"}
SOURCEMAP = "sourcemap.json"
MARKER = "% bookkit-source"
# the Pandoc Div class that carries a marker to the LaTeX filter (render/pandoc/sources.source_marker)
MARKER_CLASS = "bookkit-source"
_MARKER_RE = re.compile(r"^% bookkit-source (\d+) (.+)$")
_ERROR_RE = re.compile(r"^(?:\./)?(\S+?\.tex):(\d+): (.*)$", re.M)
_WORD_RE = re.compile(r"\\[A-Za-z@]+|[A-Za-z0-9_]{4,}|[\u3400-\u9fff]{2,}")


def source_position(src_root: Path, exported: Path, line: int) -> tuple[Path, int]:
    """The author's file and line for line `line` of an exported chapter (itself if unknown)."""
    try:
        data = json.loads((src_root / SOURCEMAP).read_text(encoding="utf-8"))
        entry = data[exported.name]
        return Path(entry["source"]), entry["lines"][min(line, len(entry["lines"])) - 1]
    except (OSError, ValueError, KeyError, IndexError):
        return exported, line


def _best_line(path: Path, words: list[str], strong: list[str]) -> tuple[int, int]:
    """(line, score) of the line of `path` sharing the most of `words` (`strong` count triple)."""
    best, best_score = 1, 0
    for no, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        score = sum(1 for w in words if w in text) + sum(2 for w in strong if w in text)
        if score > best_score:
            best, best_score = no, score
    return best, best_score


def locate(log: str, tex: Path, files: list[Path], chapter_ids: dict[str, Path],
           src_root: Path) -> str:
    """`file:line: message (book.tex:N: context)` for the first error of the log."""
    m = _ERROR_RE.search(log)
    if not m:
        bang = re.search(r"^! (.*)$", log, re.M)
        return f"book.tex: XeLaTeX failed: {bang.group(1) if bang else 'see the log'}"
    line_no, message = int(m.group(2)), m.group(3).strip()
    context = re.search(r"^l\.\d+ (.*)$", log[m.end():], re.M)
    where = f"book.tex:{line_no}" + (f": {context.group(1).strip()}" if context else "")
    tex_lines = tex.read_text(encoding="utf-8").splitlines()
    marked = _marked_position(tex_lines, line_no, context.group(1) if context else "")
    if marked is not None:
        return f"{marked[0]}:{marked[1]}: {message} (at {where})"
    chapter = None
    for i in range(min(line_no, len(tex_lines)) - 1, -1, -1):
        lm = re.search(r"\\chapter\*?\{.*\\label\{([^}]*)\}", tex_lines[i])
        if lm and lm.group(1) in chapter_ids:
            chapter = chapter_ids[lm.group(1)]
            break
    text = tex_lines[line_no - 1] if 0 < line_no <= len(tex_lines) else ""
    words = _WORD_RE.findall(text)
    # The control sequence TeX stopped at ends the context: the likeliest culprit.
    strong = _WORD_RE.findall(context.group(1))[-2:] if context else []
    candidates = [chapter] if chapter is not None else list(files)
    best = max(((f, *_best_line(f, words, strong)) for f in candidates),
               key=lambda hit: hit[2], default=None)
    if best is None or (chapter is None and best[2] == 0):
        return f"book.tex:{line_no}: {message} (at {where})"
    source, line = source_position(src_root, best[0], best[1])
    return f"{source}:{line}: {message} (at {where})"


def _marked_position(tex_lines: list[str], line_no: int, context: str) -> tuple[str, int] | None:
    """(author's file, line) from the markers around TeX line `line_no`, or None if unmarked."""
    above = next(((i, m) for i in range(min(line_no, len(tex_lines)) - 1, -1, -1)
                  if (m := _MARKER_RE.match(tex_lines[i]))), None)
    if above is None:
        return None
    index, m = above
    path, first = m.group(2), int(m.group(1))
    # The block runs to the next marker of the same file (or a few lines if it is the last).
    below = next((int(n.group(1)) for j in range(index + 1, len(tex_lines))
                  if (n := _MARKER_RE.match(tex_lines[j])) and n.group(2) == path), None)
    try:
        source = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return path, first
    last = below - 1 if below and below > first else min(first + 50, len(source))
    text = tex_lines[line_no - 1] if 0 < line_no <= len(tex_lines) else ""
    words = _WORD_RE.findall(text)
    strong = _WORD_RE.findall(context)[-2:]
    def best_in(lines: range) -> tuple[int, int]:
        best, best_score = first, 0
        for no in lines:
            line = source[no - 1] if 0 < no <= len(source) else ""
            score = sum(1 for w in words if w in line) + sum(2 for w in strong if w in line)
            if score > best_score:
                best, best_score = no, score
        return best, best_score

    best, score = best_in(range(first, last + 1))
    if score == 0:
        # A footnote's text is set where it is referenced, under that paragraph's marker, but
        # written at the chapter's end: look through the whole file before settling on the block.
        best, score = best_in(range(1, len(source) + 1))
        best = best if score else first
    return path, best
