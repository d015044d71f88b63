"""The site in a real headless Chromium: themes, language switcher, keyboard, mobile, a11y."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "website" / "node_modules" / "axe-core" / "axe.min.js"


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_theme_follows_system_preference(context_factory, site_url, scheme):
    page = context_factory(color_scheme=scheme).new_page()
    page.goto(site_url + "getting-started.html")
    assert page.evaluate("document.documentElement.dataset.theme") == scheme


def test_theme_toggle_persists_without_flash(context_factory, site_url):
    page = context_factory(color_scheme="light").new_page()
    page.goto(site_url + "getting-started.html")
    page.click(".theme-toggle")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    # On the next page load the stored choice must already apply when the DOM is parsed, before
    # any stylesheet or deferred script could paint the wrong theme.
    page.add_init_script("""document.addEventListener('DOMContentLoaded', () => {
        window.__themeAtDom = document.documentElement.dataset.theme;
        window.__bgAtDom = getComputedStyle(document.documentElement).backgroundColor; });""")
    page.goto(site_url + "en/workloads.html")
    assert page.evaluate("window.__themeAtDom") == "dark"
    assert page.evaluate("window.__bgAtDom") == "rgb(21, 24, 28)"
    page.reload()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    first_head_child = page.evaluate(
        "document.head.querySelector('script, link[rel=stylesheet]').tagName")
    assert first_head_child == "SCRIPT"


def test_language_switcher_keeps_section(context_factory, site_url):
    page = context_factory().new_page()
    page.goto(site_url + "en/workloads.html")
    ids = page.evaluate("[...document.querySelectorAll('main h2[id], main h3[id]')].map(h => h.id)")
    target = ids[len(ids) // 2]
    page.goto(site_url + f"en/workloads.html#{target}")
    page.click('.langs a[hreflang="zh-Hant"]')
    page.wait_for_url(f"**/zh-tw/workloads.html#{target}")
    assert page.locator(f"#{target}").is_visible()
    # Without a hash, the switcher carries the section scrolled to.
    last = ids[-1]
    page.goto(site_url + "workloads.html")
    # (a reader who scrolled there has had every block on the way laid out; a programmatic jump
    # past blocks not yet rendered lands where their estimated sizes put it: style.css)
    page.evaluate(f"""document.documentElement.classList.add('full-layout');
        document.body.style.paddingBottom = '3000px';
        document.getElementById('{last}').scrollIntoView()""")
    page.click('.langs a[hreflang="en"]')
    page.wait_for_url(f"**/en/workloads.html#{last}")


def test_arrow_keys_go_to_previous_and_next_chapter(context_factory, site_url):
    page = context_factory().new_page()
    page.goto(site_url + "en/workloads.html")
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**/en/accelerators.html")
    page.keyboard.press("ArrowLeft")
    page.wait_for_url("**/en/workloads.html")
    page.keyboard.press("ArrowLeft")
    page.wait_for_url("**/en/model-architecture.html")


def test_phone_width_has_no_horizontal_scroll(context_factory, site_url, tmp_path):
    page = context_factory(viewport={"width": 360, "height": 740}).new_page()
    for path in ("getting-started.html", "en/getting-started.html", "zh-tw/index.html"):
        page.goto(site_url + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"{path} is {width}px wide at a 360px viewport"
    shot = tmp_path / "phone.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


def test_bound_number_shows_provenance_on_keyboard_focus(context_factory, site_url):
    page = context_factory().new_page()
    page.goto(site_url + "en/getting-started.html")
    number = page.locator(".num").first
    assert not page.locator("#num-popover").is_visible()
    number.focus()
    tip = page.locator("#num-popover")      # one popover for all numbers (app.js)
    assert tip.is_visible()
    assert "=" in tip.inner_text()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violations(context_factory, site_url, scheme):
    # axe is injected as an inline script: past the pages' CSP (test_csp.py tests the policy)
    page = context_factory(color_scheme=scheme, bypass_csp=True).new_page()
    problems = []
    for path in ("index.html", "getting-started.html", "en/getting-started.html",
                 "zh-tw/accelerators.html"):
        page.goto(site_url + path)
        page.add_script_tag(path=str(AXE))
        result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        for v in result["violations"]:
            if v["impact"] in ("serious", "critical"):
                problems.append(f"{path} [{scheme}]: {v['id']}: {v['help']} "
                                f"({len(v['nodes'])} nodes, e.g. {v['nodes'][0]['html'][:120]})")
    assert not problems, "\n".join(problems)


def test_search_results_fit_a_phone_screen(context_factory, site_url):
    page = context_factory(viewport={"width": 360, "height": 740}).new_page()
    page.goto(site_url + "en/workloads.html")
    page.focus("#search-input")
    page.keyboard.type("KV cache")
    page.wait_for_selector("#search-results li")
    box = page.locator("#search-results").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    # Result text is what a reader sees: bound numbers resolved, no template braces.
    assert "{{" not in page.locator("#search-results").inner_text()


@pytest.mark.parametrize("edition", ["", "en/", "zh-tw/"])
def test_home_table_of_contents_is_numbered_once(context_factory, site_url, edition):
    """The chapter and section titles carry their numbers; the list adds no second number."""
    page = context_factory().new_page()
    page.goto(site_url + edition + "index.html")
    markers = page.eval_on_selector_all(
        ".home-toc li", "els => els.map(e => getComputedStyle(e).listStyleType)")
    assert markers and set(markers) == {"none"}
    first_chapter = page.locator(".home-toc > li").nth(1).inner_text()
    assert first_chapter.split()[0] in ("第", "Chapter")


def test_dark_system_gets_the_dark_theme_with_javascript_off(context_factory, site_url):
    page = context_factory(java_script_enabled=False, color_scheme="dark").new_page()
    page.goto(site_url + "en/getting-started.html")
    assert page.get_attribute("html", "data-theme") is None         # no script ran
    background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert background == "rgb(21, 24, 28)"
    light = context_factory(java_script_enabled=False, color_scheme="light").new_page()
    light.goto(site_url + "en/getting-started.html")
    assert light.evaluate("getComputedStyle(document.documentElement).backgroundColor") == "rgb(255, 255, 255)"


def test_traditional_chinese_fonts_come_first_on_zh_tw_pages(context_factory, site_url):
    page = context_factory().new_page()
    family = lambda: page.evaluate("getComputedStyle(document.documentElement).fontFamily")  # noqa: E731
    page.goto(site_url + "zh-tw/getting-started.html")
    tw = family()
    assert tw.index("Noto Sans CJK TC") < tw.index("Noto Sans CJK SC") and "YaHei" not in tw
    page.goto(site_url + "getting-started.html")
    zh = family()
    assert zh.index("Noto Sans CJK SC") < zh.index("Noto Sans CJK TC")


def test_tables_set_caption_above_numbers_in_tabular_figures_without_underlines(context_factory, site_url):
    page = context_factory().new_page()
    page.goto(site_url + "en/accelerators.html#tbl-accelerators-devices")
    block = page.locator("#tbl-accelerators-devices")
    caption, table = block.locator(".caption").bounding_box(), block.locator("table").bounding_box()
    assert caption["y"] + caption["height"] <= table["y"]          # the caption is above
    assert block.locator(".caption").inner_text().startswith("Table 4-1")
    style = page.eval_on_selector("#tbl-accelerators-devices td .num", """e => {
        const s = getComputedStyle(e), td = getComputedStyle(e.closest('td'));
        return [s.borderBottomStyle, td.fontVariantNumeric]; }""")
    assert style == ["none", "tabular-nums"]


@pytest.mark.parametrize("target", ["eq-accelerators-roofline", "fig-accelerators-ridge",
                                    "tbl-accelerators-devices", "fn1"])
def test_link_targets_land_below_the_sticky_header(context_factory, site_url, target):
    page = context_factory(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(site_url + f"en/accelerators.html#{target}")
    page.wait_for_timeout(200)
    header = page.locator(".topbar").bounding_box()
    box = page.locator(f"[id='{target}']").bounding_box()
    assert box["y"] >= header["y"] + header["height"] - 1
    assert box["y"] < 800                                        # and it is on screen
    assert page.evaluate(f"getComputedStyle(document.getElementById('{target}')).animationName") \
        == "target-flash"


def test_text_column_has_a_readable_measure(context_factory, site_url):
    """Characters per line of real paragraphs at a wide window: about 70-80 in English, about
    40 in Chinese (text length over the number of lines each paragraph wraps to)."""
    page = context_factory(viewport={"width": 1800, "height": 900}).new_page()
    per_line = """() => {
        const ps = [...document.querySelectorAll('article.chapter > p')]
            .filter(p => p.innerText.length > 300 && !p.querySelector('.katex-display'));
        const lh = parseFloat(getComputedStyle(ps[0]).lineHeight);
        const chars = ps.reduce((n, p) => n + p.innerText.length, 0);
        const lines = ps.reduce((n, p) => n + Math.round(p.getBoundingClientRect().height / lh), 0);
        return chars / lines; }"""
    # every paragraph laid out (past the opening screen they are only near the viewport)
    full = "document.documentElement.classList.add('full-layout')"
    page.goto(site_url + "en/accelerators.html")
    page.evaluate(full)
    assert 65 <= page.evaluate(per_line) <= 82
    page.goto(site_url + "accelerators.html")
    page.evaluate(full)
    assert 36 <= page.evaluate(per_line) <= 50     # Chinese mixed with Latin terms and digits


@pytest.mark.parametrize("base, missing, lang, heading, home", [
    ("/ai-infra-book/", "a/b/missing.html", "zh-Hans", "页面不存在", "/ai-infra-book/index.html"),
    ("/ai-infra-book/", "en/deep/er/missing.html", "en", "Page not found", "/ai-infra-book/en/index.html"),
    # the site's path is book.yml's site_url's, never taken from the address (issue 27)
    ("/ai-infra-book/", "zh-tw/x/missing.html", "zh-Hant", "頁面不存在", "/ai-infra-book/zh-tw/index.html"),
])
def test_root_404_is_styled_and_localised_at_any_depth(context_factory, built_site, base, missing,
                                                       lang, heading, home):
    """Hosts (GitHub Pages) answer a missing path at any depth with the root 404.html."""
    def serve(route):
        path = route.request.url.split("://", 1)[1].split("/", 1)[1].split("?")[0]
        rel = ("/" + path)[len(base):] if ("/" + path).startswith(base) else None
        file = built_site / rel if rel else None
        if file and file.is_file():
            route.fulfill(status=200, path=str(file))
        else:
            route.fulfill(status=404, path=str(built_site / "404.html"))
    ctx = context_factory()
    ctx.route("http://book.test/**", serve)
    page = ctx.new_page()
    page.goto(f"http://book.test{base}{missing}")
    page.wait_for_function(f"() => document.documentElement.lang === {lang!r}")
    assert page.locator("main h1").inner_text() == heading
    assert page.url.endswith(missing)                        # the address bar keeps the missing URL
    # styled: the stylesheet loaded (the sticky header and the theme variables apply)
    assert page.evaluate("getComputedStyle(document.querySelector('.topbar')).position") == "sticky"
    assert page.evaluate("document.querySelector('main .button').href") == f"http://book.test{home}"
