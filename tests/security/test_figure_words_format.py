"""A translation's figures.yml is text: its strings format plain fields only, so a field such as
`{0.__class__.__init__.__globals__}` cannot read the build machine's memory or environment."""
import pytest

from bookkit.diagrams.words import FigureText


class Model:
    def __init__(self):
        self.name = "qwen3-8b"


def test_plain_fields_format_as_before():
    t = FigureText({"batch": "批大小 {b}", "pair": "{}, {} kernels", "n": "{0:.2f} μs",
                    "nested": {"k": "{x}"}}, "zh-Hans", "zh-Hans")
    assert t["batch"].format(b=8) == "批大小 8"
    assert t["pair"].format("Qwen3-8B", 3) == "Qwen3-8B, 3 kernels"
    assert t["n"].format(1.234) == "1.23 μs"
    assert t["nested"]["k"].format_map({"x": 1}) == "1"


@pytest.mark.parametrize("attack", ["{0.__class__.__init__.__globals__}", "{m.__init__}",
                                    "{m.name}", "{0[0]}", "{m.__dict__[name]}"])
def test_attribute_and_item_fields_are_refused(attack):
    t = FigureText({"x": attack}, "en", "en")
    with pytest.raises(ValueError, match="only plain fields"):
        t["x"].format(Model(), m=Model())
