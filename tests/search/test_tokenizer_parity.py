"""The Python tokeniser (bookkit/lunr/cjk.py) and the JS one (website/static/search.js) agree.

All strings go through one Node process. The same process also runs lunr.js's stemmer, stop
word filter, the index build from the shipped text and its expansion, and the glossary's query
rewriting, compared with lunr.py and search.py.
"""

from __future__ import annotations

import json
import random
import subprocess
import unicodedata
from pathlib import Path

import pytest
from lunr.stop_word_filter import stop_word_filter
from lunr.token import Token

from bookkit.lunr.cjk import build_charmap, fold_map, tokenize
from bookkit.lunr.index import (Synonyms, build_search_assets, expand, glossary_synonyms,
                                 index_payload, load_payload, rewrite_query, stem_js)
from search_helpers import LUNR_JS, ROOT, STATIC, load_corpus

NODE = "node"

POOLS = {
    "han_s": "缓存带宽显存预填充解码阶段张量并行函数数据模型推理注意力词元吞吐延迟量化门们这个说对后发于里干着",
    "han_t": "快取頻寬記憶體預填充解碼階段張量平行函數數據模型推論注意力詞元吞吐延遲量化門們這個說對後發於裡乾著髮麵臺",
    "han_rare": "\u3400\u4db5\u9fa5\U00020000\U0002a6d6\U0002b740\U00030000\uf900\ufa0e\u2f00\u2e80\u3007\u3005",
    "kana_hangul": "ひらがなカタカナｶﾀｶﾅー한국어ㄱ\u3131ㄅㄆ",
    "latin": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "accent": "éèüÖçñÅßẞİıǅ\u0301\u0308ﬁﬀΣσςΑΒΓΔабвгДЖ",
    "digits": "0123456789½²³①Ⅻ٣",
    "fullwidth": "ＡＢＣｘｙｚ０１２３",
    "punct": " \t\n\u3000.,;:!?-_/()[]{}<>'\"@#$%^&*+=|\\~`，。、；：！？（）【】《》「」『』…—·",
    "emoji": "😀👍🏽❤️\u200d🔥🇨🇳✅\ufe0f",
    "format": "\u00ad\u200b\u200c\u200d\ufeff\u2060",
    "marks": "\u0301\u0308\u20dd\U000e0100\u093f\u094d",
    "other": "क्षिمرحباשלוםไทย",
}
WORDS = [
    "bandwidth", "bandwidths", "caching", "cache", "cached", "decoding", "decode", "prefill", "batches",
    "batching", "quantization", "quantized", "parallelism", "softmax", "functions", "generational",
    "relational", "hopeful", "the", "and", "is", "tokens", "throughput", "utilisation", "latencies",
    "running", "agreed", "happy", "sky", "hbm3e", "141", "fp8", "h100", "nvlink", "a", "i", "yet",
    "memory", "memories", "operator", "operational", "computing", "compute", "compress", "sizes",
    "key", "keys", "sky", "array", "display", "displayed", "they", "why", "yelling", "yes", "yyy",
    "syzygy", "hopping", "filing", "controlling", "rolling", "agreement", "conditional", "feed",
    "bled", "sized", "failing", "probate", "rate", "cease", "generalization", "oscillators",
    "𐐀𐐨s", "𝐀bcy", "caf\u00e9s", "na\u00efvety",
]


def generated_strings(n: int = 400, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    names = sorted(POOLS)
    out = ["", " ", "KV 缓存", "HBM 带宽", "prefill 阶段", "a:b", "ＫＶ　快取", "函數", "Σ", "ΑΣ ΑΣ.", "İstanbul"]
    while len(out) < n:
        chosen = rng.sample(names, rng.randint(1, 4))
        length = rng.randint(1, 30)
        s = "".join(rng.choice(POOLS[rng.choice(chosen)]) for _ in range(length))
        out.append(s)
    # every code point must be assigned in Python's Unicode database (Node's may be newer)
    for s in out:
        for ch in s:
            assert unicodedata.category(ch) != "Cn", hex(ord(ch))
    return out


NODE_SCRIPT = r"""
const fs = require("fs");
// with `node -e`, process.argv is [node, ...args]
const lunr = require(process.argv[1]);
const s = require(process.argv[2]);
s.use(lunr);
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const out = {
  index: input.strings.map((x) => s.tokenize(x, input.charmap, false)),
  query: input.strings.map((x) => s.tokenize(x, input.charmap, true)),
  plain: input.strings.map((x) => s.tokenize(x)),
  stem: input.words.map((w) => lunr.stemmer(new lunr.Token(w)).toString()),
  stop: input.words.map((w) => lunr.stopWordFilter(new lunr.Token(w)) === undefined),
  built: s.buildIndex(input.payload, s.charmapFromString(input.payload.charmap)).toJSON(),
  idf: input.idfArgs.map(([n, d]) => lunr.idf({_index: 0, f: new Array(d).fill(0)}, n)),
  rewritten: input.rewrite.map((q) => s.rewriteQuery(q, s.charmapFromString(input.synPayload.charmap),
                                                      s.synonymsFrom(input.synPayload))),
};

process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def node_run(assets):
    strings = generated_strings()
    charmap = fold_map()
    corpus_words = {w for ed in load_corpus().values() for d in ed["docs"] for w in tokenize(d.text)}
    license_text = Path("/usr/share/common-licenses/GPL-3")  # ~1,600 distinct English words
    if license_text.exists():
        corpus_words |= set(tokenize(license_text.read_text("utf-8")))
    words = WORDS + sorted(corpus_words) + sorted({t for s in strings for t in tokenize(s) if not any(ord(c) > 0x2E7F for c in t)})
    # lunr.idf for every document frequency at document counts around the book's (a few hundred
    # sections per edition) and beyond
    idf_args = [[n, d] for n in (7, 50, 123, 250, 333, 512, 800, 1200, 2000) for d in range(1, n + 1)]
    payload = load_payload(assets["zh-Hant"])
    syn_payload = load_payload(_synonym_assets())
    data = json.dumps(
        {"strings": strings, "charmap": charmap, "words": words, "idfArgs": idf_args, "payload": payload,
         "synPayload": syn_payload, "rewrite": REWRITE_QUERIES},
        ensure_ascii=False,
    )
    proc = subprocess.run(
        [NODE, "-e", NODE_SCRIPT, str(LUNR_JS), str(STATIC / "search-engine.js")],
        input=data.encode("utf-8"),
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    result = json.loads(proc.stdout)
    return {"strings": strings, "charmap": charmap, "words": words, "idf_args": idf_args, "payload": payload,
            "syn_payload": syn_payload, **result}


def _synonym_assets():
    """A zh-Hant corpus with the zh-tw edition's glossary as synonyms."""
    docs = [d for d in load_corpus()["zh-Hant"]["docs"]]
    en = glossary_synonyms(ROOT / "book-en")
    tw = glossary_synonyms(ROOT / "book-zh-tw")
    both = Synonyms(tuple(sorted(en.pairs + tw.pairs)), tuple(sorted(en.keep + tw.keep)))
    return build_search_assets(docs, "zh-Hant", both)


#: queries for the glossary rewriting: Mainland forms in both scripts, allowed compounds,
#: the edition's own forms, mixed text
REWRITE_QUERIES = ["带宽", "帶寬", "HBM 带宽", "显存带宽", "顯存", "内存", "推理", "推理模型", "推理模型推理",
                   "片上", "晶片上", "张量并行", "張量並行度", "頻寬", "", "bandwidth", "数据中心网络",
                   "笔记本电脑", "ＫＶ　缓存", "质量流量与质量", "behaviour", "behaviours of GPUs",
                   "misbehaviour", "optimised", "optimisedx", "data centre networks", "datacentres",
                   "KV-cache size", "VRAM", "pre-fill 带宽"]


def test_generated_set_is_varied(node_run):
    strings = node_run["strings"]
    assert len(strings) >= 300
    joined = "".join(strings)
    for pool in ("han_rare", "emoji", "fullwidth", "format", "marks"):
        assert any(ch in joined for ch in POOLS[pool]), pool


@pytest.mark.parametrize("mode", ["index", "query", "plain"])
def test_tokenizer_parity(node_run, mode):
    cmap = node_run["charmap"]
    mismatches = []
    for s, js in zip(node_run["strings"], node_run[mode]):
        if mode == "plain":
            py = tokenize(s)
        else:
            py = tokenize(s, cmap, query=(mode == "query"))
        if py != js:
            mismatches.append((s, py, js))
    assert not mismatches, mismatches[:5]


def test_stemmer_and_stop_words_parity(node_run):
    py_stem = [stem_js(w) for w in node_run["words"]]
    py_stop = [stop_word_filter(Token(w)) is None for w in node_run["words"]]
    assert py_stem == node_run["stem"]   # search.py, lunr.js (which search-engine.js runs)
    assert py_stop == node_run["stop"]
    assert len(node_run["words"]) > 200
    # the reason stem_js exists: lunr.py's own stemmer disagrees with lunr.js on these
    from lunr.stemmer import stemmer

    assert str(stemmer(Token("key"))) == "kei" and stem_js("key") == "key"


def test_idf_is_lunr_js_idf_to_the_last_place(node_run):
    """search.py's idf (math.log, glibc) and lunr.js's (V8's Math.log, fdlibm) differ at most in
    the last place, at every document frequency of the document counts tried; a field score is
    rounded to 3 decimals, which such a difference changes only when the score lies within
    ~1e-13 of a rounding boundary (`test_index_build_parity` compares the rounded scores)."""
    import math

    py = [math.log(1 + abs((n - d + 0.5) / (d + 0.5))) for n, d in node_run["idf_args"]]
    assert all(abs(p - j) <= math.ulp(p) for p, j in zip(py, node_run["idf"]))
    assert sum(p == j for p, j in zip(py, node_run["idf"])) > 0.8 * len(py)


def test_index_build_parity(node_run):
    """lunr.js's Builder, fed the shipped text by search-engine.js, builds exactly the index
    search.py builds (terms, postings, BM25 field vectors): the ranking on it is compared with
    lunr.py's in the browser tests."""
    ours = expand(index_payload(node_run["payload"]))
    built = node_run["built"]
    assert built["fields"] == ours["fields"] and built["pipeline"] == ours["pipeline"]
    assert dict(map(tuple, built["fieldVectors"])) == dict(map(tuple, ours["fieldVectors"]))
    assert dict(built["invertedIndex"]) == dict(ours["invertedIndex"])
    assert len(built["invertedIndex"]) > 100 and any(v for _, v in built["fieldVectors"])


def test_glossary_rewrite_parity(node_run):
    from bookkit.lunr.cjk import charmap_from_string
    from bookkit.lunr.index import synonyms_of
    payload = node_run["syn_payload"]
    charmap = charmap_from_string(payload["charmap"])
    synonyms = synonyms_of(payload)
    py = [rewrite_query(q, charmap, synonyms) for q in REWRITE_QUERIES]
    assert py == node_run["rewritten"]
    got = dict(zip(REWRITE_QUERIES, py))
    assert got["带宽"] == got["帶寬"] == "频宽" and got["HBM 带宽"] == "hbm 频宽"
    assert got["显存带宽"] == "记忆体频宽"
    assert got["推理"] == "推论" and got["推理模型"] is None and got["推理模型推理"] == "推理模型推论"
    assert got["晶片上"] is None and got["片上"] == "晶片上"
    assert got["张量并行"] == "张量平行"           # a compound keeps its head
    assert got["頻寬"] is None and got["bandwidth"] is None and got[""] is None
    # Latin forms: whole words, a trailing * any ending
    assert got["behaviours of GPUs"] == "behavior of gpus" and got["misbehaviour"] is None
    assert got["optimised"] == "optimization" and got["optimisedx"] is None
    assert got["data centre networks"] == "datacenter networks" and got["datacentres"] == "datacenter"


def test_examples():
    cmap = build_charmap(["函数缓存"])
    assert tokenize("KV 缓存") == ["kv", "缓", "缓存", "存"]
    assert tokenize("KV 缓存", query=True) == ["kv", "缓存"]
    assert tokenize("键", query=True) == ["键"]
    assert tokenize("函數", cmap, query=True) == ["函数"]
    assert tokenize("ＫＶ１４１ bandwidths,HBM3e") == ["kv141", "bandwidths", "hbm3e"]
    assert tokenize("a:b <img src=x>") == ["a", "b", "img", "src", "x"]
    assert tokenize("😀 ❤️ 🇨🇳") == []
    assert tokenize("band\u00adwidth") == ["bandwidth"]


def test_examples_marks_and_format_characters():
    # a combining mark extends a word, is dropped inside a CJK run, and after a separator
    assert tokenize("cafe\u0301 au") == ["café", "au"]
    assert tokenize("e\u0301") == ["é"]
    assert tokenize("中\ufe0f文") == ["中", "中文", "文"]
    assert tokenize(" \u0301中") == ["中"]
    # a zero-width joiner neither joins nor splits; a mark between a word and a CJK run
    assert tokenize("ab\u200dcd 中\u200b文") == ["abcd", "中", "中文", "文"]
    assert tokenize("ab\u0301中") == ["ab\u0301", "中"]


def test_shipped_fold_table_is_what_opencc_computes():
    """cjk_fold.txt is generated data; after an OpenCC upgrade, regenerate it with
    `python -m bookkit.lunr.cjk` (this test says so by failing)."""
    import importlib.metadata

    from bookkit.lunr.cjk import FOLD_TABLE, compute_fold_map, fold_table_text

    expected = fold_table_text(compute_fold_map(), importlib.metadata.version("opencc"))
    assert FOLD_TABLE.read_text(encoding="utf-8") == expected, (
        "bookkit/lunr/cjk_fold.txt is stale: run `python -m bookkit.lunr.cjk`")
    assert len(fold_map()) > 3000 and fold_map()["體"] == "体"
