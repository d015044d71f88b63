"""Tests for bookkit.check.pair: normalisation per language, the fixture corpus, seeded faults."""

import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bookkit.check.pair import (Difference, check_pair, extract_numbers, parse_zh_numeral,
                                 value_text)

FIX = ROOT / "tests" / "fixtures" / "translation"
ORIGINAL = (FIX / "original.md").read_text(encoding="utf-8")
TRANSLATIONS = {"en": (FIX / "en.md").read_text(encoding="utf-8"),
                "zh-tw": (FIX / "zh-tw.md").read_text(encoding="utf-8")}
FAULTS = json.loads((FIX / "faults.json").read_text(encoding="utf-8"))


def nums(text, lang):
    return sorted((value_text(n.value), n.unit if n.unit != "token" else None)
                  for n in extract_numbers(text, lang))


# --- the same number written three ways ---------------------------------------------------

EQUIVALENT = [
    ("约 705.54 亿个参数", "about 70.554 billion parameters", "約 705.54 億個參數"),
    ("1.5 万亿", "1.5 trillion", "1.5 兆"),
    ("1.5 万亿", "1.5 trillion", "1.5 萬億"),
    ("20%—30%", "20%–30%", "20%—30%"),
    ("20%—30%", "20–30%", "20%～30%"),
    ("约 1.19—1.32 倍", "about 1.19–1.32 times", "約 1.19—1.32 倍"),
    ("六千万个包", "sixty million packets", "六千萬個封包"),
    ("一千万至两千万", "ten to twenty million", "一千萬至兩千萬"),
    ("一千万至两千万", "10–20 million", "1000 萬至 2000 萬"),
    ("两张卡", "two GPUs", "兩張卡"),
    ("2015 年末", "late 2015", "2015 年末"),
    ("3,000 与 150,000,000", "3,000 and 150,000,000", "3,000 與 150,000,000"),
    ("１２８", "128", "１２８"),
    ("３，０００", "3,000", "3,000"),
    ("$70{,}553{,}706{,}496$", "$70{,}553{,}706{,}496$", "70,553,706,496"),
    ("1.2e9", "1.2×10^9", "1.2×10⁹"),
    ("$1.2 \\times 10^{9}$", "1.2E9", "1.2 × 10^9"),
    ("1.50", "1.5", "1.500"),
    ("70B 模型", "a 70B model", "70B 模型"),
    ("700 亿参数", "70 billion parameters", "700 億參數"),
    ("128K 上下文", "a 128K context", "128K 上下文"),
    ("4096 个 token", "4,096 tokens", "4096 個 token"),
    ("三分之一", "one third", "三分之一"),
    ("四分之三", "three quarters", "1/4".replace("1/4", "四分之三")),
    ("百分之二十", "20 percent", "20%"),
    ("九成", "90%", "九成"),
    ("一两个", "one or two", "一兩個"),
    ("三四个", "three or four", "三四個"),
    ("二十五个", "twenty-five", "二十五個"),
    ("一百二十八层", "one hundred and twenty-eight layers", "一百二十八層"),
    ("一百万", "a million", "一百萬"),
    ("两次", "twice", "兩次"),
    ("2024 年 3 月", "March 2024", "2024 年 3 月"),
    ("第 3 个", "the 3rd", "第 3 個"),
    ("141.11 GB", "141.11 GB", "141.11 GB"),
    ("80GB", "80 GB", "80 GB"),
    ("3.2 μs", "3.2 µs", "3.2 μs"),
    ("$3.2\\,\\mu\\mathrm{s}$", "3.2 μs", "3.2 μs"),
    ("$705.54\\,\\text{亿}$", "$70.554\\,\\text{billion}$", "$705.54\\,\\text{億}$"),
    ("$12.5\\%$", "12.5%", "12.5%"),
    ("约 ~20 ms", "about 20 ms", "約 20 ms"),
]


@pytest.mark.parametrize("zh, en, tw", EQUIVALENT)
def test_equivalent_forms(zh, en, tw):
    expected = nums(zh, "zh-Hans")
    assert expected, f"nothing read from {zh!r}"
    assert nums(en, "en") == expected
    assert nums(tw, "zh-Hant") == expected


@pytest.mark.parametrize("text, lang", [
    ("一些 一起 一般 统一 唯一 一致 之一 一旦 进一步 第一 第二 万一 一定 一样 一直", "zh-Hans"),
    ("二进制 两者 十分 千万不要 四舍五入 三角 成千上万 数百万 几十 数千", "zh-Hans"),
    ("一張卡 一些 萬一 兩者 進一步 統一", "zh-Hant"),
    ("one of the first, a single GPU, once more, no one, one another, the second", "en"),
    ("millions of users, hundreds of GPUs, per million, May we", "en"),
    ("see `batch = 256` and [the docs](https://example.com/v2/page-42) and <https://x.org/1>", "en"),
    ('<img src="a-12.png" width="300"> {#sec-x1} [^3] @fig-2 {.class width="80%"}', "en"),
    ("GPT-4 on H100 with FP8 and CUDA 12.4.1", "en"),
    ("{{ p | count sig=5 }}", "en"),
])
def test_not_numbers(text, lang):
    assert [n.text for n in extract_numbers(text, lang) if n.text not in ("4",)] == [], text


def test_identifier_numbers_are_symmetric():
    # glued identifiers are read the same way in every edition, so they never differ
    assert nums("GPT-4 与 Qwen3-8B", "zh-Hans") == nums("GPT-4 and Qwen3-8B", "en")


@pytest.mark.parametrize("run, value", [
    ("六千万", 60_000_000), ("一千万", 10_000_000), ("两千万", 20_000_000), ("十二", 12),
    ("二十", 20), ("一百零八", 108), ("三万亿", 3 * 10**12), ("五亿三万", 500_030_000),
    ("一亿二千万", 120_000_000), ("十", 10), ("万一", None), ("百万", None), ("三四", None),
])
def test_parse_zh_numeral(run, value):
    assert parse_zh_numeral(run, "zh-Hans") == value


def test_zh_hant_zhao_is_trillion_but_not_in_zh_hans():
    assert parse_zh_numeral("三兆", "zh-Hant") == 3 * 10**12
    assert nums("1.5 兆", "zh-Hant") == [("1500000000000", None)]
    assert nums("1.5 兆", "zh-Hans") == [("1.5", None)]


def test_value_text():
    assert value_text(Fraction(3, 2)) == "1.5"
    assert value_text(Fraction(1, 3)) == "1/3"
    assert value_text(Fraction(70554000000)) == "70554000000"
    assert value_text(Fraction(-1, 8)) == "-0.125"


def test_units_are_kept_verbatim_and_distinct():
    assert nums("141.11 GB", "en") != nums("141.11 GiB", "en")
    assert nums("989 TFLOPS", "en") != nums("989 TFLOP/s", "en")
    assert nums("400 Gbit/s", "en") == [("400", "Gbit/s")]


# --- the fixture corpus -------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh-tw"])
def test_clean_pairs_have_no_findings(lang):
    assert check_pair(ORIGINAL, TRANSLATIONS[lang], lang) == []


def test_original_against_itself_zh_tw_has_no_findings():
    assert check_pair(ORIGINAL, ORIGINAL, "zh-tw") == []


def test_fault_list_covers_the_required_kinds():
    names = " ".join(f["name"] for f in FAULTS)
    for needle in ("changed digit", "magnitude", "dropped number", "extra number", "GB -> GiB",
                   "range end", "number word", "table cell", "math", "bound reference"):
        assert needle in names


@pytest.mark.parametrize("fault", FAULTS, ids=[f["name"] for f in FAULTS])
def test_seeded_fault_is_caught_at_the_right_line(fault):
    base = TRANSLATIONS[fault["base"]]
    assert base.count(fault["find"]) == 1, f"fixture text {fault['find']!r} must occur once"
    broken = base.replace(fault["find"], fault["replace"])
    findings = check_pair(ORIGINAL, broken, fault["base"])
    got = sorted(((f.kind, f.translation_line, f.original_line) for f in findings), key=repr)
    want = sorted((tuple(e) for e in fault["expect"]), key=repr)
    assert got == want, [f.message for f in findings]
    for f in findings:
        assert f.message and "\n" not in f.message


def test_changed_finding_carries_values_and_unit():
    broken = TRANSLATIONS["en"].replace("that is 141.11 GB.", "that is 141.11 GiB.")
    (f,) = check_pair(ORIGINAL, broken, "en")
    assert (f.kind, f.value, f.unit) == ("changed", "141.11", "GB")
    assert "GiB" in f.message and "unit" in f.message
    assert set(f.to_dict()) == {"kind", "value", "unit", "original_line", "translation_line", "message",
                                "severity", "section"}
    assert f.severity == "high" and f.section == "参数与显存"


def test_finding_is_frozen():
    f = Difference("extra", "1", None, None, 3, "m")
    with pytest.raises(Exception):
        f.kind = "missing"  # type: ignore[misc]


def test_headings_without_ids_align_by_position():
    orig = "# 标题\n\n共 3 张卡。\n\n## 小节\n\n延迟 5 ms。\n"
    ok = "# Title\n\nThree cards in all.\n\n## Subsection\n\nLatency is 5 ms.\n"
    bad = "# Title\n\nThree cards in all.\n\n## Subsection\n\nLatency is 6 ms.\n"
    assert check_pair(orig, ok, "en") == []
    (f,) = check_pair(orig, bad, "en")
    assert (f.kind, f.original_line, f.translation_line) == ("changed", 7, 7)


def test_numbers_moved_between_sections_are_findings():
    orig = "# A {#sec-a}\n\n带宽 3 TB/s。\n\n## B {#sec-b}\n\n没有数字。\n"
    trans = "# A {#sec-a}\n\nThe bandwidth.\n\n## B {#sec-b}\n\nIt is 3 TB/s.\n"
    kinds = sorted(f.kind for f in check_pair(orig, trans, "en"))
    assert kinds == ["extra", "missing"]


def test_ordinals_in_chinese_numerals_and_english_words_are_ignored():
    orig = "# A {#sec-a}\n\n第一步和第二步都很快。\n"
    trans = "# A {#sec-a}\n\nThe first and second steps are both fast.\n"
    assert check_pair(orig, trans, "en") == []


def test_han_in_code_and_zh_spans_is_not_leftover():
    orig = "# A {#sec-a}\n\n分词示例。\n"
    trans = ('# A {#sec-a}\n\nTokenising `"你好"` and <span lang="zh-Hans">猫</span>.\n\n'
             "```\n中文 = 1\n```\n")
    assert check_pair(orig, trans, "en") == []


def test_zh_tw_is_not_checked_for_leftover_han():
    orig = "# A {#sec-a}\n\n分词示例。\n"
    assert check_pair(orig, "# A {#sec-a}\n\n分詞範例。\n", "zh-tw") == []


def test_bad_language():
    with pytest.raises(ValueError):
        check_pair("", "", "fr")
