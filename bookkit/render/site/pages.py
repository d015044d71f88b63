"""Website pages: jinja2 templates around the rendered chapters, plus sitemap, 404 and assets."""
from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urlparse

import jinja2

from bookkit.model import ChapterOutline, EditionInfo


@dataclass(frozen=True)
class SiteConfig:
    site_url: str          # absolute URL of the site root, ending in "/"
    release_url: str       # ".../releases/latest/download/" for PDF/EPUB buttons
    pdf_names: dict        # edition key -> file name
    epub_names: dict
    repo_url: str = ""            # the book's repository: errata links open an issue there
    errata_url: str = ""          # its issues page (book.yml `errata_url:`), if not repo/issues
    commit: str | None = None     # the commit the pages are built from (None without git)


def environment(root: Path) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(root / "website" / "templates")),
                              autoescape=jinja2.select_autoescape(["html"]),
                              keep_trailing_newline=True, trim_blocks=False)


def _files_digest(paths) -> str:
    h = hashlib.sha256()
    for path in sorted(paths):
        if path.is_file():
            h.update(path.name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def asset_version(root: Path) -> str:
    """Cache-busting query string: a hash of the static files, stable across builds."""
    return _files_digest((root / "website" / "static").glob("*"))[:8]


def templates_version(root: Path) -> str:
    """A hash of the page templates (pages rendered from other templates are stale)."""
    return _files_digest((root / "website" / "templates").rglob("*"))[:16]


def page_depth_prefix(info: EditionInfo) -> tuple[str, str]:
    """(root, static) relative paths from a page of this edition.

    Every page of an edition sits at the edition's root; the static folder is shared at the
    site root, one level up for the translations.
    """
    return "./", ("../" if info.url_prefix else "") + "static/"


def nav_items(outlines: list[ChapterOutline], info: EditionInfo, current: str | None):
    items = []
    for o in outlines:
        number = o.chapter.number
        items.append({
            "slug": o.chapter.slug, "title": o.title, "current": o.chapter.slug == current,
            "label": info.strings["chapter"].format(n=number) if number else "",
            "sections": [{"id": i, "number": n, "title": t} for lvl, i, n, t in o.sections
                         if lvl == 2],
        })
    return items


def render_pages(env: jinja2.Environment, info: EditionInfo, editions: list[EditionInfo],
                 outlines: list[ChapterOutline], bodies: dict[str, str], has_math: dict,
                 config: SiteConfig, version: str, only: set[str] | None = None,
                 previous: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """{path relative to the edition root: bytes} for the home page, chapters and 404.

    With `only` (chapter slugs) and `previous` (this function's earlier result for the same
    outlines, strings and assets), only those chapters' pages are rendered again.
    """
    root, static = page_depth_prefix(info)
    s = info.strings
    pages: dict[str, bytes] = {}

    def alternates(slug_file: str):
        return [{"lang": e.lang, "href": config.site_url + e.url_prefix + slug_file}
                for e in editions] + [{"lang": "x-default",
                                       "href": config.site_url + slug_file}]

    def switcher(slug_file: str):
        up = "../" if info.url_prefix else ""
        return [{"lang": e.lang, "name": e.spec.name, "current": e.key == info.key,
                 "href": f"{up}{e.url_prefix}{slug_file}"} for e in editions]

    common = dict(edition=info, s=s, root=root, static=static, asset_version=version,
                  og_locale=info.spec.locale,
                  pdf_url=config.release_url + config.pdf_names[info.key],
                  epub_url=config.release_url + config.epub_names[info.key])
    if only is not None and previous is not None:
        pages.update(previous)
    for i, outline in enumerate(outlines):
        slug = outline.chapter.slug
        file = f"{slug}.html"
        if only is not None and previous is not None and slug not in only:
            continue
        toc = [{"level": lvl, "id": ident, "number": n, "title": t}
               for lvl, ident, n, t in outline.sections]
        label = s["chapter"].format(n=outline.chapter.number) if outline.chapter.number else ""
        title = f"{label} {outline.title}".strip()
        body = with_errata_links(bodies[slug], outline, title, info, config,
                                 config.site_url + info.url_prefix + file)
        page = env.get_template("chapter.html").render(
            **common, page_title=f"{title} · {info.title}", description=_description(bodies[slug]),
            canonical=config.site_url + info.url_prefix + file, alternates=alternates(file),
            switcher=switcher(file), nav=nav_items(outlines, info, slug), toc=toc,
            body=body, has_math=has_math.get(slug, False),
            prev=_neighbour(outlines, i - 1, info), next=_neighbour(outlines, i + 1, info))
        pages[file] = page.encode("utf-8")
    if only is not None and previous is not None:
        return pages
    nav = nav_items(outlines, info, None)
    pages["index.html"] = env.get_template("index.html").render(
        **common, page_title=info.title, description=info.subtitle,
        canonical=config.site_url + info.url_prefix, alternates=alternates(""),
        switcher=switcher("index.html"), nav=nav, has_math=False).encode("utf-8")
    # The root edition's 404 is served for missing paths at any depth: its links start with the
    # site's path (from site_url, never from the address: issue 27), and website/static/
    # notfound.js shows the edition whose folder the missing path is in.
    switch = switcher("index.html")
    not_found: dict = {"root_404": False}
    if not info.url_prefix:
        base_path = "/" + urlparse(config.site_url).path.lstrip("/")   # a path: never //host
        not_found = dict(root_404=True, root=base_path, static=base_path + "static/",
                         edition_prefixes=" ".join(e.url_prefix.strip("/") for e in editions
                                                   if e.url_prefix))
        switch = [{**alt, "href": base_path + alt["href"]} for alt in switch]
    pages["404.html"] = env.get_template("404.html").render(
        **{**common, **not_found}, page_title=f"{s['not_found']} · {info.title}", description=info.subtitle,
        canonical=config.site_url + info.url_prefix + "404.html", alternates=alternates("404.html"),
        switcher=switch, nav=nav, has_math=False).encode("utf-8")
    return pages


def errata_href(config: SiteConfig, info: EditionInfo, ident: str, section: str,
                url: str) -> str:
    """A new GitHub issue on the book's repository, pre-filled with what a maintainer needs
    to find the text: the edition, the section (ID and title), the page and the commit."""
    s = info.strings
    lines = [f"{s['errata_edition']}: {info.key} ({info.lang})",
             f"{s['errata_section']}: {section} (#{ident})",
             f"{s['errata_page']}: {url}#{ident}"]
    if config.commit:
        lines.append(f"{s['errata_commit']}: {config.commit}")
    body = "\n".join(lines) + f"\n\n{s['errata_prompt']}\n"
    query = urlencode({"title": s["errata_issue"].format(section=section), "body": body})
    return f"{config.errata_url or config.repo_url + '/issues'}/new?{query}"


def with_errata_links(body: str, outline: ChapterOutline, chapter_title: str, info: EditionInfo,
                      config: SiteConfig, url: str) -> str:
    """The chapter's body with a quiet "report an error" link closing each section (the
    chapter's opening and every level-2 section): before the next section's heading, and the
    last one before the footnotes. Without `repo_url` in book.yml, the body is unchanged."""
    if not (config.repo_url or config.errata_url):
        return body
    sections = [(outline.title_id, chapter_title)] + [
        (ident, f"{number} {title}".strip()) for level, ident, number, title in outline.sections
        if level == 2]
    ends = [body.find(f'<h2 id="{ident}">') for ident, _ in sections[1:]]
    notes = body.find('<hr class="footnotes-sep"')
    ends.append(notes if notes >= 0 else len(body))
    out, start = [], 0
    for (ident, section), end in zip(sections, ends):
        if end < start:          # a heading the outline knows but the body does not: skip
            continue
        link = (f'<p class="errata"><a href="{html.escape(errata_href(config, info, ident, section, url))}"'
                f' rel="nofollow">{html.escape(info.strings["report_error"])}</a></p>\n')
        out += [body[start:end], link]
        start = end
    out.append(body[start:])
    return "".join(out)


def _neighbour(outlines, i, info):
    if 0 <= i < len(outlines):
        o = outlines[i]
        label = info.strings["chapter"].format(n=o.chapter.number) if o.chapter.number else ""
        return {"slug": o.chapter.slug, "title": f"{label} {o.title}".strip()}
    return None


def _description(body: str, limit: int = 150) -> str:
    """The first `limit` characters of the body's text (markup removed)."""
    import re
    size = 2048
    while True:   # the text is near the start: strip the markup of a growing prefix only
        part = body[:size]
        if size < len(body):
            part = part[:part.rfind("<")] if "<" in part else part
        text = re.sub(r"<[^>]+>", " ", part)
        text = html.unescape(re.sub(r"\s+", " ", text)).strip()
        if len(text) > limit or size >= len(body):
            return text[:limit]
        size *= 4


def sitemap(config: SiteConfig, urls: list[str]) -> bytes:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for url in urls:
        lines.append(f"  <url><loc>{html.escape(config.site_url + url)}</loc></url>")
    lines.append("</urlset>")
    return ("\n".join(lines) + "\n").encode("utf-8")
