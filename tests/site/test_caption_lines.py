"""A caption line under an image (bookkit/source/markdown.py `_figure_captions_rule`): an italic line or
a line opening with a figure label, right below the image or as the next paragraph, becomes the
figure's one caption (the alt text stays alt); prose that happens to start with a label does
not."""
import pytest

from bookkit.source.markdown import parse


@pytest.mark.parametrize("below, caption", [
    ("*图 1-1 屋顶线模型*", "屋顶线模型"),                         # italic, next paragraph
    ("图 1-1 屋顶线模型：两条边界", "屋顶线模型：两条边界"),            # label, next paragraph
    ("Figure 1-1: The roofline", "The roofline"),
    ("*A roofline sketch*", "A roofline sketch"),                   # italic without a label
    ("图 1-1 显示了两条边界。强度低的算子受带宽限制。", None),         # prose: stays prose
    ("图 1-1 显示了两条边界，\n强度低的算子受带宽限制", None),
    ("*其一* 与 *其二*", None),                                     # two emphases, not a line
    ("普通的一段话。", None),
])
def test_caption_line_under_an_image(below, caption):
    tokens, _ = parse(f"![替代文字](ch01/x.svg)\n\n{below}\n")
    image = tokens[1].children[0]
    paragraphs = sum(t.type == "paragraph_open" for t in tokens)
    if caption is None:
        assert paragraphs == 2 and image.content == "替代文字" and "alt" not in image.meta
    else:
        assert paragraphs == 1 and image.meta["alt"] == "替代文字"
        assert image.content == caption            # the typed label is removed (and warned)
    same, _ = parse(f"![替代文字](ch01/x.svg)\n{below.splitlines()[0]}\n")   # the line below
    if caption is not None:
        assert len(same[1].children) == 1 and same[1].children[0].meta["alt"] == "替代文字"
