"""Checks over the built website (all editions): links, anchors, ids, images, languages, sitemap,
search index, footnotes, and (optionally, over the network) external links.

Every page is parsed once with the standard library's :class:`html.parser.HTMLParser`; the ids,
links, images, ``hreflang`` alternates and footnote marks of every page are kept in a
:class:`Page`, and the checks then work on those records only. Links are resolved the way a
browser resolves them relative to the page, and absolute URLs under the book's ``site_url``
(``manuscripts/book.yml``) are mapped back to files, so the canonical and alternate links are
checked like relative ones. ``dir/`` means ``dir/index.html``; query strings are ignored.

Findings (see :mod:`bookkit.check.report`) are placed at ``page#id``, where ``id`` is the id of
the heading (or footnote) the problem follows, and have these kinds:

``broken-link``      an internal ``href``/``src``/``srcset``/``poster`` whose file does not exist
``broken-anchor``    a ``#fragment`` with no element of that id (or ``<a name>``) in the target
``duplicate-id``     an id used more than once on a page
``missing-image``    an ``<img>`` whose file does not exist
``missing-alt``      an ``<img>`` without alt text (an empty ``alt`` is allowed only on images
                     marked decorative: ``role="presentation"``/``"none"`` or ``aria-hidden``)
``missing-lang``     a page whose ``<html>`` has no ``lang``
``hreflang``         an alternate that is not under ``site_url``, points to a missing page or to a
                     page of another language; alternates that are not reciprocal (warning)
``sitemap-missing``  a page (other than ``404.html`` and ``noindex`` pages) not in ``sitemap.xml``
``sitemap-dead``     a sitemap entry that is not a page of the site
``search-index``     a search entry whose page or anchor does not exist; an unreadable index
``missing-output``   an edition root without a file a registered site output puts in the
                     others (``bookkit.render.outputs``, e.g. ``llms.txt``)
``footnote``         footnote references and back-references that do not pair up
``external``         (info, ``--list-external``) an external link, with the pages using it
``external-broken``  (``--external``) an external link that answers 4xx/5xx (error) or cannot be
                     reached (warning)
"""

from __future__ import annotations

import html
import json
import os
import posixpath
import re
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bookkit.model import ERROR, INFO, WARNING, BuildError, Finding
from bookkit.check.trust import unsafe_attributes

__all__ = [
    "Page", "SiteChecker", "check_site", "scan_page", "external_links", "check_external",
    "site_url_from_config", "EXTERNAL_TIMEOUT", "DEFAULT_CACHE",
]

EXTERNAL_TIMEOUT = 5.0
DEFAULT_CACHE = Path(".cache") / "external-links.json"
#: a successful external check is trusted this long (days)
CACHE_MAX_AGE_DAYS = 7
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
#: attributes holding one URL, per tag (None: any tag)
_URL_ATTRS = {
    "href": None,
    "src": None,
    "poster": {"video"},
    "data": {"object"},
}
_META_URLS = {"og:url", "og:image", "twitter:image"}
_IGNORED_SCHEMES = {"mailto", "tel", "javascript", "data", "about", "blob"}
_LOC_RE = re.compile(r"<loc>\s*([^<]*?)\s*</loc>", re.I)
_ROBOTS_SITEMAP_RE = re.compile(r"^\s*sitemap:\s*(\S+)", re.I | re.M)


# --------------------------------------------------------------------------------------------
# Parsing: one pass per page

@dataclass
class Ref:
    """A URL in a page: the attribute it is in, its value, line and section context."""

    attr: str
    url: str
    line: int
    ctx: str
    tag: str


@dataclass
class Page:
    path: str  # under the site root, posix, e.g. "en/workloads.html"
    lang: str | None = None
    noindex: bool = False
    ids: dict[str, list[int]] = field(default_factory=dict)  # id -> lines where it is declared
    names: set[str] = field(default_factory=set)  # <a name="...">
    refs: list[Ref] = field(default_factory=list)
    images: list[tuple[str | None, str | None, bool, int, str]] = field(default_factory=list)  # src, alt, decorative, line, ctx
    alternates: list[tuple[str, str, int]] = field(default_factory=list)  # hreflang, href, line
    fn_refs: list[tuple[str, str, int]] = field(default_factory=list)  # href, id, line
    fn_items: dict[str, int] = field(default_factory=dict)  # footnote li id -> line
    fn_backrefs: list[tuple[str, str | None, int]] = field(default_factory=list)  # href, enclosing footnote id, line
    unsafe: list[tuple[int, str]] = field(default_factory=list)  # line, what runs script (check/trust.py)

    def where(self, ctx: str = "") -> str:
        return f"{self.path}#{ctx}" if ctx else self.path

    def has_anchor(self, frag: str) -> bool:
        return frag in self.ids or frag in self.names


class _PageParser(HTMLParser):
    def __init__(self, page: Page):
        super().__init__(convert_charrefs=True)
        self.page = page
        self.ctx = ""
        self._fnref_sup = 0  # depth of <sup class="footnote-ref">
        self._fn_li: str | None = None  # id of the footnote <li> we are in
        self._fn_li_depth = 0

    def handle_starttag(self, tag, attrs):  # noqa: C901 - one dispatch over tags
        page = self.page
        a = {k: (v if v is not None else "") for k, v in attrs}
        line = self.getpos()[0]
        page.unsafe += [(line, problem) for problem in unsafe_attributes(tag, attrs)]  # trust.py
        classes = a.get("class", "").split()
        if tag == "html":
            page.lang = a.get("lang") or None
        ident = a.get("id")
        if ident:
            page.ids.setdefault(ident, []).append(line)
            if tag in _HEADINGS:
                self.ctx = ident
        if tag == "a" and a.get("name"):
            page.names.add(a["name"])
        if tag == "li":
            if "footnote-item" in classes:
                self._fn_li, self._fn_li_depth = ident or "", 1
                page.fn_items[ident or ""] = line
                if ident:
                    self.ctx = ident
            elif self._fn_li is not None:
                self._fn_li_depth += 1
        elif tag == "sup" and "footnote-ref" in classes:
            self._fnref_sup += 1
        elif tag == "a":
            if "footnote-backref" in classes:
                page.fn_backrefs.append((a.get("href", ""), self._fn_li, line))
            elif self._fnref_sup:
                page.fn_refs.append((a.get("href", ""), a.get("id", ""), line))
        elif tag == "meta":
            if a.get("name", "").lower() == "robots" and "noindex" in a.get("content", "").lower():
                page.noindex = True
            if a.get("property", a.get("name", "")).lower() in _META_URLS and a.get("content"):
                page.refs.append(Ref("content", a["content"], line, self.ctx, tag))
            return
        elif tag == "link" and "alternate" in a.get("rel", "").lower().split() and "hreflang" in a:
            page.alternates.append((a["hreflang"], a.get("href", ""), line))
            return
        if tag == "img":
            decorative = a.get("role") in ("presentation", "none") or a.get("aria-hidden") == "true"
            page.images.append((a.get("src"), a.get("alt") if "alt" in a else None, decorative, line, self.ctx))
        for attr, tags in _URL_ATTRS.items():
            if attr in a and (tags is None or tag in tags) and not (tag == "img" and attr == "src"):
                page.refs.append(Ref(attr, a[attr], line, self.ctx, tag))
        if "srcset" in a:
            for candidate in a["srcset"].split(","):
                url = candidate.strip().split(" ")[0] if candidate.strip() else ""
                if url:
                    page.refs.append(Ref("srcset", url, line, self.ctx, tag))

    def handle_endtag(self, tag):
        if tag == "sup" and self._fnref_sup:
            self._fnref_sup -= 1
        elif tag == "li" and self._fn_li is not None:
            self._fn_li_depth -= 1
            if self._fn_li_depth <= 0:
                self._fn_li, self._fn_li_depth = None, 0


def scan_page(text: str, path: str) -> Page:
    """Parse one page's HTML into a :class:`Page` record."""
    page = Page(path)
    parser = _PageParser(page)
    parser.feed(text)
    parser.close()
    return page


# --------------------------------------------------------------------------------------------
# The checker

@dataclass
class Target:
    """Where a URL leads: ``file`` (posix, under the site) or ``external``; ``error`` if neither."""

    file: str | None = None
    fragment: str | None = None
    external: str | None = None
    error: str | None = None


def site_url_from_config(root: Path) -> str:
    from bookkit.load.config import read_book_config

    config = read_book_config(root)
    if not config.data.get("site_url"):
        raise BuildError(config.path, None, "no `site_url`", "the checks need the site's address")
    return config.site_url


class SiteChecker:
    """Scan a built site once, then run the checks on the records."""

    def __init__(self, site: Path, site_url: str, output_files=None):
        self.site = Path(site)
        self.output_files = dict(output_files or {})   # {output: files per edition root}
        self.site_url = site_url if site_url.endswith("/") else site_url + "/"
        self.base_path = urlsplit(self.site_url).path or "/"
        self.files: set[str] = set()
        self.dirs: set[str] = {""}
        for dirpath, dirnames, filenames in os.walk(self.site):
            rel = Path(dirpath).relative_to(self.site).as_posix()
            rel = "" if rel == "." else rel
            for d in dirnames:
                self.dirs.add(posixpath.join(rel, d))
            for f in filenames:
                self.files.add(posixpath.join(rel, f))
        self.pages: dict[str, Page] = {}
        for path in sorted(p for p in self.files if p.endswith(".html")):
            text = (self.site / path).read_text(encoding="utf-8", errors="replace")
            self.pages[path] = scan_page(text, path)

    # --- URL resolution ---------------------------------------------------------------------

    def _file_for(self, path: str) -> str:
        """A site path (no leading slash, unquoted) -> the file it serves."""
        path = path.lstrip("/")
        if path in ("", "."):
            return "index.html"
        if path.endswith("/") or path.rstrip("/") in self.dirs:
            return posixpath.join(path.rstrip("/"), "index.html")
        return path

    def url_to_file(self, url: str) -> str | None:
        """An absolute URL under ``site_url`` -> the site file it serves (None if not under it)."""
        if not url.startswith(self.site_url) and url + "/" != self.site_url:
            return None
        parts = urlsplit(url[len(self.site_url):] if url.startswith(self.site_url) else "")
        return self._file_for(unquote(parts.path))

    def resolve(self, page_path: str, url: str) -> Target:
        url = url.strip()
        parts = urlsplit(url)
        fragment = unquote(parts.fragment) if "#" in url else None
        if parts.scheme or url.startswith("//"):
            if parts.scheme.lower() in _IGNORED_SCHEMES:
                return Target()
            absolute = url if parts.scheme else "https:" + url
            file = self.url_to_file(absolute.split("#")[0])
            if file is not None:
                return Target(file=file, fragment=fragment)
            if parts.scheme.lower() in ("http", "https", ""):
                return Target(external=absolute)
            return Target()
        path = unquote(parts.path)
        if not path:
            return Target(file=page_path, fragment=fragment)
        if path.startswith("/"):
            if not path.startswith(self.base_path):
                return Target(error=f"is outside the site's base path {self.base_path}")
            joined = path[len(self.base_path):]
        else:
            joined = posixpath.join(posixpath.dirname(page_path), path)
        trailing = joined.endswith("/")
        norm = posixpath.normpath(joined) if joined else ""
        if norm == ".":
            norm = ""
        if norm.startswith(".."):
            return Target(error="leads outside the site")
        return Target(file=self._file_for(norm + ("/" if trailing and norm else "")), fragment=fragment)

    def _anchor_ok(self, file: str, frag: str | None) -> bool:
        if not frag or frag.lower() == "top":
            return True
        page = self.pages.get(file)
        return page is None or page.has_anchor(frag)  # fragments in non-HTML files are not checked

    # --- checks -------------------------------------------------------------------------------

    def check_pages(self) -> list[Finding]:
        out: list[Finding] = []
        for page in self.pages.values():
            if not page.lang:
                out.append(Finding("missing-lang", page.path, "<html> has no lang attribute", ERROR, 1))
            for ident, lines in page.ids.items():
                if len(lines) > 1:
                    at = ", ".join(str(n) for n in lines)
                    out.append(Finding("duplicate-id", page.where(ident),
                                       f'id "{ident}" is used {len(lines)} times (lines {at})', ERROR, lines[1]))
            for ref in page.refs:
                out.extend(self._check_ref(page, ref))
            for src, alt, decorative, line, ctx in page.images:
                where = page.where(ctx)
                if not src:
                    out.append(Finding("missing-image", where, "<img> has no src", ERROR, line))
                else:
                    t = self.resolve(page.path, src)
                    if t.error or (t.file is not None and t.file not in self.files):
                        what = t.error or f"file {t.file} does not exist"
                        out.append(Finding("missing-image", where, f'image "{src}": {what}', ERROR, line))
                if alt is None:
                    out.append(Finding("missing-alt", where, f'image "{src}" has no alt attribute', ERROR, line))
                elif not alt.strip() and not decorative:
                    out.append(Finding("missing-alt", where, f'image "{src}" has an empty alt text', ERROR, line))
            out.extend(self._check_footnotes(page))
        return out

    def _check_ref(self, page: Page, ref: Ref) -> list[Finding]:
        t = self.resolve(page.path, ref.url)
        where = page.where(ref.ctx)
        if t.error:
            return [Finding("broken-link", where, f'{ref.attr} "{ref.url}" {t.error}', ERROR, ref.line)]
        if t.file is None:
            return []
        if t.file not in self.files:
            return [Finding("broken-link", where, f'{ref.attr} "{ref.url}" points to missing file {t.file}', ERROR, ref.line)]
        if not self._anchor_ok(t.file, t.fragment):
            return [Finding("broken-anchor", where, f'{ref.attr} "{ref.url}" has no target', ERROR, ref.line)]
        return []

    def _check_footnotes(self, page: Page) -> list[Finding]:
        out: list[Finding] = []
        refs_by_id = {rid: href for href, rid, _ in page.fn_refs if rid}
        referenced: set[str] = set()
        backref_targets: set[str] = set()
        backref_items: set[str] = set()
        for href, rid, line in page.fn_refs:
            where = page.where(rid if rid else "")
            target = href[1:] if href.startswith("#") else None
            if not rid:
                out.append(Finding("footnote", where, f'footnote reference to "{href}" has no id for a back-reference', ERROR, line))
            if target is None or target not in page.fn_items:
                out.append(Finding("footnote", where, f'footnote reference "{href}" does not point to a footnote on this page', ERROR, line))
            else:
                referenced.add(target)
        for href, item, line in page.fn_backrefs:
            where = page.where(item or "")
            target = href[1:] if href.startswith("#") else None
            if item is None:
                out.append(Finding("footnote", where, f'back-reference "{href}" is outside any footnote', ERROR, line))
                continue
            backref_items.add(item)
            if target is None or target not in refs_by_id:
                out.append(Finding("footnote", where, f'back-reference "{href}" does not point to a footnote reference', ERROR, line))
                continue
            backref_targets.add(target)
            if refs_by_id[target] != "#" + item:
                out.append(Finding("footnote", where,
                                   f'back-reference "{href}" returns to a reference of "{refs_by_id[target]}", not of "#{item}"',
                                   ERROR, line))
        for href, rid, line in page.fn_refs:
            if rid and rid not in backref_targets:
                out.append(Finding("footnote", page.where(rid), f'footnote reference "{rid}" has no back-reference', ERROR, line))
        for item, line in page.fn_items.items():
            if item not in referenced:
                out.append(Finding("footnote", page.where(item), f'footnote "{item}" is never referenced', ERROR, line))
            if item not in backref_items:
                out.append(Finding("footnote", page.where(item), f'footnote "{item}" has no back-reference', ERROR, line))
        return out

    def check_alternates(self) -> list[Finding]:
        out: list[Finding] = []
        resolved: dict[str, set[str]] = {}
        for page in self.pages.values():
            targets = resolved.setdefault(page.path, set())
            for hreflang, href, line in page.alternates:
                detail = f'alternate hreflang="{hreflang}" href "{href}"'
                file = self.url_to_file(href)
                if file is None:
                    out.append(Finding("hreflang", page.path, f"{detail} is not an absolute URL under {self.site_url}", ERROR, line))
                    continue
                target = self.pages.get(file)
                if target is None:
                    out.append(Finding("hreflang", page.path, f"{detail} points to missing page {file}", ERROR, line))
                    continue
                targets.add(file)
                if hreflang.lower() != "x-default" and (target.lang or "").lower() != hreflang.lower():
                    out.append(Finding("hreflang", page.path,
                                       f'{detail} points to {file}, whose lang is "{target.lang}"', ERROR, line))
        for path, targets in resolved.items():
            if targets and path not in targets:
                out.append(Finding("hreflang", path, "the hreflang alternates do not include the page itself", WARNING, 1))
            for other in sorted(targets - {path}):
                back = resolved.get(other, set())
                if back and path not in back:
                    out.append(Finding("hreflang", path, f"alternate {other} does not list this page back", WARNING, 1))
        return out

    def check_sitemap(self) -> list[Finding]:
        out: list[Finding] = []
        if "sitemap.xml" not in self.files:
            return [Finding("sitemap-dead", "sitemap.xml", "the site has no sitemap.xml", ERROR, 1)]
        text = (self.site / "sitemap.xml").read_text(encoding="utf-8", errors="replace")
        listed: dict[str, int] = {}
        for m in _LOC_RE.finditer(text):
            url = html.unescape(m.group(1))
            line = text.count("\n", 0, m.start()) + 1
            where = "sitemap.xml"
            file = self.url_to_file(url)
            if file is None:
                out.append(Finding("sitemap-dead", where, f'<loc> "{url}" is not under {self.site_url}', ERROR, line))
            elif file not in self.pages:
                out.append(Finding("sitemap-dead", where, f'<loc> "{url}" is not a page of the site ({file})', ERROR, line))
            elif file in listed:
                out.append(Finding("sitemap-dead", where, f'<loc> "{url}" is listed twice', WARNING, line))
            else:
                listed[file] = line
        for path, page in self.pages.items():
            if posixpath.basename(path) == "404.html" or page.noindex:
                continue
            if path not in listed:
                out.append(Finding("sitemap-missing", path, "page is not listed in sitemap.xml", ERROR, 1))
        if "robots.txt" in self.files:
            robots = (self.site / "robots.txt").read_text(encoding="utf-8", errors="replace")
            for m in _ROBOTS_SITEMAP_RE.finditer(robots):
                file = self.url_to_file(m.group(1))
                if file is None or file not in self.files:
                    line = robots.count("\n", 0, m.start()) + 1
                    out.append(Finding("broken-link", "robots.txt", f'Sitemap "{m.group(1)}" is not a file of the site', ERROR, line))
        return out

    def edition_roots(self) -> list[str]:
        """The site root and every top-level folder with its own index.html."""
        roots = [""] if "index.html" in self.files else []
        roots += sorted(d for d in self.dirs if d and "/" not in d and f"{d}/index.html" in self.files)
        return roots

    def check_outputs(self) -> list[Finding]:
        """Every edition root holds the files each registered site output puts there (its
        `files`, `output_files` as the command line gives them from the output registry), so a
        new output is checked without a change here. A file no root holds is not asked for:
        the site was built without that output (an older build, a fixture). The search index
        has its own, stricter check (`check_search`)."""
        out: list[Finding] = []
        roots = self.edition_roots()
        for name, files in self.output_files.items():
            for file in files:
                there = [r for r in roots if posixpath.join(r, file) in self.files]
                for root in roots if there else ():
                    rel = posixpath.join(root, file)
                    if rel not in self.files:
                        out.append(Finding("missing-output", rel, f"edition root {root or '/'} has "
                                           f"no {file} (the {name} output)", ERROR, 1))
        return out

    def check_search(self) -> list[Finding]:
        from bookkit.lunr.index import ASSET_NAME, expand, index_payload, load_payload

        out: list[Finding] = []
        for root in self.edition_roots():
            rel = posixpath.join(root, ASSET_NAME)
            if rel not in self.files:
                out.append(Finding("search-index", rel, f"edition root {root or '/'} has no {ASSET_NAME}", ERROR, 1))
                continue
            try:
                payload = load_payload({ASSET_NAME: (self.site / rel).read_bytes()})
                docs = payload["docs"]
                expand(index_payload(payload))   # the index the browser builds from it
            except Exception as exc:  # noqa: BLE001 - any malformed index is one finding
                out.append(Finding("search-index", rel, f"cannot be read: {type(exc).__name__}: {exc}", ERROR, 1))
                continue
            base = posixpath.join(root, "index.html")
            for n, row in enumerate(docs):
                url = row[0] if isinstance(row, list) and row else None
                if not isinstance(url, str) or not url:
                    out.append(Finding("search-index", rel, f"entry {n} has no url", ERROR, 1))
                    continue
                t = self.resolve(base, url)
                if t.external or t.error or t.file is None:
                    out.append(Finding("search-index", rel, f'entry {n} "{url}" is not a page of this edition', ERROR, 1))
                elif t.file not in self.pages:
                    out.append(Finding("search-index", rel, f'entry {n} "{url}" points to missing page {t.file}', ERROR, 1))
                elif not self._anchor_ok(t.file, t.fragment):
                    out.append(Finding("search-index", rel, f'entry {n} "{url}": {t.file} has no id "{t.fragment}"', ERROR, 1))
        return out

    def external_links(self) -> dict[str, list[str]]:
        """External URL (without fragment) -> the places using it, in page order."""
        found: dict[str, list[str]] = {}
        for page in self.pages.values():
            for ref in page.refs:
                t = self.resolve(page.path, ref.url)
                if t.external:
                    url = t.external.split("#")[0]
                    places = found.setdefault(url, [])
                    where = page.where(ref.ctx)
                    if where not in places:
                        places.append(where)
        return found

    def run(self) -> list[Finding]:
        return (self.check_pages() + self.check_alternates() + self.check_sitemap()
                + self.check_outputs() + self.check_search())


def check_site(site: Path, site_url: str) -> list[Finding]:
    """Every offline check over a built site."""
    return SiteChecker(site, site_url).run()


def external_links(site: Path, site_url: str) -> dict[str, list[str]]:
    return SiteChecker(site, site_url).external_links()


def list_external(links: dict[str, list[str]]) -> list[Finding]:
    """One ``info`` finding per external URL, placed at its first use."""
    out = []
    for url in sorted(links):
        places = links[url]
        more = f" (and {len(places) - 1} more places)" if len(places) > 1 else ""
        out.append(Finding("external", places[0], f"{url}{more}", INFO))
    return out


# --------------------------------------------------------------------------------------------
# External links over the network (opt-in)

def _probe(url: str, timeout: float) -> tuple[int | None, str]:
    """(HTTP status, error text) for one URL: HEAD, then GET when HEAD is refused."""
    headers = {"User-Agent": "ai-infra-book-link-check/1 (+https://github.com/ai-infra-book)"}
    status: int | None = None
    for method in ("HEAD", "GET"):
        req = urllib.request.Request(url, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, ""
        except urllib.error.HTTPError as exc:
            status = exc.code
            if method == "HEAD" and exc.code in (400, 403, 405, 406, 429, 501):
                continue
            return status, f"HTTP {exc.code}"
        except (urllib.error.URLError, TimeoutError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            return None, f"unreachable: {reason}"
    return status, f"HTTP {status}"


def _load_cache(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def check_external(links: dict[str, list[str]], cache_path: Path | None = DEFAULT_CACHE,
                   timeout: float = EXTERNAL_TIMEOUT, max_age_days: float = CACHE_MAX_AGE_DAYS,
                   workers: int = 8) -> list[Finding]:
    """Check external URLs over the network; working URLs are cached for ``max_age_days``.

    A 4xx/5xx answer is an error (429 and 403, often bot protection, are warnings); a timeout or
    connection failure is a warning. Failures are not cached, so they are retried next run.
    """
    cache = _load_cache(cache_path) if cache_path else {}
    now = time.time()
    fresh = {u for u, e in cache.items()
             if isinstance(e, dict) and e.get("ok") and now - e.get("time", 0) < max_age_days * 86400}
    todo = [u for u in sorted(links) if u not in fresh]
    results: dict[str, tuple[int | None, str]] = {}
    if todo:
        with ThreadPoolExecutor(max_workers=max(1, min(workers, len(todo)))) as pool:
            for url, res in zip(todo, pool.map(lambda u: _probe(u, timeout), todo)):
                results[url] = res
    out: list[Finding] = []
    for url in sorted(links):
        if url not in results:
            continue
        status, error = results[url]
        ok = not error and status is not None and status < 400
        if ok:
            cache[url] = {"ok": True, "status": status, "time": now}
            continue
        cache.pop(url, None)
        severity = ERROR if status is not None and status not in (403, 429) else WARNING
        places = links[url]
        more = f" (used in {len(places)} places)" if len(places) > 1 else ""
        out.append(Finding("external-broken", places[0], f"{url}: {error}{more}", severity))
    if cache_path:
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        cache_path.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return out
