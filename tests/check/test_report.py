"""The source checks run by check_site.py (translation numbers, staleness) and the output formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bookkit.check import report
from bookkit.check.report import ERROR, WARNING, Finding, format_json, format_text, has_errors
from bookkit.check.staleness import mark_synced, save_sync_record, sync_record_path

ORIGINAL = """# 负载 {#sec-load}

一天有 86400 秒。

## 方法 {#sec-load-method}

每秒 1000 个词元。
"""
EN = """# Workloads {#sec-load}

A day has 86400 seconds.

## Method {#sec-load-method}

1000 tokens per second.
"""
TW = """# 負載 {#sec-load}

一天有 86400 秒。

## 方法 {#sec-load-method}

每秒 1000 個詞元。
"""


@pytest.fixture
def book(tmp_path) -> Path:
    root = tmp_path / "book"
    for folder, text in (("manuscripts", ORIGINAL), ("book-en", EN), ("book-zh-tw", TW)):
        (root / folder).mkdir(parents=True)
        (root / folder / "01-load.md").write_text(text, encoding="utf-8")
    (root / "manuscripts" / "book.yml").write_text(
        "site_url: https://example.org/book/\neditions:\n"
        "  - {id: zh, dir: manuscripts, lang: zh-Hans, path: \"\"}\n"
        "  - {id: en, dir: book-en, lang: en, path: en}\n"
        "  - {id: zh-tw, dir: book-zh-tw, lang: zh-Hant, path: zh-tw}\n"
        "chapters:\n  - {file: 01-load.md, slug: load}\n", encoding="utf-8")
    return root


def test_translations_clean(book):
    assert report.translation_findings(book) == []


def test_translation_number_changed_is_reported_at_the_translation_line(book):
    p = book / "book-en" / "01-load.md"
    p.write_text(EN.replace("1000 tokens", "100 tokens"), encoding="utf-8")
    found = report.translation_findings(book)
    assert found and all(f.where == "book-en/01-load.md:7" and f.severity == ERROR for f in found)
    assert found[0].kind in ("changed", "missing", "extra")
    assert found[0].line == 7


def test_simplified_characters_left_in_zh_tw_are_reported_at_their_line(book):
    p = book / "book-zh-tw" / "01-load.md"
    p.write_text(TW.replace("每秒 1000 個詞元。", "每秒 1000 個詞元。\n\n这些数据来自计算器。"),
                 encoding="utf-8")
    found = report.translation_findings(book)
    # the pasted sentence is also a paragraph the original lacks: one finding at its line
    assert [(f.kind, f.where) for f in found if f.kind == "paragraph"] == [("paragraph", "book-zh-tw/01-load.md:9")]
    found = [f for f in found if f.kind != "paragraph"]
    assert [(f.kind, f.where, f.detail.split("`")[1]) for f in found] == [
        ("leftover", "book-zh-tw/01-load.md:9", ch) for ch in "这数据来计"]
    assert "(Traditional `這`)" in found[0].detail
    assert all(f.severity == ERROR for f in found)


def test_traditional_words_that_share_characters_with_simplified_are_not_reported():
    from bookkit.check.script import leftover_simplified
    text = ("若干公里外的皇后了解只有折扣的乾淨衣服，人云亦云。\n"
            "`数据` 在程式碼裡，$数$ 在公式裡，{{ 数据 }} 是綁定的名字。\n"
            "```\n数据 = 1\n```\n")
    assert leftover_simplified(text) == []


def test_taiwan_everyday_forms_are_not_leftovers_but_simplified_ones_are():
    from bookkit.check.script import leftover_simplified
    assert leftover_simplified("台灣的一台伺服器放在服務台旁，訊號互相干擾。\n") == []
    assert [x.char for x in leftover_simplified("台湾的一台服务器。\n")] == ["湾", "务"]


def test_missing_translation_file(book):
    (book / "book-zh-tw" / "01-load.md").unlink()
    # not translated yet: the build shows the original's; `--stale` lists it (an error with
    # --strict), the number check has nothing to compare
    assert report.translation_findings(book) == []
    found = [f for f in report.stale_findings(book) if f.kind == "untranslated"]
    assert [(f.where, f.severity) for f in found] == [("book-zh-tw/01-load.md:1", WARNING)]
    assert "manuscripts/01-load.md" in found[0].message
    assert [f.severity for f in report.stale_findings(book, strict=True)
            if f.kind == "untranslated"] == [ERROR]


def test_stale_sections_are_warnings_unless_strict(book):
    for folder in ("book-en", "book-zh-tw"):
        save_sync_record(sync_record_path(book / folder, "01-load.md"), mark_synced(ORIGINAL, {}))
    assert report.stale_findings(book) == []
    (book / "manuscripts" / "01-load.md").write_text(ORIGINAL.replace("1000", "2000"), encoding="utf-8")
    found = report.stale_findings(book)
    assert [(f.kind, f.where, f.severity) for f in found] == [
        ("stale", "book-en/01-load.md:5", WARNING), ("stale", "book-zh-tw/01-load.md:5", WARNING)]
    assert "sec-load-method" in found[0].detail and "original changed" in found[0].detail
    assert not has_errors(found)
    assert has_errors(report.stale_findings(book, strict=True))


def test_formats():
    fs = [Finding("broken-anchor", "en/a.html#sec-x", 'href "b.html#y" has no target', ERROR, 3),
          Finding("stale", "book-en/a.md:5", "section s: original changed", WARNING, 5)]
    assert format_text(fs).splitlines() == [
        'en/a.html#sec-x: broken-anchor: href "b.html#y" has no target',
        "book-en/a.md:5: stale: section s: original changed (warning)"]
    data = json.loads(format_json(fs))
    assert data[0] == {"kind": "broken-anchor", "where": "en/a.html#sec-x", "detail": 'href "b.html#y" has no target',
                       "severity": "error", "line": 3}
    with pytest.raises(ValueError):
        Finding("x", "y", "z", "fatal")


def test_resolved_texts_are_used_when_given(book):
    resolved = {("zh", "01-load.md"): ORIGINAL, ("en", "01-load.md"): EN.replace("86400", "86,401"),
                ("zh-tw", "01-load.md"): TW}
    found = report.translation_findings(book, lambda root: resolved)
    assert found and {f.where for f in found} == {"book-en/01-load.md:3"}
    assert report.translation_findings(book) == []  # the raw files agree


def test_unresolvable_book_is_one_build_error_then_raw_comparison(book):
    from bookkit.model import BuildError

    def fail(root):
        raise BuildError(root / "manuscripts" / "01-load.md", 4, "unknown cell `x`")

    found = report.translation_findings(book, fail)
    assert [(f.kind, f.where, f.severity) for f in found] == [("build-error", "manuscripts/01-load.md:4", ERROR)]


def test_the_translation_check_reads_resolved_text_without_drawing_figures(tmp_path):
    """The number check needs the text with numbers as rendered, not the figures: resolving for
    it must not draw (nor even look up) a single figure, PDF or SVG."""
    from bookkit.pipeline.build import BuildOptions, Builder
    from bookkit.pipeline.export import resolved_markdown

    root = Path(__file__).resolve().parents[2]
    builder = Builder(BuildOptions(root=root, out=tmp_path / "site", quiet=True))
    texts = resolved_markdown(root, builder)
    assert {key for key, _ in texts} == {"zh", "en", "zh-tw"}
    en = texts[("en", "03-workloads.md")]
    source = (root / "book-en" / "03-workloads.md").read_text(encoding="utf-8")
    assert en.count("{{") < source.count("{{") and en.count("\n") == source.count("\n")
    assert builder.figure_deps == {} and builder.drawn_figures == []
    assert builder.resolver._figure_memo == {}


def test_the_originals_glossary_is_applied_to_the_original(book):
    """manuscripts/glossary.yml holds the original's terms: an avoided form in the original is a
    `terminology` error at its own file and line, like a translation's."""
    (book / "manuscripts" / "glossary.yml").write_text(
        "terms:\n  - {concept: lower bound, use: 下界, avoid: [下限]}\n", encoding="utf-8")
    assert report.translation_findings(book) == []
    p = book / "manuscripts" / "01-load.md"
    p.write_text(ORIGINAL + "\n时间的下限。\n", encoding="utf-8")
    found = [f for f in report.translation_findings(book) if f.kind == "terminology"]
    line = len(ORIGINAL.splitlines()) + 2
    assert [(f.where, f.severity) for f in found] == [(f"manuscripts/01-load.md:{line}", ERROR)]
    assert "use `下界`" in found[0].message
