"""Site checks on a hand-written fixture site: clean, then one mutation per problem."""

from __future__ import annotations

import http.server
import threading
from pathlib import Path

import pytest

from bookkit.check.site_links import SiteChecker, check_external, check_site, list_external
from bookkit.check.report import ERROR, WARNING
from bookkit.lunr.index import SearchDoc, build_search_assets

from .fixture_site import SITE_URL, edit, make_site


@pytest.fixture
def site(tmp_path) -> Path:
    return make_site(tmp_path / "site")


def run(site: Path):
    return check_site(site, SITE_URL)


def kinds_at(findings):
    return {(f.kind, f.where) for f in findings}


def only(findings, kind):
    return [f for f in findings if f.kind == kind]


def test_clean_site_has_no_findings(site):
    assert run(site) == []


def test_removed_target_id_is_a_broken_anchor_everywhere_it_is_used(site):
    edit(site / "en" / "chapter.html", '<h2 id="sec-method">', "<h2>")
    found = run(site)
    assert ("broken-anchor", "en/chapter.html#sec-intro") in kinds_at(found)
    detail = [f.detail for f in found if f.where == "en/chapter.html#sec-intro"]
    assert 'href "#sec-method" has no target' in detail
    # from the other edition, through a relative path
    assert ("broken-anchor", "index.html#sec-home") in kinds_at(found)
    # and the search entry for that section
    search = only(found, "search-index")
    assert [f.where for f in search] == ["en/search-index.js"]
    assert "chapter.html#sec-method" in search[0].detail
    assert all(f.severity == ERROR for f in found)


def test_broken_link(site):
    edit(site / "en" / "index.html", '<a href="chapter.html">', '<a href="chapter2.html">')
    found = run(site)
    assert kinds_at(found) == {("broken-link", "en/index.html#sec-home")}
    assert "en/chapter2.html" in found[0].detail
    assert found[0].line is not None


def test_link_leaving_the_site_and_root_relative_links(site):
    edit(site / "index.html", '<a href="chapter.html">', '<a href="../../x.html">')
    edit(site / "en" / "index.html", '<a href="chapter.html">', '<a href="/book/en/nope.html">')
    found = run(site)
    assert ("broken-link", "index.html#sec-home") in kinds_at(found)
    assert ("broken-link", "en/index.html#sec-home") in kinds_at(found)
    assert len(found) == 2


def test_missing_stylesheet_is_a_broken_link_in_head(site):
    (site / "static" / "style.css").unlink()
    found = run(site)
    assert {f.kind for f in found} == {"broken-link"}
    assert len(found) == 6  # every page of both editions


def test_deleted_image(site):
    (site / "en" / "figures" / "roof.svg").unlink()
    found = run(site)
    assert kinds_at(found) == {("missing-image", "en/chapter.html#sec-method")}


def test_removed_alt(site):
    edit(site / "chapter.html", ' alt="A roofline"', "")
    found = run(site)
    assert kinds_at(found) == {("missing-alt", "chapter.html#sec-method")}


def test_empty_alt_allowed_only_on_decorative_images(site):
    edit(site / "chapter.html", ' alt="A roofline"', ' alt=""')
    assert kinds_at(run(site)) == {("missing-alt", "chapter.html#sec-method")}
    edit(site / "chapter.html", ' alt=""', ' alt="" role="presentation"')
    assert run(site) == []


def test_duplicate_id(site):
    edit(site / "en" / "chapter.html", '<div class="table-wrap" id="tbl-one">', '<div class="table-wrap" id="fig-roof">')
    found = run(site)
    dup = only(found, "duplicate-id")
    assert [f.where for f in dup] == ["en/chapter.html#fig-roof"]
    assert "2 times" in dup[0].detail
    # the link to the table lost its target too
    assert ("broken-anchor", "en/chapter.html#sec-intro") in kinds_at(found)


def test_page_dropped_from_sitemap(site):
    edit(site / "sitemap.xml", f"  <url><loc>{SITE_URL}en/chapter.html</loc></url>\n", "")
    assert kinds_at(run(site)) == {("sitemap-missing", "en/chapter.html")}


def test_sitemap_entry_that_does_not_exist(site):
    edit(site / "sitemap.xml", "</urlset>", f"<url><loc>{SITE_URL}en/gone.html</loc></url>\n"
         f"<url><loc>https://elsewhere.org/x.html</loc></url>\n</urlset>")
    found = run(site)
    assert kinds_at(found) == {("sitemap-dead", "sitemap.xml")}
    assert len(found) == 2


def test_404_is_not_required_in_sitemap_but_other_new_pages_are(site):
    (site / "en" / "extra.html").write_text('<html lang="en"><body></body></html>', encoding="utf-8")
    assert kinds_at(run(site)) == {("sitemap-missing", "en/extra.html")}


def test_hreflang_to_missing_page(site):
    edit(site / "chapter.html", f'hreflang="en" href="{SITE_URL}en/chapter.html"',
         f'hreflang="en" href="{SITE_URL}en/nope.html"')
    found = run(site)
    errors = [f for f in found if f.severity == ERROR]
    assert kinds_at(errors) == {("hreflang", "chapter.html")}
    assert "en/nope.html" in errors[0].detail
    # en/chapter.html still lists chapter.html, which no longer lists it back
    assert ("hreflang", "en/chapter.html") in kinds_at(f for f in found if f.severity == WARNING)


def test_hreflang_language_mismatch_and_off_site(site):
    edit(site / "index.html", f'hreflang="en" href="{SITE_URL}en/"', f'hreflang="en" href="{SITE_URL}"')
    edit(site / "en" / "index.html", f'hreflang="zh-Hans" href="{SITE_URL}"', 'hreflang="zh-Hans" href="https://other.org/"')
    found = [f for f in run(site) if f.severity == ERROR]
    assert kinds_at(found) == {("hreflang", "index.html"), ("hreflang", "en/index.html")}
    assert any('lang is "zh-Hans"' in f.detail for f in found)
    assert any("not an absolute URL under" in f.detail for f in found)


def test_search_entry_to_missing_anchor_and_page(site):
    docs = [SearchDoc("chapter.html#sec-gone", "c", "s", "t"), SearchDoc("gone.html", "c", "s2", "t"),
            SearchDoc("index.html", "c", "home", "t")]
    for name, data in build_search_assets(docs, "en").items():
        (site / "en" / name).write_bytes(data)
    found = run(site)
    assert kinds_at(found) == {("search-index", "en/search-index.js")}
    details = sorted(f.detail for f in found)
    assert len(details) == 2
    assert any('entry 0 "chapter.html#sec-gone"' in d and 'no id "sec-gone"' in d for d in details)
    assert any('entry 1 "gone.html"' in d and "missing page en/gone.html" in d for d in details)


def test_unreadable_or_missing_search_index(site):
    (site / "search-index.js").write_text("window.other = 1;\n", encoding="utf-8")
    (site / "en" / "search-index.js").unlink()
    found = run(site)
    assert kinds_at(found) == {("search-index", "search-index.js"), ("search-index", "en/search-index.js")}


def test_broken_footnote_backref(site):
    edit(site / "en" / "chapter.html", '<a href="#fnref2" class="footnote-backref">', '<a href="#fnref1" class="footnote-backref">')
    found = run(site)
    assert {f.kind for f in found} == {"footnote"}
    places = kinds_at(found)
    assert ("footnote", "en/chapter.html#fn2") in places  # returns to the wrong reference / has none
    assert ("footnote", "en/chapter.html#fnref2") in places  # reference 2 has no way back


def test_footnote_reference_to_missing_footnote(site):
    edit(site / "chapter.html", '<a href="#fn2" id="fnref2">', '<a href="#fn3" id="fnref2">')
    found = run(site)
    assert ("footnote", "chapter.html#fnref2") in kinds_at(found)
    assert ("footnote", "chapter.html#fn2") in kinds_at(found)  # fn2 is no longer referenced
    assert ("broken-anchor", "chapter.html#sec-method") in kinds_at(found)


def test_missing_lang(site):
    edit(site / "en" / "404.html", '<html lang="en">', "<html>")
    found = run(site)
    assert ("missing-lang", "en/404.html") in kinds_at(found)
    # the alternates pointing at it now point at a page of no language
    assert {f.kind for f in found if f.severity == ERROR} == {"missing-lang", "hreflang"}


def test_resolution_rules(site):
    c = SiteChecker(site, SITE_URL)
    assert c.resolve("en/chapter.html", "../").file == "index.html"
    assert c.resolve("en/chapter.html", "../en").file == "en/index.html"
    assert c.resolve("chapter.html", f"{SITE_URL}en/chapter.html#x").file == "en/chapter.html"
    assert c.resolve("chapter.html", f"{SITE_URL}en/chapter.html#x").fragment == "x"
    assert c.resolve("chapter.html", "/book/en/").file == "en/index.html"
    assert c.resolve("chapter.html", "static/style.css?v=2").file == "static/style.css"
    assert c.resolve("chapter.html", "https://example.com/a#b").external == "https://example.com/a#b"
    assert c.resolve("chapter.html", "mailto:a@b.c").file is None
    assert c.resolve("chapter.html", "%E7%AB%A0.html").file == "章.html"
    assert c.edition_roots() == ["", "en"]


def test_list_external(site):
    links = SiteChecker(site, SITE_URL).external_links()
    assert list(links) == ["https://example.com/paper"]
    assert links["https://example.com/paper"] == ["chapter.html#sec-method", "en/chapter.html#sec-method"]
    (listed,) = list_external(links)
    assert (listed.kind, listed.severity, listed.where) == ("external", "info", "chapter.html#sec-method")


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_HEAD(self):
        self.send_response(200 if self.path == "/ok" else 404)
        self.end_headers()

    do_GET = do_HEAD

    def log_message(self, *args):
        pass


def test_check_external_with_cache(tmp_path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        links = {f"{base}/ok": ["a.html"], f"{base}/missing": ["b.html#sec-x"],
                 "http://127.0.0.1:9/closed": ["c.html"]}
        cache = tmp_path / ".cache" / "external-links.json"
        found = check_external(links, cache, timeout=2)
        by_where = {f.where: f for f in found}
        assert set(by_where) == {"b.html#sec-x", "c.html"}
        assert by_where["b.html#sec-x"].severity == ERROR and "HTTP 404" in by_where["b.html#sec-x"].detail
        assert by_where["c.html"].severity == WARNING  # unreachable: maybe the network, not the link
        assert f"{base}/ok" in cache.read_text()
    finally:
        server.shutdown()
        server.server_close()
    # the working link is cached: no request needed now that the server is gone
    assert check_external({f"{base}/ok": ["a.html"]}, cache, timeout=2) == []


def test_footnote_referenced_twice_pairs_up(site):
    page = site / "en" / "chapter.html"
    edit(page, "Home:", '<sup class="footnote-ref"><a href="#fn1" id="fnref1:1">[1:1]</a></sup> Home:')
    assert kinds_at(run(site)) == {("footnote", "en/chapter.html#fnref1:1")}  # no way back yet
    edit(page, '<a href="#fnref1" class="footnote-backref">↩︎</a>',
         '<a href="#fnref1" class="footnote-backref">↩︎</a> <a href="#fnref1:1" class="footnote-backref">↩︎</a>')
    assert run(site) == []
