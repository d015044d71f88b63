"""The reader's experience in a real headless Chromium, at desktop and phone sizes, light and dark:
number provenance popovers, the phone header and menu drawer, numeric table columns, figure zoom,
the sidebar column, errata links and the dismissable `--serve` error overlay."""
import subprocess
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "website" / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
CHAPTER4 = "en/accelerators.html"
TABLE = "#tbl-accelerators-devices"


def phone(context_factory, scheme="light"):
    return context_factory(viewport=PHONE, has_touch=True, is_mobile=True,
                           color_scheme=scheme).new_page()


def popover_box(page):
    page.wait_for_selector("#num-popover", state="visible")
    return page.locator("#num-popover").bounding_box()


def inside(box, viewport):
    return (box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= viewport["width"]
            and box["y"] + box["height"] <= viewport["height"])


# ------------------------------------------------------------------ number provenance popovers
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_tapping_numbers_on_a_phone_keeps_the_popover_on_screen_and_the_page_narrow(
        context_factory, site_url, scheme):
    page = phone(context_factory, scheme)
    page.goto(site_url + CHAPTER4)
    # the last column of the devices table (inside the scrolling wrapper) and a number in prose
    for selector in (f"{TABLE} tbody tr:nth-child(2) td:last-child .num",
                     "article.chapter > p .num >> nth=5"):
        number = page.locator(selector).first
        number.scroll_into_view_if_needed()
        number.tap()
        box = popover_box(page)
        assert inside(box, PHONE), (selector, box)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        text = page.locator("#num-popover").inner_text()
        assert text.startswith("Computed as:") and "=" in text
        # the popover is not inside a scrolling container that could clip it
        assert page.evaluate("!document.getElementById('num-popover').closest('.table-wrap, main')")
    # tap outside: closed
    page.locator("h1").tap()
    page.wait_for_selector("#num-popover", state="hidden")


def test_table_numbers_popover_is_not_clipped_by_the_table_wrapper(context_factory, site_url):
    page = context_factory(viewport=DESKTOP).new_page()
    page.goto(site_url + CHAPTER4 + TABLE)
    number = page.locator(f"{TABLE} tbody tr:last-child td:last-child .num")
    number.click()
    box = popover_box(page)
    assert inside(box, DESKTOP)
    # what is drawn at the popover's corners is the popover itself (not cut off or covered)
    for x, y in ((box["x"] + 3, box["y"] + 3), (box["x"] + box["width"] - 3, box["y"] + box["height"] - 3)):
        assert page.evaluate(f"document.elementFromPoint({x}, {y}).closest('#num-popover') !== null")
    assert page.locator("#num-popover").inner_text().startswith("Computed as:")


def test_one_popover_escape_and_outside_click_close_it(context_factory, site_url):
    page = context_factory(viewport=DESKTOP).new_page()
    page.goto(site_url + CHAPTER4)
    numbers = page.locator("article.chapter > p .num")
    first, second = numbers.nth(0), numbers.nth(1)
    first.click()
    text_first = page.locator("#num-popover").inner_text()
    second.click()               # another number: the same popover, moved, with its text
    assert page.locator("#num-popover").count() == 1
    assert page.locator("#num-popover").inner_text() != text_first or \
        first.get_attribute("data-name") == second.get_attribute("data-name")
    page.keyboard.press("Escape")
    page.wait_for_selector("#num-popover", state="hidden")
    second.click()
    popover_box(page)
    page.mouse.click(5, 790)     # outside: closed
    page.wait_for_selector("#num-popover", state="hidden")
    second.click()               # and a second click on the same number toggles it off
    popover_box(page)
    second.click()
    page.wait_for_selector("#num-popover", state="hidden")


def test_bound_numbers_are_one_roving_tab_stop(context_factory, site_url):
    page = context_factory(viewport=DESKTOP).new_page()
    page.goto(site_url + CHAPTER4)
    total = page.locator("main .num").count()
    assert total > 200
    assert page.evaluate("[...document.querySelectorAll('main .num')].filter(n => n.tabIndex >= 0).length") == 1
    # Tab reaches the numbers once; arrows move between them with the provenance shown
    for _ in range(300):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('num')"):
            break
    else:
        pytest.fail("Tab never reached a bound number")
    first = page.evaluate("document.activeElement.dataset.name")
    assert page.evaluate("document.activeElement.getAttribute('aria-describedby')") == "num-popover"
    assert page.locator("#num-popover").is_visible()
    assert "→" in page.locator("#num-popover").inner_text()       # the keyboard hint
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.classList.contains('num')")
    moved = page.evaluate("document.activeElement.dataset.name")
    assert page.url.endswith(CHAPTER4)                  # the arrow did not turn the page
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("document.activeElement.dataset.name") == first
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement === [...document.querySelectorAll('main .num')].at(-1)")
    assert moved
    page.keyboard.press("Escape")
    page.wait_for_selector("#num-popover", state="hidden")
    page.keyboard.press("Tab")                          # one Tab leaves the numbers
    assert not page.evaluate("document.activeElement.classList.contains('num')")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_open_popover_drawer_and_zoom_are_accessible(context_factory, site_url, scheme):
    problems = []
    for viewport in (DESKTOP, PHONE):
        # axe is injected as an inline script: past the pages' CSP (test_csp.py tests it)
        page = context_factory(viewport=viewport, color_scheme=scheme, bypass_csp=True).new_page()
        page.goto(site_url + CHAPTER4)
        page.add_script_tag(path=str(AXE))
        page.locator("article.chapter > p .num").first.click()
        if viewport is PHONE:
            page.click(".menu-toggle")
        result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        for v in result["violations"]:
            if v["impact"] in ("serious", "critical"):
                problems.append(f"{viewport['width']}px {scheme}: {v['id']}: {v['nodes'][0]['html'][:120]}")
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------ phone header and drawer
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_phone_menu_drawer_has_languages_a_backdrop_and_closes_outside_or_on_escape(
        context_factory, site_url, scheme):
    page = phone(context_factory, scheme)
    page.goto(site_url + CHAPTER4)
    assert not page.locator(".langs").is_visible()       # no room in the header
    page.click(".menu-toggle")
    assert page.locator("#sidebar").is_visible()
    assert page.locator(".drawer-backdrop").is_visible()
    assert page.get_attribute(".menu-toggle", "aria-expanded") == "true"
    links = page.locator("#sidebar .drawer-langs a.lang")
    assert links.count() == 3 and all(links.nth(i).is_visible() for i in range(3))
    side = page.locator("#sidebar").bounding_box()
    page.mouse.click(side["x"] + side["width"] + 20, 500)         # tap on the backdrop
    page.wait_for_selector("#sidebar", state="hidden")
    assert page.get_attribute(".menu-toggle", "aria-expanded") == "false"
    page.click(".menu-toggle")
    page.keyboard.press("Escape")
    page.wait_for_selector("#sidebar", state="hidden")
    assert page.evaluate("document.activeElement.classList.contains('menu-toggle')")
    # the drawer's switcher changes language
    page.click(".menu-toggle")
    page.click('#sidebar .drawer-langs a[hreflang="zh-Hant"]')
    page.wait_for_url("**/zh-tw/accelerators.html*")


@pytest.mark.parametrize("edition", ["", "en/", "zh-tw/"])
def test_phone_header_shows_the_whole_title(context_factory, site_url, edition):
    page = phone(context_factory)
    page.goto(site_url + edition + "accelerators.html")
    brand = page.locator(".brand")
    clipped = brand.evaluate("b => b.scrollWidth > b.clientWidth + 1 || b.scrollHeight > b.clientHeight + 1")
    assert not clipped, brand.inner_text()
    box = brand.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


# ------------------------------------------------------------------ tables
def test_numeric_columns_are_right_aligned_with_tabular_figures(context_factory, site_url):
    page = context_factory(viewport=DESKTOP).new_page()
    page.goto(site_url + CHAPTER4 + TABLE)
    cells = page.eval_on_selector_all(f"{TABLE} tbody tr", """rows => rows.map(r => {
        const c = r.children; return [getComputedStyle(c[0]).textAlign, getComputedStyle(c[1]).textAlign,
                                      getComputedStyle(c[1]).fontVariantNumeric]; })""")
    assert {c[0] for c in cells} == {"left"}          # device names
    assert {c[1] for c in cells} == {"right"}         # BF16 peaks
    assert {c[2] for c in cells} == {"tabular-nums"}
    rights = page.eval_on_selector_all(f"{TABLE} tbody td:nth-child(2) .num",
                                       "ns => ns.map(n => n.getBoundingClientRect().right)")
    assert len(rights) > 3 and max(rights) - min(rights) < 1.5     # the digits line up
    assert page.eval_on_selector(f"{TABLE} thead th:nth-child(2)", "e => getComputedStyle(e).textAlign") == "right"


# ------------------------------------------------------------------ figures
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_tapped_figure_opens_full_screen_large_enough_to_read(context_factory, site_url, scheme):
    page = phone(context_factory, scheme)
    page.goto(site_url + CHAPTER4)
    figure = page.locator("figure").first
    figure.scroll_into_view_if_needed()
    # app.js puts the figure's SVG inline (it follows the theme) once it nears the viewport
    page.wait_for_selector("figure svg.bk-fig")
    img = figure.locator("svg.bk-fig").first
    natural = float(img.get_attribute("width"))
    on_page = img.bounding_box()["width"]
    # the zoom button sits in the caption, below the drawing: over its top right corner it hid
    # the end of a title or a legend
    drawing, button = img.bounding_box(), figure.locator(".figure-zoom-open").bounding_box()
    assert button["y"] >= drawing["y"] + drawing["height"]
    assert figure.locator("figcaption .figure-zoom-open").count() == 1
    img.tap()
    page.wait_for_selector("dialog.figure-zoom[open]")
    zoomed = page.locator("dialog.figure-zoom svg").bounding_box()["width"]
    # legends drawn at 9 pt in a 460.8 pt wide figure are 12 px at its own size (614 px) and
    # ~6 px on the phone page; zoomed at least 1.25 times its size, they read at 15 px or more
    assert zoomed >= 1.25 * natural and zoomed >= 2.3 * on_page, (natural, on_page, zoomed)
    dialog = page.locator("dialog.figure-zoom").bounding_box()
    assert dialog["width"] <= PHONE["width"] + 1 and dialog["x"] >= 0
    assert page.evaluate("(() => { const d = document.querySelector('dialog.figure-zoom'); "
                         "return d.scrollWidth > d.clientWidth; })()")       # pans sideways
    page.keyboard.press("Escape")
    page.wait_for_selector("dialog.figure-zoom", state="hidden")
    figure.locator(".figure-zoom-open").tap()            # the button (keyboard users) opens it too
    page.wait_for_selector("dialog.figure-zoom[open]")
    caption = page.locator("dialog.figure-zoom p").text_content()
    assert caption.startswith("Figure 4-") and "⤢" not in caption     # the caption, no button
    page.locator("dialog.figure-zoom").tap(position={"x": 100, "y": 300})          # a tap closes it
    page.wait_for_selector("dialog.figure-zoom", state="hidden")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


# ------------------------------------------------------------------ sidebar column
@pytest.mark.parametrize("edition", ["", "en/"])
def test_sidebar_background_runs_the_full_length_of_a_long_page(context_factory, site_url, edition):
    # a window taller than the chapter list: the column below the list used to be blank
    page = context_factory(viewport={"width": 1280, "height": 1200}).new_page()
    page.goto(site_url + edition + "accelerators.html")
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_timeout(100)
    hit = page.evaluate("document.elementFromPoint(40, innerHeight - 10).closest('#sidebar') !== null")
    assert hit, "below the sidebar's content the column is empty page background"
    side = page.locator("#sidebar").bounding_box()
    main = page.locator("main").bounding_box()
    assert side["y"] + side["height"] >= main["y"] + main["height"] - 1
    # and its links stay in view while reading
    assert page.locator("#sidebar .chapters a").first.is_visible()


# ------------------------------------------------------------------ errata links
def test_each_section_has_a_quiet_errata_link_with_the_section_and_commit(context_factory, site_url):
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    page = context_factory(viewport=DESKTOP).new_page()
    page.goto(site_url + CHAPTER4)
    h2 = page.eval_on_selector_all("article.chapter h2[id]", "hs => hs.map(h => h.id)")
    links = page.eval_on_selector_all(".errata a", "as => as.map(a => a.href)")
    assert len(links) == len(h2) + 1                     # the chapter's opening, then each section
    url = urlsplit(links[2])
    assert (url.netloc, url.path) == ("github.com", "/ai-infra-book/ai-infra-book/issues/new")
    query = parse_qs(url.query)
    heading = page.locator(f"#{h2[1]}").inner_text().replace("#", "").strip()
    assert heading in query["title"][0]
    body = query["body"][0]
    assert "Edition: en" in body and f"#{h2[1]}" in body and f"accelerators.html#{h2[1]}" in body
    if commit:
        assert f"commit: {commit}" in body
    # quiet: small, muted, and after the section's text, before the next heading
    style = page.eval_on_selector(".errata a", "a => [parseFloat(getComputedStyle(a).fontSize), getComputedStyle(a).textDecorationLine]")
    assert style[0] < 14 and style[1] == "none"
    before_next = page.evaluate(f"document.getElementById('{h2[1]}').previousElementSibling.className")
    assert before_next == "errata"


def test_errata_links_omit_the_commit_without_git(tmp_path):
    from bookkit.load.gitinfo import source_commit
    from bookkit.load.config import load_edition_info
    from bookkit.render.site.pages import SiteConfig, errata_href

    assert source_commit(tmp_path) is None            # not a checkout
    assert source_commit(ROOT) is not None
    info = load_edition_info(ROOT, "zh")
    config = SiteConfig("https://x.test/", "", {}, {}, repo_url="https://github.com/o/r")
    href = errata_href(config, info, "sec-a", "1.2 标题", "https://x.test/a.html")
    body = parse_qs(urlsplit(href).query)["body"][0]
    assert "sec-a" in body and "1.2 标题" in body and info.strings["errata_commit"] not in body
    with_commit = errata_href(SiteConfig("https://x.test/", "", {}, {}, repo_url="https://github.com/o/r",
                                         commit="a" * 40), info, "sec-a", "1.2 标题", "u")
    assert "a" * 40 in parse_qs(urlsplit(with_commit).query)["body"][0]


# ------------------------------------------------------------------ --serve error overlay
def test_serve_error_overlay_can_be_dismissed(browser, tmp_path):
    from bookkit.pipeline.serve import LiveState, make_handler

    (tmp_path / "index.html").write_text("<!DOCTYPE html><html><body><main><h1>Book</h1></main></body></html>")
    state = LiveState()
    state.publish("manuscripts/01-x.md:3: unknown label `@fig-x`")
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(tmp_path, state))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        page = browser.new_page()
        url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
        page.goto(url)
        overlay = page.locator("#build-error")
        assert "unknown label" in overlay.inner_text()
        overlay.get_by_role("button").click()
        page.wait_for_selector("#build-error", state="detached")
        page.goto(url)
        assert page.locator("#build-error").is_visible()
        page.keyboard.press("Escape")
        page.wait_for_selector("#build-error", state="detached")
        assert page.locator("h1").is_visible()
        page.close()
    finally:
        server.shutdown()
        server.server_close()
