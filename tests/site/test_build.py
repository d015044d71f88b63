"""Integration: the embedded book builds; every page, nav link, switcher target and anchor exists."""
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from bookkit.pipeline.build import BuildOptions, Builder
from bookkit.load.config import chapter_plan
from bookkit.model import BuildError

ROOT = Path(__file__).resolve().parents[2]
PREFIXES = ("", "en/", "zh-tw/")


class Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links, self.imgs, self.lang, self.switch = [], [], [], None, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "html":
            self.lang = a.get("lang")
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
            if "lang" in (a.get("class") or "").split():
                self.switch.append(a["href"])
        if tag == "img":
            self.imgs.append(a)


def parse(path: Path) -> Collect:
    c = Collect()
    c.feed(path.read_text(encoding="utf-8"))
    return c


def test_every_page_of_every_edition_exists(built_site):
    slugs = [slug for _, _, slug in chapter_plan(ROOT)]
    assert len(slugs) == 13
    for prefix in PREFIXES:
        for slug in slugs:
            assert (built_site / prefix / f"{slug}.html").is_file(), prefix + slug
        assert (built_site / prefix / "index.html").is_file()
        assert (built_site / prefix / "search-index.js").is_file()
    assert (built_site / "sitemap.xml").read_text().count("<loc>") == 3 * 14


def test_languages_declared(built_site):
    for prefix, lang in zip(PREFIXES, ("zh-Hans", "en", "zh-Hant")):
        assert parse(built_site / prefix / "getting-started.html").lang == lang


def _site_path() -> str:
    """The path of book.yml's site_url (/ai-infra-book/): the root 404.html links from it,
    since a missing page's own address says nothing reliable about where the site starts."""
    import yaml
    config = yaml.safe_load((ROOT / "manuscripts" / "book.yml").read_text(encoding="utf-8"))
    return urlsplit(config["site_url"]).path


SITE_PATH = _site_path()


def test_internal_links_and_anchors_resolve(built_site):
    pages = sorted(built_site.rglob("*.html"))
    ids = {p: set(parse(p).ids) for p in pages}
    problems = []
    for page in pages:
        info = parse(page)
        assert len(info.ids) == len(set(info.ids)), f"duplicate ids in {page}"
        for href in info.links:
            if href.startswith(("http:", "https:", "mailto:")):
                continue
            target = urlsplit(urljoin(page.as_uri(), href))
            path = Path(target.path)
            if href.startswith(SITE_PATH):   # the root 404 links from the site's own path
                path = built_site / href[len(SITE_PATH):].split("#")[0]
            if path.is_dir():
                path = path / "index.html"
            if not path.is_file():
                problems.append(f"{page.relative_to(built_site)}: {href} (no file)")
            # (not `ids.get(path, set(parse(path).ids))`: the default is evaluated every time,
            # and re-parsing the target page for each of the book's ~10,000 anchored links
            # made this one test run for over ten minutes)
            elif target.fragment and target.fragment not in (
                    ids[path] if path in ids else set(parse(path).ids)):
                problems.append(f"{page.relative_to(built_site)}: {href} (no anchor)")
        for img in info.imgs:
            assert img.get("alt"), f"{page}: image without alt"
            assert (page.parent / img["src"]).is_file(), f"{page}: missing {img['src']}"
    assert not problems, "\n".join(problems[:20])


def test_switcher_targets_same_chapter(built_site):
    page = built_site / "en" / "workloads.html"
    targets = {Path(urlsplit(urljoin(page.as_uri(), h)).path) for h in parse(page).switch}
    assert targets == {built_site / "workloads.html", page, built_site / "zh-tw" / "workloads.html"}


def test_ids_identical_across_editions(built_site):
    def numbered(p):
        return {i for i in parse(p).ids if i.startswith(("sec-", "fig-", "tbl-", "eq-"))}
    for _, _, slug in chapter_plan(ROOT):
        zh = numbered(built_site / f"{slug}.html")
        assert zh, slug
        assert zh == numbered(built_site / "en" / f"{slug}.html"), slug
        assert zh == numbered(built_site / "zh-tw" / f"{slug}.html"), slug


def test_localised_numbers_and_labels(built_site):
    def figure_labels(path):
        return re.findall(r'<figcaption><span class="capno">([^<]+)</span>', path.read_text())
    zh = figure_labels(built_site / "getting-started.html")
    assert zh and all(re.fullmatch(r"图 1-\d+", x) for x in zh)
    assert figure_labels(built_site / "en" / "getting-started.html") == [
        x.replace("图", "Figure") for x in zh]
    assert figure_labels(built_site / "zh-tw" / "getting-started.html") == [
        x.replace("图", "圖") for x in zh]


def test_bound_numbers_render_per_edition_with_provenance(book_copy, tmp_path, warm_cache):
    for edition, sentence in (("manuscripts", "参数 {{ big | count sig=5 }}。"),
                              ("book-en", "Parameters {{ big | count sig=5 }}."),
                              ("book-zh-tw", "參數 {{ big | count sig=5 }}。")):
        path = book_copy / edition / "12-device-edge-cloud.md"
        extra = "\n```calc\nlayers = 80\nbig = 70553706496 + 0 * layers\n```\n" \
            if edition == "manuscripts" else ""
        path.write_text(path.read_text() + extra + "\n" + sentence + "\n")
    out = tmp_path / "out"
    Builder(BuildOptions(root=book_copy, out=out, quiet=True, cache_dir=warm_cache)).build()
    assert "705.54 亿" in (out / "device-edge-cloud.html").read_text()
    en = (out / "en" / "device-edge-cloud.html").read_text()
    assert "70.554 billion" in en and "705.54 億" in (out / "zh-tw" / "device-edge-cloud.html").read_text()
    # Provenance: the expression and the inputs it used travel with the number.
    assert "big = 70553706496 + 0 * layers; layers = 80" in en


@pytest.mark.parametrize("workers", [2, 1])
def test_build_is_deterministic(built_site, tmp_path, warm_cache, workers):
    """Same bytes again, with the search indexes and formulas built anew: in a forked process
    (2 workers) or in this one (1 worker)."""
    import sqlite3
    with sqlite3.connect(warm_cache / "cache.sqlite3") as db:
        db.execute("DELETE FROM entries WHERE kind IN ('search', 'math')")
    again = tmp_path / "again"
    Builder(BuildOptions(root=ROOT, out=again, quiet=True, workers=workers,
                         cache_dir=warm_cache)).build()
    first = {p.relative_to(built_site): p.read_bytes() for p in built_site.rglob("*") if p.is_file()}
    second = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert first.keys() == second.keys()
    assert [k for k in first if first[k] != second[k]] == []


@pytest.mark.parametrize("edition,addition,message", [
    ("book-en", "See @tbl-no-such-table.", "unknown label `@tbl-no-such-table`"),
    ("book-zh-tw", "見 {{ tokens_per_sec }}。", "unknown name `tokens_per_sec`"),
    ("book-en", "Bad {{ 1 / x }}.", "`{{ 1 / x }}` is not a bound reference"),
    ("book-en", "![](figures/missing.png)", "image not found: figures/missing.png"),
    ("manuscripts", "```calc\nratio = 1 / 0\n```", "ZeroDivisionError"),
    ("book-zh-tw", "壞公式 $\\frac{1$ 在此。", "math does not render"),
    ("manuscripts", "$$\n\\begin{aligned} a &= \\undefinedmacro \\end{aligned}\n$$",
     "math does not render"),
    # a translation's math may use only the original's commands (bookkit/source/trust.py)
    ("book-en", "$$\n\\begin{aligned} a &= \\undefinedmacro \\end{aligned}\n$$",
     "math command \\undefinedmacro is not used in the original's math"),
])
def test_source_errors_name_file_and_line_and_keep_previous_site(book_copy, tmp_path, warm_cache,
                                                                  edition, addition, message):
    out = tmp_path / "out"
    Builder(BuildOptions(root=book_copy, out=out, quiet=True, cache_dir=warm_cache)).build()
    before = (out / "index.html").read_bytes()
    path = book_copy / edition / "03-workloads.md"
    text = path.read_text().rstrip("\n") + "\n\n"
    line = text.count("\n") + 1 + (1 if addition.startswith("```") else 0)
    path.write_text(text + addition + "\n")
    with pytest.raises(BuildError) as err:
        Builder(BuildOptions(root=book_copy, out=out, quiet=True, cache_dir=warm_cache)).build()
    rendered = err.value.render()
    assert f"{edition}/03-workloads.md:{line}:" in rendered
    assert message in rendered
    assert (out / "index.html").read_bytes() == before


def test_malformed_front_config_is_reported(book_copy, tmp_path, warm_cache):
    (book_copy / "book-en" / "edition.yml").write_text("lang: en\ntitle: [unclosed\n")
    with pytest.raises(BuildError) as err:
        Builder(BuildOptions(root=book_copy, out=tmp_path / "o", quiet=True, cache_dir=warm_cache)).build()
    assert "book-en/edition.yml:" in err.value.render() and "malformed YAML" in err.value.render()


def test_unchanged_inputs_skip_the_build_and_any_edit_rebuilds(book_copy, warm_cache, tmp_path):
    import subprocess
    import sys
    (book_copy / ".cache").mkdir()
    warm_cache.rename(book_copy / ".cache" / "bookkit")   # the test's own copy: a move, not a second copy
    out = tmp_path / "site"

    def run():
        return subprocess.run([sys.executable, str(book_copy / "scripts" / "build_site.py"),
                               "--out", str(out)], capture_output=True, text=True, timeout=600)
    first = run()
    assert first.returncode == 0 and "built" in first.stderr, first.stderr
    second = run()
    assert second.returncode == 0 and "up to date" in second.stderr
    chapter = book_copy / "book-en" / "12-device-edge-cloud.md"
    chapter.write_text(chapter.read_text() + "\nOne more sentence.\n")
    third = run()
    assert "built" in third.stderr and "One more sentence." in (out / "en" / "device-edge-cloud.html").read_text()


def test_table_of_contents_titles_match_the_headings(built_site):
    """Titles in the page TOC read like the headings, bound numbers included."""
    import html as htmllib
    for page in sorted(built_site.rglob("*.html")):
        text = page.read_text()
        toc = dict(re.findall(r'<li class="l\d"><a href="#([^"]+)">([^<]*)</a>', text))
        for ident, title in toc.items():
            heading = re.search(rf'<h[23] id="{re.escape(ident)}">(.*?) <a class="anchor"', text)
            assert heading, (page, ident)
            inner = re.sub(r'<span class="prov"[^>]*>.*?</span>', "", heading.group(1))
            shown = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", inner)).strip()
            # KaTeX in a heading renders its text twice (MathML + HTML); compare without it.
            if "katex" in heading.group(1):
                continue
            assert htmllib.unescape(title).strip() == htmllib.unescape(shown), (page, ident)


def test_rebuild_renders_again_exactly_the_pages_whose_inputs_changed(book_copy, warm_cache, tmp_path):
    """Under --serve one Builder rebuilds: an edited paragraph re-renders its own page; a new
    heading changes every page's navigation; a template or interface-string edit, every page."""
    from bookkit.render.site import pages as site

    rendered: list[str] = []
    original = site.render_pages

    def spy(env, info, editions, outlines, bodies, has_math, config, version, only=None,
            previous=None):
        names = ({f"{o.chapter.slug}.html" for o in outlines} | {"index.html", "404.html"}
                 if only is None else {f"{slug}.html" for slug in only})
        rendered.extend(f"{info.key}/{n}" for n in sorted(names))
        return original(env, info, editions, outlines, bodies, has_math, config, version,
                        only=only, previous=previous)

    import bookkit.render.site.renderer as build_module   # the site renderer calls render_pages
    build_module.render_pages = spy
    try:
        out = tmp_path / "site"
        builder = Builder(BuildOptions(root=book_copy, out=out, quiet=True, cache_dir=warm_cache))
        builder.build()
        before = {p: p.read_bytes() for p in out.rglob("*.html")}

        rendered.clear()
        chapter = book_copy / "book-en" / "12-device-edge-cloud.md"
        chapter.write_text(chapter.read_text() + "\nOne more sentence.\n")
        builder.build()
        assert rendered == ["en/device-edge-cloud.html"]
        after = {p: p.read_bytes() for p in out.rglob("*.html")}
        assert {p for p in after if after[p] != before[p]} == {out / "en" / "device-edge-cloud.html"}

        rendered.clear()
        chapter.write_text(chapter.read_text() + "\n## A new section {#sec-device-edge-cloud-new}\n\nText.\n")
        builder.build()
        assert len(rendered) == len(list((out / "en").glob("*.html")))   # the nav changed
        assert "A new section" in (out / "en" / "index.html").read_text()

        rendered.clear()
        template = book_copy / "website" / "templates" / "base.html"
        template.write_text(template.read_text().replace("</body>", "<!-- edited --></body>"))
        builder.build()
        assert all("<!-- edited -->" in p.read_text() for p in out.rglob("*.html"))
        assert len(rendered) == len(list(out.rglob("*.html")))
    finally:
        build_module.render_pages = original


def test_repeated_footnote_references_show_the_note_number(built_site):
    """A note cited twice reads [2] both times, never the plugin's [2:1]; the anchors stay apart."""
    import collections
    html = (built_site / "accelerators.html").read_text()
    refs = re.findall(r'class="footnote-ref"><a href="#fn(\d+)" id="(fnref[\d:]+)">\[([^\]]+)\]', html)
    assert refs and not any(":" in label for _, _, label in refs)
    counts = collections.Counter(note for note, _, _ in refs)
    assert max(counts.values()) > 1                       # the chapter does cite a note twice
    assert len({anchor for _, anchor, _ in refs}) == len(refs)


def test_our_scripts_and_styles_ship_minified_and_libraries_as_they_are(built_site):
    """The site ships esbuild's minified copy of each of our scripts and style sheets (the
    browser tests run them); lunr.min.js and KaTeX's CSS come from node_modules untouched."""
    static = ROOT / "website" / "static"
    for source in sorted(static.glob("*.js")) + sorted(static.glob("*.css")):
        shipped = (built_site / "static" / source.name).read_bytes()
        if source.name == "search-worker.js":    # its own code is the part after the bundle
            shipped = shipped[shipped.rindex(b"(function(){\n"):]
        limit = 0.7 if source.suffix == ".js" else 0.9     # our CSS is written tersely
        assert len(shipped) < limit * source.stat().st_size, source.name
        assert b"\n  " not in shipped, source.name       # no indentation left
    assert (built_site / "static" / "lunr.min.js").read_bytes() == (
        ROOT / "website" / "node_modules" / "lunr" / "lunr.min.js").read_bytes()
    # The search scripts still carry what the browser needs by name (minifying keeps globals
    # and the worker's message types).
    engine = (built_site / "static" / "search-engine.js").read_text(encoding="utf-8")
    ui = (built_site / "static" / "search-ui.js").read_text(encoding="utf-8")
    worker = (built_site / "static" / "search-worker.js").read_text(encoding="utf-8")
    assert "bookSearchCore" in engine and "bookSearchUI" in ui and "requestIdleCallback" in ui
    assert "importScripts" in worker and "indexedDB" in worker
    # one download for the worker: lunr and the engine in front of its code, which then
    # loads neither (its code in a function, so that its "use strict" holds)
    assert worker.startswith((built_site / "static" / "lunr.min.js").read_text(
        encoding="utf-8").rstrip()) and engine.rstrip() in worker
    assert '(function(){\n"use strict";' in worker and "self.bookSearchCore||importScripts" in worker


def test_a_script_that_does_not_parse_names_file_and_line_and_keeps_previous_site(
        book_copy, tmp_path, warm_cache):
    out = tmp_path / "out"
    Builder(BuildOptions(root=book_copy, out=out, quiet=True, cache_dir=warm_cache)).build()
    before = (out / "static" / "app.js").read_bytes()
    script = book_copy / "website" / "static" / "app.js"
    lines = script.read_text(encoding="utf-8").split("\n")
    script.write_text("\n".join(lines[:3] + ["  var broken = ;"] + lines[3:]), encoding="utf-8")
    with pytest.raises(BuildError) as err:
        Builder(BuildOptions(root=book_copy, out=out, quiet=True, cache_dir=warm_cache)).build()
    rendered = err.value.render()
    assert f"{script}:4:" in rendered and "minifying" in rendered
    assert "bookkit-minify-" not in rendered        # no temporary path: the author's file
    assert (out / "static" / "app.js").read_bytes() == before
