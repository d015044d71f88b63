"""Golden queries on the fixture corpus: Python side, then real lunr.js in headless Chromium."""

from __future__ import annotations

import json

import pytest

from bookkit.lunr.index import (SearchDoc, build_search_assets, expand, index_payload,
                                 index_report, load_payload, search)
from search_helpers import edition_url

LANGS = ("zh-Hans", "en", "zh-Hant")


@pytest.mark.parametrize("lang", LANGS)
def test_golden_python(corpus, assets, lang):
    golden = corpus[lang]["golden"]
    assert len(golden) >= 15
    misses = [(q, want, search(assets[lang], q, lang)[:3]) for q, want in golden if search(assets[lang], q, lang)[:1] != [want]]
    assert not misses


@pytest.mark.parametrize("lang", LANGS)
def test_golden_covers_the_required_kinds(corpus, lang):
    queries = [q for q, _ in corpus[lang]["golden"]]
    assert any(":" in q for q in queries)
    assert any(q.isdigit() for q in queries)
    if lang != "en":
        assert any(len(q) == 1 for q in queries)  # single Han character
        assert any(len(q) >= 5 and all(ord(c) > 0x2E7F for c in q) for q in queries)  # long Han term
        assert any(any(c.isascii() and c.isalpha() for c in q) and any(ord(c) > 0x2E7F for c in q) for q in queries)


def test_cross_variant_with_precision(corpus, assets):
    hant = assets["zh-Hant"]
    docs = corpus["zh-Hant"]["docs"]
    with_hanzi = [d.url for d in docs if "函數" in d.text or "函數" in d.section]
    assert search(hant, "函数", "zh-Hant") == with_hanzi == ["math.html#sec-softmax"]
    assert search(hant, "函數", "zh-Hant") == with_hanzi
    # a single character: exactly the sections containing 數, nothing else
    assert sorted(search(hant, "数", "zh-Hant")) == sorted(d.url for d in docs if "數" in d.text + d.section + d.chapter)
    # the other way round on the zh-Hans site
    hans = assets["zh-Hans"]
    assert search(hans, "函數", "zh-Hans") == ["math.html#sec-softmax"]
    # characters kept distinct (著 is a Simplified character of its own): no false merge
    extra = [SearchDoc("a.html", "c", "s", "显著提高"), SearchDoc("b.html", "c", "s", "接着计算")]
    a = build_search_assets(extra, "zh-Hans")
    assert search(a, "显著", "zh-Hans") == ["a.html"]
    assert search(a, "着", "zh-Hans") == ["b.html"]


def test_no_match_and_syntax_queries(assets):
    a = assets["zh-Hans"]
    assert search(a, "量子计算机", "zh-Hans") == []
    assert search(a, "HBM 张量并行", "zh-Hans") == []  # required terms: both must occur
    for q in ("a:b", "title:KV", "+-~*^:", "KV~2", "缓存^10", "", "   ", "the of and"):
        search(a, q, "zh-Hans")  # never raises (lunr's query parser is never used)


def test_build_is_deterministic_and_lossless(corpus):
    docs = corpus["zh-Hans"]["docs"]
    a1 = build_search_assets(docs, "zh-Hans")
    a2 = build_search_assets(list(docs), "zh-Hans")
    assert a1 == a2 and list(a1) == ["search-index.js"]
    assert a1["search-index.js"].startswith("\ufeffwindow.bookSearchIndex=".encode("utf-8"))
    payload = load_payload(a1)
    # the text is shipped once; the index is not shipped (the browser builds it), and the lunr
    # index built from the text holds no text
    shipped = a1["search-index.js"].decode("utf-8")
    assert shipped.count(docs[2].text) == 1
    assert "postings" not in payload and "terms" not in payload
    lunr_index = expand(index_payload(payload))
    assert docs[2].text not in json.dumps(lunr_index, ensure_ascii=False)
    assert all(p == {} for _, posting in lunr_index["invertedIndex"] for f, docs_ in posting.items() if f != "_index" for p in docs_.values())
    with pytest.raises(ValueError):
        build_search_assets(docs, "zh-CN")


@pytest.mark.parametrize("lang", LANGS)
def test_index_report(corpus, assets, lang):
    r = index_report(assets[lang], corpus[lang]["docs"])
    for part in ("file", "index", "titles", "charmap", "text", "plain"):
        assert r[part]["raw"] > 0 and r[part]["gzip"] > 0
    # what is shipped is the text, the titles and the fold map, not the index
    assert r["file"]["raw"] < r["text"]["raw"] + r["titles"]["raw"] + r["charmap"]["raw"] + 200
    assert r["file"]["raw"] == len(assets[lang]["search-index.js"])
    assert r["documents"] == len(corpus[lang]["docs"])
    # tiny fixture corpus: lunr's per-term overhead dominates; bounded so regressions show
    assert r["ratio"]["index_gzip"] < 2.5
    if lang == "en":
        assert r["charmap_pairs"] < 10
    else:
        assert 20 < r["charmap_pairs"] < 400


# ---------------------------------------------------------------- browser


def _js_rankings(page, url, queries):
    page.goto(url)
    page.focus("#search-input")
    page.evaluate("window.bookSearch.ready.then(() => true)")
    return page.evaluate("qs => Promise.all(qs.map(q => window.bookSearch.query(q)))", queries)


@pytest.mark.parametrize("lang", LANGS)
def test_golden_browser_http(page, server, corpus, assets, lang):
    golden = corpus[lang]["golden"]
    extra = ["函数", "数", "KV", "a:b", "量子计算机", "<img src=x>", "the", "GPU", "阶段", "階段",
             "band", "bandw ", "cach", "KV cac", "gp", "14"]
    queries = [q for q, _ in golden] + extra
    js = _js_rankings(page, edition_url(server, lang), queries)
    py = [search(assets[lang], q, lang) for q in queries]
    assert js == py
    assert [r[:1] for r in js[: len(golden)]] == [[want] for _, want in golden]
    assert not page.js_errors


def test_golden_browser_file_url(page, site, corpus, assets):
    lang = "zh-Hant"
    golden = corpus[lang]["golden"]
    queries = [q for q, _ in golden]
    js = _js_rankings(page, (site / "zh-tw" / "deep" / "serving.html").as_uri(), queries)
    assert js == [search(assets[lang], q, lang) for q in queries]
    assert [r[:1] for r in js] == [[want] for _, want in golden]
    assert not page.js_errors


def test_direct_index_matches_lunr_builder(corpus):
    """The hand-written index builder must give lunr.py's Builder's payload exactly."""
    import random

    from bookkit.lunr.cjk import build_charmap
    from bookkit.lunr.index import (SearchDoc, _compact_direct, _fields_of,
                                     compact_with_lunr_builder)

    rng = random.Random(7)
    words = ["the", "bandwidth", "keys", "running", "KV", "缓存", "带宽", "頻寬", "計算", "a-b",
             "141", "ＧＰＵ", "and", "prefill", "階段", "sky", "flies", "x:y", "mixed中文text"]
    generated = [SearchDoc(url=f"p.html#s{i}", chapter=f"Ch {i // 4}", section=f"S {i}",
                           text=" ".join(rng.choice(words) for _ in range(rng.randint(0, 40))))
                 for i in range(30)]
    for docs in [ed["docs"] for ed in corpus.values()] + [generated]:
        charmap = build_charmap(t for d in docs for t in (d.chapter, d.section, d.text))
        assert _compact_direct([_fields_of(d) for d in docs], charmap) == \
            compact_with_lunr_builder(docs, charmap)


def test_prefix_term_is_the_last_word_while_it_is_typed():
    from bookkit.lunr.index import prefix_term
    assert prefix_term("kv cac", ["kv", "cac"]) == "cac"
    assert prefix_term("kv cac ", ["kv", "cac"]) is None          # the word is finished
    assert prefix_term("kv ca", ["kv", "ca"]) is None             # too short to rank well
    assert prefix_term("阶段", ["阶段"]) is None                   # CJK: bigrams already match
    assert prefix_term("HBM3", ["hbm3"]) == "hbm3"
    assert prefix_term("", []) is None


def test_unfinished_word_finds_what_the_whole_word_finds(assets):
    for lang in LANGS:
        whole = search(assets[lang], "bandwidth", lang)
        if not whole:
            continue
        partial = search(assets[lang], "bandwi", lang)
        assert partial[0] == whole[0] and set(whole) <= set(partial), lang
        assert search(assets[lang], "bandwi ", lang) == []         # finished: whole words only


def test_lone_latin_letters_are_not_required_next_to_other_terms():
    from bookkit.lunr.index import query_terms
    assert query_terms("Little's law", {}) == ["little", "law"]
    assert query_terms("K 和 V", {}) == ["和"]
    assert query_terms("x", {}) == ["x"]                  # alone, it is the query
    assert query_terms("d_head", {}) == ["head"]            # "_" separates words
