"""Markdown that the parser leaves as text where the author meant markup (the site shows it; the
PDF, made by Pandoc, usually does not): check_site points at the line."""
from bookkit.check.sources import markup_left_as_text
from bookkit.source.markdown import parse


def _lines(text: str) -> list[int]:
    tokens, _ = parse(text)
    return [f.line for f in markup_left_as_text("x.md", tokens)]


def test_bold_next_to_cjk_punctuation_is_bold_and_not_reported():
    # CJK-friendly emphasis (bookkit/source/markdown.py): these were `**` left as text; now bold
    for text in ("段落。\n\n**生成（rollout）**阶段用当前策略。\n",
                 "所以**{{ x | phrase }}**。\n",
                 "前：**生成**（a）阶段；**学习（b）**阶段更新；然后**同步**。\n"):
        assert _lines(text) == [], text
        tokens, _ = parse(text)
        assert "strong_open" in {k.type for t in tokens for k in t.children or []}, text


def test_bold_left_as_text_without_cjk_is_still_reported():
    # no CJK neighbour: CommonMark's reading, unchanged, and check_site still points at it
    assert _lines("段落\n\nthe word**\"quoted\"**here\n") == [3]
    assert _lines("so it is **{{ x | phrase }}**.\n") == []


def test_caption_without_a_blank_line_becomes_a_row():
    table = "| a | b |\n|---|---|\n| 1 | 2 |\n"
    assert _lines(table + ": 本章数字一览 {#tbl-x}\n") == [4]
    assert _lines(table + "\n: 本章数字一览 {#tbl-x}\n") == []


def test_a_blank_line_inside_a_table_leaves_rows_as_text():
    head = "| a | b |\n|---|---|\n| 1 | 2 |\n"
    assert _lines(head + "\n| 3 | 4 |\n| 5 | 6 |\n") == [5]
    assert _lines(head + "| 3 | 4 |\n") == []


def test_double_underscores_in_a_url_are_not_markup():
    # the CUDA driver API's pages are named `group__CUDA__TENSOR__MEMORY.html`
    url = "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TENSOR__MEMORY.html"
    assert _lines(f"见 <{url}>。\n") == []
    assert _lines(f"见 [{url}]({url})。\n") == []
    assert _lines("a word__with__underscores left as text\n") == [1]
