"""The false-alarm patterns seen on a real book and its community translation (issue 15), one
test each, on invented text: figure captions written twice, typed labels, counting words,
English number-word grammar, unit spellings and precision, magnitude words without digits,
and sections aligned by their headings when there are no IDs. Each test also keeps a real
discrepancy of the same shape reported, so that the fix is not a blind spot."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bookkit.check.pair import (align_sections, check_pair, extract_numbers, parse_document,
                                 value_text)


def nums(text, lang):
    return [value_text(n.value) + (n.unit or "") for n in extract_numbers(text, lang)
            if not n.soft]


def kinds(orig, trans, lang="en"):
    return sorted((f.kind, f.value) for f in check_pair(orig, trans, lang))


# --- 1. captions written twice ------------------------------------------------------------

FIG_ZH = ("# 带宽\n\n显存带宽决定解码速度。\n\n"
          "![图 3-3 三代 GPU 的带宽：2.0、3.35 与 8 TB/s](images/bw.svg)\n\n"
          "*图 3-3 三代 GPU 的带宽：2.0、3.35 与 8 TB/s*\n")
FIG_EN = ("# Bandwidth\n\nMemory bandwidth sets the decode speed.\n\n"
          "![](images/bw.svg)\n\n*Figure 3-3: Bandwidth of three GPU generations: 2.0, 3.35 and 8 TB/s*\n")


def test_caption_written_as_alt_text_and_italic_line_counts_once():
    assert check_pair(FIG_ZH, FIG_EN, "en") == []
    # the translation that keeps both forms is just as clean
    both = FIG_EN.replace("![](", "![Figure 3-3: Bandwidth of three GPU generations: 2.0, 3.35 and 8 TB/s](")
    assert check_pair(FIG_ZH, both, "en") == []
    # a caption number changed in the one caption the translation has is still found
    bad = FIG_EN.replace("3.35 and 8", "3.35 and 9")
    assert kinds(FIG_ZH, bad) == [("changed", "8")]


def test_alt_text_alone_is_read():
    zh = "# 图\n\n![三代 GPU 的带宽为 8 TB/s](a.svg)\n"
    assert kinds(zh, "# Fig\n\n![Three GPU generations reach 8 TB/s](a.svg)\n") == []
    assert kinds(zh, "# Fig\n\n![Three GPU generations reach 9 TB/s](a.svg)\n") == [("changed", "8")]


# --- 2. typed labels ----------------------------------------------------------------------

@pytest.mark.parametrize("zh, en", [
    ("如图 7-2 所示", "as Figure 7-2 shows"),
    ("见 7.4 节", "see Section 7.4"),
    ("第 6 章讨论过", "Chapter 6 discussed it"),
    ("练习 3-1 与实验 7-11", "Exercise 3-1 and Lab 7-11"),
    ("表 2 列出", "Table 2 lists"),
    ("第 2—5 章", "Chapters 2–5"),
    ("算法 0 与算法 1", "Algorithms 0 and 1"),
    ("代码见 [code/ch07/train_7_2.py](../code/ch07/train_7_2.py)", "see [code/ch07/train_7_2.py](x)"),
])
def test_labels_are_not_data(zh, en):
    assert nums(zh, "zh-Hans") == [] and nums(en, "en") == []


def test_a_label_the_translation_drops_is_silent_and_a_changed_label_is_found():
    zh = "# 一\n\n如图 7-2 所示，延迟为 12 ms，见 7.4 节。\n"
    assert check_pair(zh, "# One\n\nThe figure below shows a latency of 12 ms (see Section 7.4).\n", "en") == []
    (f,) = check_pair(zh, "# One\n\nFigure 7-3 shows a latency of 12 ms (Section 7.4).\n", "en")
    assert (f.kind, f.value, f.severity) == ("changed", "7-2", "medium") and "label" in f.message


def test_label_numbers_do_not_pair_with_leftover_numbers():
    zh = "# 一\n\n如图 7-2 所示，吞吐为 300 GB/s。\n"
    en = "# One\n\nThe throughput is 300 GB/s, 7 times more (Figure 7-2).\n"
    assert kinds(zh, en) == [("extra", "7")]


# --- 3. counting words in paraphrase ------------------------------------------------------

@pytest.mark.parametrize("zh, en", [
    ("两张卡的带宽都是 3.35 TB/s。", "Both GPUs reach 3.35 TB/s."),
    ("两者的带宽都是 3.35 TB/s。", "The two reach 3.35 TB/s each."),
    ("原因有二：一是带宽，二是容量。", "There are reasons: first bandwidth, second capacity."),
    ("二叉树的二阶导数，二项分布，其二。", "A binary tree's second derivative, a binomial distribution, and the other."),
    ("十进制下", "in decimal"),
    ("第 99 百分位的延迟为 80 ms。", "The 99th percentile latency is 80 ms."),
    ("等十分钟。", "Wait 10 minutes."),
    ("切成两半。", "Cut into two halves."),
])
def test_counting_words_in_paraphrase_are_clean(zh, en):
    assert check_pair(f"# 一\n\n{zh}\n", f"# One\n\n{en}\n", "en") == []


def test_a_count_that_changes_is_still_found():
    assert kinds("# 一\n\n需要两张卡。\n", "# One\n\nWe need three GPUs.\n") == [("changed", "2")]
    assert kinds("# 一\n\n需要 2 张卡。\n", "# One\n\nWe need three GPUs.\n") == [("changed", "2")]


@pytest.mark.parametrize("text", ["十进制", "二叉树", "二项分布", "其二", "二阶", "百分位"])
def test_terms_with_numerals_are_not_numbers(text):
    assert extract_numbers(text, "zh-Hans") == []


# --- 4. English number-word grammar -------------------------------------------------------

@pytest.mark.parametrize("text, values", [
    ("two and three", ["2", "3"]),
    ("two and eight", ["2", "8"]),
    ("two hundred million and one billion", ["200000000", "1000000000"]),
    ("one hundred and twenty-eight", ["128"]),
    ("two thousand and five", ["2005"]),
    ("a fourfold gap", ["4"]),
    ("a three-thousandfold gap", ["3000"]),
    ("tenfold", ["10"]),
    ("one-eighth of it", ["0.125"]),
    ("one ninth of it", ["1/9"]),
    ("a third of it", ["1/3"]),
    ("a fourth scheme", []),
    ("two halves", ["2"]),
    ("twenty five", ["25"]),
])
def test_english_number_words(text, values):
    assert [value_text(n.value) for n in extract_numbers(text, "en")] == values


def test_fourfold_matches_four_times():
    assert check_pair("# 一\n\n快 4 倍。\n", "# One\n\nA fourfold speed-up.\n", "en") == []


# --- 5. units and precision ---------------------------------------------------------------

def test_bit_rate_spellings_are_one_unit():
    assert nums("400 Gb/s", "en") == nums("400 Gbit/s", "en") == nums("400 Gbps", "en")
    assert kinds("# 一\n\n链路 400 Gbit/s。\n", "# One\n\nA 400 Gb/s link.\n") == []
    assert kinds("# 一\n\n链路 400 Gbit/s。\n", "# One\n\nA 400 GB/s link.\n") == [("changed", "400")]


def test_percent_and_ratio_are_the_same_number():
    assert check_pair("# 一\n\n只占一成。\n", "# One\n\nOnly a tenth.\n", "en") == []
    assert check_pair("# 一\n\n占 25%。\n", "# One\n\nA share of 0.25.\n", "en") == []


def test_a_precision_difference_is_its_own_low_kind():
    (f,) = check_pair("# 一\n\n约 2,796 个。\n", "# One\n\nAbout 2,795.66 of them.\n", "en")
    assert (f.kind, f.severity) == ("precision", "low")
    (f,) = check_pair("# 一\n\n约 705.54 亿。\n", "# One\n\nAbout 70.55 billion.\n", "en")
    assert (f.kind, f.severity) == ("precision", "low")
    # a digit that differs at the same precision is a changed value
    (f,) = check_pair("# 一\n\n约 2,796 个。\n", "# One\n\nAbout 2,769 of them.\n", "en")
    assert (f.kind, f.severity) == ("changed", "high")


# --- 6. magnitude words without digits ----------------------------------------------------

@pytest.mark.parametrize("zh, en", [
    ("千亿参数的模型", "a 100-billion-parameter model"),
    ("万卡集群", "a 10,000-GPU cluster"),
    ("百万 token 的上下文", "a million-token context"),
    ("约 2.6 × 10^6 次", "about $2.6 \\times 10^{6}$ times"),
    ("3.15e23 FLOP", "$3.15 \\times 10^{23}$ FLOP"),
    ("3.15 × 10<sup>23</sup> FLOP", "3.15e23 FLOP"),
])
def test_magnitude_words_and_scientific_notation(zh, en):
    assert check_pair(f"# 一\n\n{zh}。\n", f"# One\n\n{en}.\n", "en") == []


def test_a_bare_magnitude_word_missing_in_paraphrase_is_silent_but_a_wrong_one_is_not():
    assert check_pair("# 一\n\n万卡集群。\n", "# One\n\nA very large cluster.\n", "en") == []
    assert kinds("# 一\n\n3.15e23 FLOP。\n", "# One\n\n$3.15 \\times 10^{22}$ FLOP.\n") == [
        ("changed", "315000000000000000000000")]


# --- 8. sections aligned by their headings ------------------------------------------------

ZH_SECTIONS = "\n".join(
    f"## {i}.1 第{i}节\n\n本节的数字为 {i}{i}.5 ms 与 {i * 7} GB。\n" for i in range(1, 7))
EN_SECTIONS = "\n".join(
    f"## {i}.1 Section {i}\n\nThe numbers here are {i}{i}.5 ms and {i * 7} GB.\n" for i in range(1, 7))


def test_sections_without_ids_clean():
    assert check_pair("# 章\n\n" + ZH_SECTIONS, "# Chapter\n\n" + EN_SECTIONS, "en") == []


def test_a_deleted_heading_is_one_finding_and_the_rest_still_compares():
    lines = EN_SECTIONS.splitlines()
    k = lines.index("## 3.1 Section 3")
    dropped = "\n".join(lines[:k] + lines[k + 1:])
    findings = check_pair("# 章\n\n" + ZH_SECTIONS, "# Chapter\n\n" + dropped, "en")
    assert [(f.kind, f.original_line) for f in findings] == [("structure", 11)]
    assert "3.1 第3节" in findings[0].message
    # and a real change after the deleted heading is still found where it is
    worse = dropped.replace("55.5 ms", "56.5 ms")
    got = sorted((f.kind, f.value) for f in check_pair("# 章\n\n" + ZH_SECTIONS, "# Chapter\n\n" + worse, "en"))
    assert got == [("changed", "55.5"), ("structure", "_h4")]


def test_an_added_heading_in_the_translation_is_reported_once():
    extra = EN_SECTIONS.replace("## 5.1 Section 5", "## A note\n\nNothing here.\n\n## 5.1 Section 5")
    findings = check_pair("# 章\n\n" + ZH_SECTIONS, "# Chapter\n\n" + extra, "en")
    assert [(f.kind, f.original_line) for f in findings] == [("structure", None)]


def test_alignment_uses_typed_heading_numbers():
    orig = parse_document("# 3 章\n\n## 3.1 甲\n\n## 3.2 乙\n\n## 3.3 丙\n", "zh-Hans").sections
    trans = parse_document("# Chapter 3\n\n## 3.1 A\n\n## 3.3 C\n", "en").sections
    assert align_sections(orig, trans) == [(0, 0), (1, 1), (2, None), (3, 2)]


def test_cheng_with_a_half_or_a_digit():
    assert nums("提高了一成半", "zh-Hans") == ["15%"]
    assert nums("占三成五", "zh-Hans") == ["35%"]
    assert nums("九成", "zh-Hans") == ["90%"]


# --- 7. zh-tw leftovers: Taiwan's standard forms are not Simplified ------------------------

def test_taiwan_standard_forms_are_not_leftovers():
    from bookkit.check.script import leftover_simplified
    assert leftover_simplified("一台伺服器只占 18% 的時間，若干干擾。\n") == []
    assert [x.char for x in leftover_simplified("这台伺服器\n")] == ["这"]


def test_decades():
    assert check_pair("# 一\n\n上世纪 90 年代，主频翻番。\n", "# One\n\nIn the 1990s clock speeds doubled.\n", "en") == []
    assert kinds("# 一\n\n上世纪 90 年代。\n", "# One\n\nIn the 1980s.\n") == [("changed", "1990")]


@pytest.mark.parametrize("zh, other, lang", [
    ("百分之五十的时间。", "half the time.", "en"),
    ("一半的时间。", "50% of the time.", "en"),
    ("约 0.5 秒。", "about half a second.", "en"),
    ("一个半小时。", "1.5 小時。", "zh-tw"),
    ("翻了两番。", "成長為 4 倍。", "zh-tw"),
    ("降低了 50%。", "halved.", "en"),
    ("12 个", "a dozen", "en"),
    ("半导体工艺为 7 nm。", "a semiconductor process of 7 nm.", "en"),
    ("每隔一年半翻一番。", "doubling every eighteen months.", "en"),
    ("带宽 2 TB/s，翻倍到 4 TB/s。", "2 TB/s of bandwidth, doubled to 4 TB/s.", "en"),
])
def test_halves_doubles_and_dozens(zh, other, lang):
    assert check_pair(f"# 甲\n\n{zh}\n", f"# 甲\n\n{other}\n" if lang != "en" else f"# A\n\n{other}\n",
                      lang) == []


def test_a_digit_pairs_with_a_digit_before_a_counting_word():
    # "twice" could match the 2 of "2 个"; the digit 2 of the translation must get it
    zh = "# 甲\n\n快 2 倍，需要 2 个。\n"
    assert check_pair(zh, "# A\n\nTwice as fast, needing 2 of them.\n", "en") == []
    assert kinds(zh, "# A\n\nTwice as fast, needing 3 of them.\n") == [("changed", "2")]


# --- footnotes are compared note with note, wherever the definition sits -----------------

NOTE_ZH = ("# 甲\n\n## 一\n\n带宽很高。[^hw]\n\n## 二\n\n延迟 12 ms。\n\n"
           "[^hw]: 这台机器有 8 块 GPU，每块 80 GB，\n经 400 Gbit/s 网卡互联。\n")
NOTE_EN = ("# A\n\n## One\n\nThe bandwidth is high.[^hw]\n\n[^hw]: The machine has 8 GPUs of 80 GB each,\n"
           "connected by 400 Gbit/s NICs.\n\n## Two\n\nThe latency is 12 ms.\n")


def test_a_footnote_moved_next_to_its_paragraph_is_clean():
    assert check_pair(NOTE_ZH, NOTE_EN, "en") == []


def test_a_footnote_whose_hardware_changed_is_found_in_the_note():
    (f,) = check_pair(NOTE_ZH, NOTE_EN.replace("80 GB each", "94 GB each"), "en")
    assert (f.kind, f.value, f.section, f.original_line) == ("changed", "80", "footnote [^hw]", 11)
    (f,) = check_pair(NOTE_ZH, NOTE_EN.replace("by 400 Gbit/s NICs", "by fast NICs"), "en")
    assert (f.kind, f.value, f.original_line) == ("missing", "400", 12)
