"""Golden queries on the real book: each finds the expected section first, and Python (the
built index) and lunr.js in Chromium (the served site) rank identically."""
import pytest
from playwright.sync_api import expect

from bookkit.render.search import search

GOLDEN = {
    "zh-Hans": ("", [
        ("屋顶线", "operators-runtime.html#sec-operators-runtime-roofline"),
        ("算术强度", "getting-started.html#sec-getting-started-roofline"),
        ("Little 定律", "scheduling-environments.html#sec-scheduling-environments-little"),
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
        ("141", "model-architecture.html#sec-model-architecture-example"),
        ("功耗", "accelerators.html#sec-accelerators-power"),
        ("阶段 prefi", "getting-started.html#sec-getting-started-phases"),   # still typing
        # chapters 5-12
        ('FlashAttention', 'operators-runtime.html#sec-operators-runtime-flash'),
        ('CUDA Graphs', 'operators-runtime.html#sec-operators-runtime-launch'),
        ('波量化', 'operators-runtime.html#sec-operators-runtime-waves'),
        ('NVL72', 'supernodes.html#sec-supernodes-nvl72'),
        ('胖树', 'datacenter-networks.html#sec-datacenter-networks-topology'),
        ('ECMP', 'datacenter-networks.html#sec-datacenter-networks-ecmp'),
        ('busbw', 'datacenter-networks.html#sec-datacenter-networks-busbw'),
        ('前缀缓存', 'inference-optimization.html#sec-inference-optimization-prefix'),
        ('分块预填充', 'inference-optimization.html#sec-inference-optimization-chunked'),
        ('冗余专家', 'distributed-inference.html#sec-distributed-inference-imbalance'),
        ('冷启动', 'distributed-inference.html#sec-distributed-inference-cold-start'),
        ('流水线气泡', 'training-systems.html#sec-training-systems-bubbles'),
        ('ZeRO', 'training-systems.html#sec-training-systems-zero'),
        ('Erlang C', 'scheduling-environments.html#sec-scheduling-environments-erlang'),
        ('MIG', 'scheduling-environments.html#sec-scheduling-environments-sharing'),
        ('级联', 'device-edge-cloud.html#sec-device-edge-cloud-example-cascade'),
        ('每词元能耗', 'device-edge-cloud.html#sec-device-edge-cloud-energy'),
    ]),
    "en": ("en/", [
        ("roofline", "operators-runtime.html#sec-operators-runtime-roofline"),
        ("arithmetic intensity", "getting-started.html#sec-getting-started-roofline"),
        ("Little's law", "scheduling-environments.html#sec-scheduling-environments-little"),
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
        ("prefill", "distributed-inference.html#sec-distributed-inference-disaggregation"),
        ("bandwidths", "datacenter-networks.html#sec-datacenter-networks-busbw"),
        ("MLA: caching", "model-architecture.html#sec-model-architecture-mla"),
        ("141", "model-architecture.html#sec-model-architecture-example"),
        ("power", "supernodes.html#sec-supernodes-power"),
        # while typing: the last word as a prefix, after the documents that match it whole
        ("bandw", "datacenter-networks.html#sec-datacenter-networks-busbw"),
        ("roofl", "operators-runtime.html#sec-operators-runtime-roofline"),
        ("KV cac", "getting-started.html#sec-getting-started-kv"),
        ("ridge poi", "accelerators.html#sec-accelerators-ridge"),
        # chapters 5-12
        ('FlashAttention', 'operators-runtime.html#sec-operators-runtime-flash'),
        ('CUDA Graphs', 'operators-runtime.html#sec-operators-runtime-launch'),
        ('wave quantization', 'operators-runtime.html#sec-operators-runtime-waves'),
        ('when tensor parallelism stops paying', 'supernodes.html#sec-supernodes-tp-breakeven'),
        ('NVL72', 'supernodes.html#sec-supernodes-nvl72'),
        ('fat tree', 'datacenter-networks.html#sec-datacenter-networks-topology'),
        ('ECMP', 'datacenter-networks.html#sec-datacenter-networks-ecmp'),
        ('bus bandwidth', 'datacenter-networks.html#sec-datacenter-networks-busbw'),
        ('speculative decoding', 'inference-optimization.html#sec-inference-optimization-speculative'),
        ('chunked prefill', 'inference-optimization.html#sec-inference-optimization-chunked'),
        ('prefix caching', 'inference-optimization.html#sec-inference-optimization-prefix'),
        ('cold start', 'distributed-inference.html#sec-distributed-inference-cold-start'),
        ('pipeline bubble', 'training-systems.html#sec-training-systems-bubbles'),
        ('Erlang C', 'scheduling-environments.html#sec-scheduling-environments-erlang'),
        ('MIG', 'scheduling-environments.html#sec-scheduling-environments-sharing'),
        ('energy per token', 'device-edge-cloud.html#sec-device-edge-cloud-energy'),
        ('ZeRO', 'training-systems.html#sec-training-systems-zero'),
        ('fusion', 'operators-runtime.html#sec-operators-runtime-fusion'),
    ]),
    "zh-Hant": ("zh-tw/", [
        ("屋頂線", "operators-runtime.html#sec-operators-runtime-roofline"),
        ("屋顶线", "operators-runtime.html#sec-operators-runtime-roofline"),   # Simplified query
        ("算術強度", "getting-started.html#sec-getting-started-roofline"),
        ("Little 定律", "scheduling-environments.html#sec-scheduling-environments-little"),
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
        ("141", "model-architecture.html#sec-model-architecture-example"),
        ("功耗", "accelerators.html#sec-accelerators-power"),
        # chapters 5-12
        ('FlashAttention', 'operators-runtime.html#sec-operators-runtime-flash'),
        ('胖樹', 'datacenter-networks.html#sec-datacenter-networks-topology'),
        ('前綴快取', 'inference-optimization.html#sec-inference-optimization-prefix'),
        ('冗餘專家', 'distributed-inference.html#sec-distributed-inference-imbalance'),
        ('管線氣泡', 'training-systems.html#sec-training-systems-bubbles'),
        ('Erlang C', 'scheduling-environments.html#sec-scheduling-environments-erlang'),
        ('級聯', 'device-edge-cloud.html#sec-device-edge-cloud-example-cascade'),
        ('NVL72', 'supernodes.html#sec-supernodes-nvl72'),
        ('CUDA Graphs', 'operators-runtime.html#sec-operators-runtime-launch'),
        ('ECMP', 'datacenter-networks.html#sec-datacenter-networks-ecmp'),
        ('分塊預填充', 'inference-optimization.html#sec-inference-optimization-chunked'),
        ('冷啟動', 'distributed-inference.html#sec-distributed-inference-cold-start'),
        ('ZeRO', 'training-systems.html#sec-training-systems-zero'),
        ('MIG', 'scheduling-environments.html#sec-scheduling-environments-sharing'),
        ('每詞元能耗', 'device-edge-cloud.html#sec-device-edge-cloud-energy'),
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
