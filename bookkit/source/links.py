"""Links a chapter brought in from elsewhere writes: raw HTML anchors, links to repository files
outside the book, links to other chapter files.

- `<a id="x"></a>`, `<a name="x">text</a>`, `<span id="x"></span>`: on the site they are HTML
  and work as they are; for Pandoc they become `[]{#x}` / `[text]{#x}` spans, so LaTeX gets a
  `\\label` (a `\\hyperref` to it resolves) and the EPUB an `id`.
- `[script](../calculations/x.py)`, `[notes](ch07/README.md)`, `[tools](../tools/)`: a file or
  folder of the repository, not a page of the book (a Markdown file that is not a chapter
  included). Rendered as an absolute link under the repository's browse URL (`repo_url:` and
  `repo_branch:` of `manuscripts/book.yml`: `…/blob/main/x.py` for files, `…/tree/main/tools/`
  for folders) on the site, in the PDF and in the EPUB. A target that does not exist is an error.
- `[第 2 章](02-x.md#sec-y)`: in the PDF and EPUB (one document) the `#sec-y` part.

Not a stage: pure functions of a link's text (and `repo_url:`) that the renderers and the source
checks share, kept beside `markdown.py` so that no output reaches into the resolve stage. Moving
them into resolved token metadata instead would make the renderers and `check/sources.py` (which
reads raw sources, not a `ResolvedBook`) disagree on one rule written twice.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import quote, unquote



_ID = r"[A-Za-z][\w:.-]*"
# An anchor element the author wrote: id or name, with or without content.
RAW_ANCHOR_RE = re.compile(
    rf"""<(a|span)\s+(?:[^>]*?\s)?(?:id|name)\s*=\s*["']({_ID})["'][^>]*?(?:/>|>(.*?)</\1\s*>)""",
    re.S)
# Inline links and images `[text](target "title")` and reference definitions `[x]: target`.
INLINE_LINK_RE = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*(<[^>]*>|[^)\s]+)([^)]*)\)")
REF_DEF_RE = re.compile(r"^( {0,3}\[(?!\^)[^\]]+\]:\s*)(<[^>]*>|\S+)(.*)$")
_REMOTE_RE = re.compile(r"^[a-z][a-z0-9+.-]*:|^/|^#", re.I)


class LinkError(Exception):
    """A link that cannot be made to work (message says what to do)."""


def raw_anchor_ids(text: str) -> list[tuple[str, int]]:
    """(id, line) of every raw HTML anchor in a chapter's text."""
    return [(m.group(2), text.count("\n", 0, m.start()) + 1) for m in RAW_ANCHOR_RE.finditer(text)]


def anchors_for_pandoc(text: str) -> str:
    """`<a id="x"></a>` -> `[]{#x}`; `<a name="x">text</a>` -> `[text]{#x}`."""
    return RAW_ANCHOR_RE.sub(lambda m: f"[{(m.group(3) or '').strip()}]{{#{m.group(2)}}}", text)


# `repo_url` written as a browse URL (`…/blob/main/`, as this setting was first documented):
# the repository and the branch are read out of it.
_BROWSE_RE = re.compile(r"^(?P<repo>.+?)/(?:blob|tree)/(?P<branch>[^/]+)/?$")


def repo_settings(data: dict) -> dict:
    """{"repo": repository URL without trailing slash, "branch", "errata": issues page} of a
    book.yml mapping. `repo_url` is the repository (`https://github.com/OWNER/REPO`; a
    `…/blob/BRANCH/` URL is read as repository + branch), `repo_branch` its branch (default
    main), `errata_url` where readers report errors (default: the repository's issues page).
    Repository files are browsed under `…/blob/BRANCH/path`, folders under `…/tree/BRANCH/path`
    (GitHub's and GitLab's layout)."""
    repo = str(data.get("repo_url") or "").rstrip("/")
    branch = str(data.get("repo_branch") or "")
    m = _BROWSE_RE.match(repo)
    if m:
        repo, branch = m.group("repo"), branch or m.group("branch")
    errata = str(data.get("errata_url") or (f"{repo}/issues" if repo else "")).rstrip("/")
    return {"repo": repo, "branch": branch or "main", "errata": errata}


def is_relative(href: str) -> bool:
    return bool(href) and not _REMOTE_RE.match(href)


def repo_link(root: Path, chapter_path: Path, href: str, settings: dict) -> str:
    """The absolute URL for a relative link to a file of the repository (not a chapter);
    `settings`: the book's repository as `repo_settings` reads it (the load stage puts it in
    each edition's `EditionInfo.repo`)."""
    path, _, fragment = href.partition("#")
    rel = unquote(path)
    target = Path(os.path.normpath(chapter_path.parent / rel))
    try:
        in_repo = target.relative_to(root).as_posix()
    except ValueError:
        raise LinkError(f"link target {rel} is outside the repository")
    if not target.exists():
        raise LinkError(f"link target not found: {rel} (paths are relative to the chapter file)")
    s = settings
    if not s.get("repo"):
        raise LinkError(f"link to the repository file {in_repo} needs a base URL: add "
                        "`repo_url: https://github.com/OWNER/REPO` (and `repo_branch:` if "
                        "not main) to manuscripts/book.yml")
    kind = "tree" if target.is_dir() else "blob"
    path = quote(in_repo) + ("/" if kind == "tree" and in_repo != "." else "")
    return f"{s['repo']}/{kind}/{s['branch']}/{path}" + (f"#{fragment}" if fragment else "")


def chapter_link_for_pandoc(href: str, chapter_files: dict[str, str],
                            chapter_ids: dict[str, str]) -> str | None:
    """`02-x.md#sec-y` -> `#sec-y` (the PDF and EPUB are one document); None if not a chapter."""
    path, _, fragment = href.partition("#")
    name = Path(unquote(path)).name
    if not path.endswith(".md") or name not in chapter_files:
        return None
    return f"#{fragment}" if fragment else f"#{chapter_ids.get(chapter_files[name], '')}"


def links_for_pandoc(text: str, rewrite) -> str:
    """Apply `rewrite(target) -> new target | None` to the inline links (not images) and
    reference definitions of one line of prose.

    Why a pattern over the line and not the parser's link tokens: the line is passed through to
    Pandoc as the author wrote it, and Pandoc, not markdown-it, decides what is a link there.
    The two disagree on Markdown after a raw HTML block (Pandoc reads links inside it, markdown-it
    does not); reading markdown-it's tokens left such links unrewritten in the PDF, a
    regression the real-world PDF test caught. The rewrite touches only the target of what both
    call a link; the parser still decides what is prose (the caller gets only prose lines)."""
    def inline(m: re.Match) -> str:
        if m.group(1):
            return m.group(0)
        target = m.group(3).strip("<>")
        new = rewrite(target) if is_relative(target) else None
        return m.group(0) if new is None else f"[{m.group(2)}]({new}{m.group(4)})"

    text = INLINE_LINK_RE.sub(inline, text)
    ref = REF_DEF_RE.match(text)
    if ref and is_relative(ref.group(2).strip("<>")):
        new = rewrite(ref.group(2).strip("<>"))
        if new is not None:
            text = f"{ref.group(1)}{new}{ref.group(3)}"
    return text
