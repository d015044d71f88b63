"""CJK-friendly emphasis (bookkit/source/markdown.py `_cjk_emphasis_rule`): `**` and `*` next to CJK
punctuation open and close as readers of Chinese, Japanese and Korean Markdown expect (the cases
of the CommonMark CJK discussion, in our own words), while text without a CJK neighbour keeps
CommonMark's reading exactly."""
import pytest
from markdown_it import MarkdownIt

from bookkit.source.markdown import parser


def _html(text: str) -> str:
    return parser().render(text).strip()


@pytest.mark.parametrize("text, expected", [
    # closing after CJK punctuation, before a CJK letter
    ("**粗体（注）**后", "<strong>粗体（注）</strong>后"),
    ("**这句话到此为止。**下一句", "<strong>这句话到此为止。</strong>下一句"),
    ("它叫**“缓存”**，不是内存", "它叫<strong>“缓存”</strong>，不是内存"),
    # opening after a CJK letter, before CJK punctuation
    ("所谓**「带宽」**就是", "所谓<strong>「带宽」</strong>就是"),
    ("这是*（示意）*图", "这是<em>（示意）</em>图"),
    # code inside the emphasis, Latin words in brackets
    ("可以强调**这段`code`**吗", "可以强调<strong>这段<code>code</code></strong>吗"),
    ("**推理（inference）**阶段", "<strong>推理（inference）</strong>阶段"),
    # Japanese and Korean
    ("**この文は強調できる。**次の文", "<strong>この文は強調できる。</strong>次の文"),
    ("**이 용어(term)**를 보라", "<strong>이 용어(term)</strong>를 보라"),
    # Traditional Chinese
    ("**粗體（註）**後面", "<strong>粗體（註）</strong>後面"),
])
def test_emphasis_next_to_cjk_punctuation(text, expected):
    assert _html(text) == f"<p>{expected}</p>"


@pytest.mark.parametrize("text", [
    "snake_case_name and 中文_变量_名",      # underscores inside words stay literal
    "2*3*4 and a * b * c",
    'a*"quoted"*b', 'foo**bar**baz', '**a** b', '*(*foo*)*', '__foo, __bar__, baz__',
    '*foo`*`', 'a**"b"**c', '**foo "*bar*" foo**', '_foo_bar_baz_', '*$*alpha.',
    'x**y**. and **x**y', '***strong emph***', '*foo**bar**baz*', '**foo*bar*baz**',
])
def test_text_without_cjk_keeps_commonmarks_reading(text):
    assert _html(text) == MarkdownIt("commonmark").render(text).strip()


def test_cases_commonmark_leaves_as_text_are_fixed():
    # the reason for the rule: plain CommonMark prints these asterisks
    for text in ("**粗体（注）**后", "所谓**「带宽」**就是"):
        assert "**" in MarkdownIt("commonmark").render(text)
        assert "**" not in _html(text)

