"""The site's Content-Security-Policy (issue 27): no inline script runs on any page, and the
site's own scripts (theme, search worker, provenance popovers, what-if, 404) work under it."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]

POLICY = ("default-src 'self'; script-src 'self'; worker-src 'self'; object-src 'none'; "
          "base-uri 'self'; form-action 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:")

#: collects every violation the page reports, from before its first script
WATCH = """window.__csp = [];
document.addEventListener('securitypolicyviolation', e =>
    window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline') + ' ' + e.sourceFile + ':' + e.lineNumber));"""


def _site_path() -> str:
    data = yaml.safe_load((ROOT / "manuscripts" / "book.yml").read_text(encoding="utf-8"))
    return "/" + urlparse(data["site_url"]).path.lstrip("/")


def test_every_page_carries_the_policy_first_and_no_inline_script(built_site):
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > 30
    for page in pages:
        text = page.read_text(encoding="utf-8")
        head = text[:text.index("</head>")]
        meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', head)
        assert meta, page
        assert meta.group(1).replace("&#39;", "'") == POLICY, page
        # before any script or style sheet: a policy applies only to what follows it
        assert meta.start() < min(head.find("<script"), head.find("<link")), page
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in tag, (page, tag)
        assert not re.search(r"<[a-z][^>]*\son[a-z]+=", text), page


@pytest.fixture
def watched(context_factory):
    def make(**kwargs):
        ctx = context_factory(**kwargs)
        ctx.add_init_script(WATCH)
        return ctx
    return make


def _no_violations(page):
    page.wait_for_load_state("load")
    assert page.evaluate("window.__csp") == []


def test_chapter_page_scripts_work_under_the_policy(watched, site_url):
    page = watched(viewport={"width": 1200, "height": 800}).new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site_url + "getting-started.html")
    assert page.evaluate("document.documentElement.dataset.theme") in ("light", "dark")   # theme.js
    # search: the worker started and answers
    assert page.evaluate("window.bookSearch.ready.then(() => window.bookSearch.source)") in ("built", "cache")
    assert page.evaluate("window.bookSearch.query('KV').then(r => r.length)") > 0
    # the deferred search style sheet was switched on without an onload attribute
    assert page.evaluate("[...document.styleSheets].some(s => s.href && s.href.includes('search.css') "
                         "&& s.media.mediaText === 'all')")
    # provenance popover (app.js)
    page.locator("main .num").first.focus()
    assert page.locator("#num-popover").is_visible()
    _no_violations(page)
    assert errors == []


def test_home_page_has_no_violation(watched, site_url):
    page = watched().new_page()
    page.goto(site_url + "en/index.html")
    page.evaluate("window.bookSearch.ready")
    _no_violations(page)


def test_whatif_page_works_under_the_policy(watched, site_url, built_site):
    slug = sorted(built_site.glob("*.whatif.js"))[0].name.split(".")[0]
    page = watched().new_page()
    page.goto(site_url + f"{slug}.html")
    region = page.locator(".whatif[data-whatif-scenario]").first
    select = region.locator("select[data-whatif]").first
    values = select.evaluate("s => [...s.options].map(o => o.value).filter(v => v !== s.value)")
    changed = False
    for value in values:
        select.select_option(value)
        page.wait_for_timeout(200)
        if region.evaluate("r => r.classList.contains('whatif-changed')"):
            changed = True
            break
    assert changed       # whatif.js ran and loaded the page's <slug>.whatif.js data
    _no_violations(page)


def test_root_404_has_no_violation(watched, built_site):
    base = _site_path()
    ctx = watched()
    ctx.route("http://book.test/**", lambda route: _serve(route, built_site, base))
    page = ctx.new_page()
    page.goto(f"http://book.test{base}en/gone/missing.html")
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    page.wait_for_function("() => window.bookSearch")     # started by notfound.js after the swap
    assert page.evaluate("window.bookSearch.ready.then(() => window.bookSearch.query('KV')).then(r => r.length)") > 0
    _no_violations(page)


def _serve(route, site, base):
    path = "/" + route.request.url.split("://", 1)[1].split("/", 1)[1].split("?")[0]
    file = site / path[len(base):] if path.startswith(base) else None
    if file and file.is_file():
        route.fulfill(status=200, path=str(file))
    else:
        route.fulfill(status=404, path=str(site / "404.html"))


def test_injected_inline_script_and_handler_do_not_run(watched, site_url):
    """What a translation's raw HTML could slip in, were it to reach the page: refused."""
    ctx = watched()

    def inject(route):
        response = route.fetch()
        body = response.text().replace(
            "</main>", '<script>window.__ran = 1</script><img src="data:," onerror="window.__ran = 2">'
                       '<a id="js" href="javascript:window.__ran=3">x</a></main>', 1)
        route.fulfill(response=response, body=body)
    ctx.route("**/getting-started.html", inject)
    page = ctx.new_page()
    page.goto(site_url + "getting-started.html")
    page.wait_for_load_state("load")
    page.click("#js")
    page.wait_for_timeout(200)
    assert page.evaluate("window.__ran") is None
    blocked = page.evaluate("window.__csp")
    assert sum(v.startswith("script-src") for v in blocked) >= 3, blocked
