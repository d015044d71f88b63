"""Golden queries on the real book: each finds the expected section first, and Python (the
built index) and lunr.js in Chromium (the served site) rank identically."""
import pytest
from playwright.sync_api import expect

from bookkit.render.search import search

GOLDEN = {
    "zh-Hans": ("", [
        ("屋顶线", "getting-started.html#sec-getting-started-roofline"),
        ("算术强度", "getting-started.html#sec-getting-started-roofline"),
        ("Little 定律", "workloads.html#sec-workloads-arrivals"),
        ("滑动窗口", "model-architecture.html#sec-model-architecture-window"),
        ("潜向量", "model-architecture.html#sec-model-architecture-mla"),
        ("head_dim", "model-architecture.html#sec-model-architecture-head-dim"),
        ("稀疏峰值", "accelerators.html#sec-accelerators-sparse"),
        ("片上存储", "accelerators.html#sec-accelerators-onchip"),
        ("拐", "accelerators.html#sec-accelerators-ridge"),
        ("张量核", "accelerators.html#sec-accelerators-compute"),
        ("激活参数", "model-architecture.html#sec-model-architecture-moe"),
        ("数据搬运", "preface.html#sec-preface-thread"),
        ("计算器", "preface.html#sec-preface-calculator"),
        ("HBM 带宽", "accelerators.html#sec-accelerators-hbm"),
        ("prefill 阶段", "getting-started.html#sec-getting-started-phases"),
        ("MLA：缓存", "model-architecture.html#sec-model-architecture-mla"),
        ("141", "getting-started.html#sec-getting-started-glance"),
        ("功耗", "accelerators.html#sec-accelerators-power"),
        ("阶段 prefi", "getting-started.html#sec-getting-started-phases"),   # still typing
    ]),
    "en": ("en/", [
        ("roofline", "getting-started.html#sec-getting-started-roofline"),
        ("arithmetic intensity", "getting-started.html#sec-getting-started-roofline"),
        ("Little's law", "workloads.html#sec-workloads-arrivals"),
        ("sliding window", "model-architecture.html#sec-model-architecture-window"),
        ("latent", "model-architecture.html#sec-model-architecture-mla"),
        ("head_dim", "model-architecture.html#sec-model-architecture-head-dim"),
        ("sparse", "accelerators.html#sec-accelerators-sparse"),
        ("on-chip", "accelerators.html#sec-accelerators-onchip"),
        ("ridge point", "accelerators.html#sec-accelerators-ridge"),
        ("tensor cores", "accelerators.html#sec-accelerators-compute"),
        ("active parameters", "model-architecture.html#sec-model-architecture-moe"),
        ("data movement", "preface.html#sec-preface-thread"),
        ("KV cache", "getting-started.html#sec-getting-started-kv"),
        ("prefill", "getting-started.html#sec-getting-started-prefill"),
        ("bandwidths", "accelerators.html#sec-accelerators-hbm"),
        ("MLA: caching", "model-architecture.html#sec-model-architecture-mla"),
        ("141", "model-architecture.html#sec-model-architecture-example"),
        ("power", "accelerators.html#sec-accelerators-power"),
        # while typing: the last word as a prefix, after the documents that match it whole
        ("bandw", "accelerators.html#sec-accelerators-hbm"),
        ("roofl", "getting-started.html#sec-getting-started-roofline"),
        ("KV cac", "getting-started.html#sec-getting-started-kv"),
        ("ridge poi", "accelerators.html#sec-accelerators-ridge"),
    ]),
    "zh-Hant": ("zh-tw/", [
        ("屋頂線", "getting-started.html#sec-getting-started-roofline"),
        ("屋顶线", "getting-started.html#sec-getting-started-roofline"),   # Simplified query
        ("算術強度", "getting-started.html#sec-getting-started-roofline"),
        ("Little 定律", "workloads.html#sec-workloads-arrivals"),
        ("滑動視窗", "model-architecture.html#sec-model-architecture-window"),
        ("潛向量", "model-architecture.html#sec-model-architecture-mla"),
        ("稀疏峰值", "accelerators.html#sec-accelerators-sparse"),
        ("拐點", "accelerators.html#sec-accelerators-ridge"),
        ("張量核", "accelerators.html#sec-accelerators-compute"),
        ("單向", "accelerators.html#sec-accelerators-links"),
        ("啟用參數", "model-architecture.html#sec-model-architecture-moe"),
        ("資料搬運", "preface.html#sec-preface-thread"),
        ("HBM 頻寬", "accelerators.html#sec-accelerators-hbm"),
        ("prefill 階段", "getting-started.html#sec-getting-started-phases"),
        ("MLA：快取", "model-architecture.html#sec-model-architecture-mla"),
        ("141", "getting-started.html#sec-getting-started-glance"),
        ("功耗", "accelerators.html#sec-accelerators-power"),
    ]),
}


@pytest.mark.parametrize("lang", list(GOLDEN))
def test_golden_queries_python_and_browser_agree(lang, built_site, site_url, browser):
    prefix, cases = GOLDEN[lang]
    assets = {"search-index.js": (built_site / prefix / "search-index.js").read_bytes()}
    python = [search(assets, q, lang) for q, _ in cases]
    misses = [(q, want, got[:2]) for (q, want), got in zip(cases, python)
              if not got or got[0] != want]
    assert not misses, misses
    page = browser.new_page()
    page.goto(site_url + prefix + "index.html")
    page.focus("#search-input")
    page.evaluate("window.bookSearch.ready.then(() => true)")
    js = page.evaluate("qs => qs.map(q => window.bookSearch.query(q))", [q for q, _ in cases])
    page.close()
    assert js == python


def test_typed_query_shows_highlighted_results_and_opens_the_section(built_site, site_url, browser):
    page = browser.new_page()
    page.goto(site_url + "zh-tw/preface.html")
    page.keyboard.press("/")
    page.keyboard.type("滑動視窗")
    # Results may first show for the part typed so far ("滑"); wait for the whole query's.
    first = page.locator("#search-results li").first
    expect(first.locator("mark").first).to_contain_text("滑動")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url("**/zh-tw/model-architecture.html#sec-model-architecture-window")
    page.close()
