"""Issue 27, item 5: the site root's 404.html never takes the site's root from the address.

With the site hosted at `/`, the old page read `//host/en/missing.html` as "site root
//host/", wrote a <base> there and fetched and document.write()-d that host's page. Here the
real templates and scripts render the root 404 for a site at `/`, a browser opens the attack
paths on it, and any request to another host fails the test (that host answers, with CORS
allowed, a page that would show if it were fetched).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from bookkit.load.config import load_edition_info, load_registry
from bookkit.model import ChapterOutline, ChapterSource
from bookkit.render.site.pages import SiteConfig, environment, render_pages
from bookkit.render.site.renderer import static_files

ROOT = Path(__file__).resolve().parents[2]
HOST = "http://book.test"
EVIL = "evil.test"


@pytest.fixture(scope="module")
def site_at_root(tmp_path_factory) -> Path:
    """Every edition's home and 404 page for a site hosted at https://book.test/ (one stand-in
    chapter), with the site's static files."""
    out = tmp_path_factory.mktemp("site404")
    registry = load_registry(ROOT)
    infos = [load_edition_info(ROOT, spec.id, registry) for spec in registry]
    config = SiteConfig(site_url="https://book.test/", release_url="https://book.test/dl/",
                        pdf_names={i.key: "book.pdf" for i in infos},
                        epub_names={i.key: "book.epub" for i in infos})
    env = environment(ROOT)
    for info in infos:
        chapter = ChapterSource(edition=info.key, number=1, slug="intro", path=info.folder / "intro.md",
                                text="")
        outline = ChapterOutline(chapter=chapter, title="Intro", title_id="sec-intro")
        pages = render_pages(env, info, infos, [outline], {"intro": "<p>text</p>"}, {}, config, "t")
        for name, data in pages.items():
            path = out / info.url_prefix / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    for name, data in static_files(ROOT).items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return out


@pytest.fixture
def visit(browser, site_at_root):
    ctx = browser.new_context()
    elsewhere: list[str] = []

    def serve(route):
        path = route.request.url.split("://", 1)[1].split("/", 1)[1].split("?")[0]
        file = site_at_root / path
        if path and file.is_file() and site_at_root in file.resolve().parents:
            route.fulfill(status=200, path=str(file))
        else:
            route.fulfill(status=404, path=str(site_at_root / "404.html"))

    def other(route):
        elsewhere.append(route.request.url)
        route.fulfill(status=200, content_type="text/html",
                      headers={"Access-Control-Allow-Origin": "*"},
                      body='<html lang="xx"><head><title>PWNED</title></head><body>'
                           '<main><h1>PWNED</h1></main><script>window.__pwned=1</script></body></html>')
    ctx.route(f"{HOST}/**", serve)
    ctx.route("**/*", lambda route: serve(route) if route.request.url.startswith(HOST + "/")
              else other(route))
    page = ctx.new_page()
    page.elsewhere = elsewhere
    yield page
    ctx.close()


@pytest.mark.parametrize("path", ["//evil.test/en/missing.html", "//evil.test/zh-tw/a/b.html",
                                  "///evil.test/en/missing.html", "/%2F%2Fevil.test/en/x.html",
                                  "//evil.test/", "//evil.test/static/x/en/y.html"])
def test_a_path_naming_another_host_loads_nothing_from_it(visit, path):
    page = visit
    page.goto(HOST + path)
    page.wait_for_load_state("load")
    page.wait_for_timeout(300)   # notfound.js's fetch, were there one, would have been made
    assert page.elsewhere == [], f"the 404 page requested another origin: {page.elsewhere}"
    assert page.title() != "PWNED" and page.locator("main h1").inner_text() != "PWNED"
    assert page.evaluate("window.__pwned") is None
    assert page.evaluate("new URL(document.baseURI).origin") == HOST
    # the site's own page, styled from the site's own path
    assert page.evaluate("getComputedStyle(document.querySelector('.topbar')).position") == "sticky"
    assert page.evaluate("document.querySelector('main .button').href") == f"{HOST}/index.html"


def test_an_edition_path_still_gets_its_edition_page(visit):
    """The fix keeps the feature: a missing page under /en/ answers in English."""
    page = visit
    page.goto(f"{HOST}/en/deep/missing.html")
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    assert page.locator("main h1").inner_text() == "Page not found"
    assert page.evaluate("document.querySelector('main .button').href") == f"{HOST}/en/index.html"
    assert page.url == f"{HOST}/en/deep/missing.html"
    assert page.elsewhere == []
