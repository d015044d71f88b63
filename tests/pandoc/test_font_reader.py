"""The PDF font preflight reads the exported Markdown through the parser's tokens: what it
checks is what XeLaTeX sets (text, alt text, code, math), not markup or the raw-LaTeX source
markers, and a character is reported at its line in its role."""
import pytest

from pathlib import Path

from bookkit.load.config import load_edition_info
from bookkit.render.pandoc import fonts

ROOT = Path(__file__).resolve().parents[2]

EMOJI = "\U0001F600"     # in none of the book's fonts


def _check(tmp_path, text: str) -> int:
    f = tmp_path / "01-x.md"
    f.write_text(text, encoding="utf-8")
    return fonts.preflight([f], fonts.fontset_for(load_edition_info(ROOT, "zh").spec))


def test_source_markers_and_markup_are_not_text(tmp_path):
    text = ("```{=latex}\n% bookkit-source 1 /home/作者/" + EMOJI + "/01-x.md\n```\n\n"
            "# 标题 {#sec-x .unnumbered}\n\n正文 [链接](#sec-" + EMOJI + ")。\n")
    assert _check(tmp_path, text) == len("标题正文链接。")


@pytest.mark.parametrize("text, line, role", [
    ("正文\n\n| 甲 | 乙 |\n|---|---|\n| 一 | " + EMOJI + " |\n", 5, "serif"),
    ("![图 1-1：示意](figures/a.pdf){#fig-a alt=\"" + EMOJI + "\"}\n", 1, "serif"),
    ("# 第 1 章 标题\n\n````\n```\n" + EMOJI + "\n```\n````\n", 5, "mono"),
    ("文字\n\n$$\nx = \\text{" + EMOJI + "}\n$$\n", 4, "math"),
])
def test_reported_at_its_line_in_its_role(tmp_path, text, line, role):
    with pytest.raises(fonts.CoverageError, match=rf"01-x.md:{line}: character U\+1F600 .*\({role} text\)"):
        _check(tmp_path, text)
