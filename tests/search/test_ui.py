"""The search box in headless Chromium: lazy loading, results, escaping, keyboard."""

from __future__ import annotations

from playwright.sync_api import expect

from search_helpers import edition_url


def _type(page, text):
    page.focus("#search-input")
    page.evaluate("window.bookSearch.ready.then(() => true)")
    page.fill("#search-input", text)


def test_index_is_prefetched_after_load_when_idle(page, server):
    """Fetched after the load event (never on the critical path), built before any focus, in
    the search worker (the index is the worker's download, not the page's)."""
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(edition_url(server, "zh-Hans"))
    page.evaluate("window.bookSearch.ready.then(() => true)")   # no focus
    timing = page.evaluate("""() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const ui = performance.getEntriesByType('resource').find(e => e.name.includes('search-ui.js'));
        const idx = performance.getEntriesByType('resource').find(e => e.name.endsWith('search-index.js'));
        return [nav.loadEventEnd, ui ? ui.startTime : null, idx ? idx.startTime : null];
    }""")
    assert timing[1] is not None and timing[1] >= timing[0], timing
    assert timing[2] is None, "the page itself fetched the index"
    assert server + "search-index.js" in requested
    assert page.evaluate("window.bookSearch.source") == "built"
    assert page.evaluate("document.activeElement.id") != "search-input"
    assert not page.js_errors


def test_save_data_loads_the_index_only_on_focus(page, server):
    page.add_init_script("Object.defineProperty(navigator, 'connection', "
                         "{value: {saveData: true, effectiveType: '4g'}})")
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(edition_url(server, "zh-Hans"))
    page.wait_for_timeout(1500)
    assert not any(u.endswith(("search-index.js", "lunr.min.js", "search-engine.js", "search-ui.js"))
                   for u in requested)
    page.focus("#search-input")
    page.evaluate("window.bookSearch.ready.then(() => true)")
    assert server + "search-index.js" in requested
    assert server + "static/search-worker.js" in requested
    # the built worker carries lunr.js (which builds and queries the index) and the engine:
    # the browser fetches neither on its own
    assert not any(u.endswith(("static/search-engine.js", "static/lunr.min.js"))
                   for u in requested)
    assert not page.js_errors


def test_results_titles_snippet_count(page, server):
    page.goto(edition_url(server, "zh-Hans"))
    _type(page, "KV 缓存")
    results = page.locator("#search-results")
    expect(results).to_be_visible()
    expect(page.locator("#search-input")).to_have_attribute("aria-expanded", "true")
    items = results.locator("li[role=option]")
    expect(items).to_have_count(2)
    expect(page.locator("#search-status")).to_have_text("共 2 条结果")
    first = items.nth(0)
    expect(first.locator(".search-chapter")).to_have_text("第 1 章 入门")
    expect(first.locator(".search-section")).to_contain_text("1.2 KV 缓存")
    marks = first.locator(".search-snippet mark").all_text_contents()
    assert "KV" in marks and "缓存" in marks
    href = first.locator("a").get_attribute("href")
    assert href == "./getting-started.html#sec-kv-cache"


def test_highlight_folds_variants_and_stems(page, server):
    page.goto(edition_url(server, "zh-Hant"))
    _type(page, "函数")  # Simplified query, Traditional text
    expect(page.locator("#search-results li")).to_have_count(1)
    assert "函數" in page.locator("#search-results .search-snippet mark").all_text_contents()
    page.goto(edition_url(server, "en"))
    _type(page, "bandwidths")
    expect(page.locator("#search-results li").first).to_contain_text("HBM bandwidth")
    marks = page.locator("#search-results li").first.locator("mark").all_text_contents()
    assert "bandwidth" in marks


def test_results_while_the_last_word_is_typed(page, server):
    page.goto(edition_url(server, "en"))
    _type(page, "bandw")   # not a word yet: the words it starts are found and highlighted
    expect(page.locator("#search-results li").first).to_contain_text("HBM bandwidth")
    marks = page.locator("#search-results li").first.locator("mark").all_text_contents()
    assert any(m.lower().startswith("bandw") for m in marks), marks


def test_no_results_state(page, server):
    page.goto(edition_url(server, "zh-Hans"))
    _type(page, "量子计算机")
    expect(page.locator("#search-status")).to_have_text("没有找到结果")
    expect(page.locator("#search-results")).to_be_hidden()
    expect(page.locator("#search-results li")).to_have_count(0)


def test_query_is_never_html(page, server):
    page.goto(edition_url(server, "en"))
    # angle brackets in a query that has results: rendered, never parsed
    _type(page, "<b id=bold>KV</b> <cache>")
    expect(page.locator("#search-status")).to_have_text("No results")  # b, id, bold are required too
    _type(page, "<KV> <cache>")
    expect(page.locator("#search-status")).to_have_text("2 results")
    _type(page, '<img src=x onerror="window.__xss=1"><b id=bold>KV</b> cache')
    expect(page.locator("#search-status")).to_have_text("No results")
    page.wait_for_timeout(300)
    assert page.locator("img").count() == 0
    assert page.locator("#bold").count() == 0
    assert page.locator("#search-results b").count() == 0
    assert page.evaluate("window.__xss") is None
    _type(page, "<img src=x onerror=window.__xss=2>")
    expect(page.locator("#search-status")).to_have_text("No results")
    assert page.locator("img").count() == 0
    assert page.evaluate("window.__xss") is None


def test_keyboard_slash_arrows_enter(page, server):
    page.goto(edition_url(server, "zh-Hans"))
    page.click("#body")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search-input"
    assert page.input_value("#search-input") == ""  # the slash is not typed
    page.evaluate("window.bookSearch.ready.then(() => true)")
    page.keyboard.type("HBM 带宽")
    expect(page.locator("#search-results li")).to_have_count(1)
    page.keyboard.press("ArrowDown")
    expect(page.locator("#search-results li").first).to_have_class("active")
    expect(page.locator("#search-input")).to_have_attribute("aria-activedescendant", "search-result-0")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == server + "getting-started.html#sec-hbm"


def test_arrow_pressed_before_the_answer_selects_in_the_new_list(page, server):
    """A fast typist presses ArrowDown while the last keystroke's answer is still on its way:
    the move applies to the list that answers the final query, not to a stale one."""
    page.goto(edition_url(server, "zh-Hans"))
    page.evaluate("window.bookSearch.ready.then(() => true)")
    page.click("#search-input")
    page.keyboard.type("HBM 带宽", delay=0)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(page.locator("#search-results li")).to_have_count(1)   # two moves on one item: back to it
    expect(page.locator("#search-results li").first).to_have_class("active")
    expect(page.locator("#search-input")).to_have_attribute("aria-activedescendant", "search-result-0")


def test_arrow_keys_cycle_and_escape_closes(page, server):
    page.goto(edition_url(server, "zh-Hans"))
    _type(page, "缓存")
    items = page.locator("#search-results li")
    expect(items).to_have_count(2)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(items.nth(1)).to_have_class("active")
    page.keyboard.press("ArrowDown")  # wraps
    expect(items.nth(0)).to_have_class("active")
    page.keyboard.press("ArrowUp")
    expect(items.nth(1)).to_have_class("active")
    page.keyboard.press("Escape")
    expect(page.locator("#search-results")).to_be_hidden()
    expect(page.locator("#search-input")).to_have_attribute("aria-expanded", "false")
    page.keyboard.press("Escape")  # second Escape clears and leaves the box
    assert page.input_value("#search-input") == ""
    assert page.evaluate("document.activeElement.id") != "search-input"


def test_links_from_a_subdirectory_page(page, server):
    # the page is deep/serving.html: data-root="../", data-static="../../static/" (en edition)
    page.goto(edition_url(server, "en", "deep/serving.html"))
    _type(page, "KV cache")
    href = page.locator("#search-results li a").first.evaluate("a => a.href")
    assert href == server + "en/getting-started.html#sec-kv-cache"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == server + "en/inference.html#sec-decode"
    assert page.locator("#body").text_content() == "en:inference.html"
    assert not page.js_errors


def test_enter_without_arrow_opens_first_result_via_file_url(page, site):
    page.goto((site / "index.html").as_uri())
    _type(page, "prefill 阶段")
    expect(page.locator("#search-results li")).to_have_count(1)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == (site / "inference.html").as_uri() + "#sec-prefill"
