"""TeX math as readable text (search documents and snippets, alt text): never TeX source."""
import pytest

from bookkit.source.mathtext import tex_to_text

CASES = [
    (r"\min(P,\ I \cdot B)", "min(P, I · B)"),
    (r"\frac{2 N}{B} \times 10^{-3}", "2N/B × 10⁻³"),
    (r"T_{\text{decode}} \approx \frac{W}{\text{HBM bandwidth}}", "T_decode ≈ W/(HBM bandwidth)"),
    (r"\left\lceil \frac{n}{k} \right\rceil", "⌈n/k⌉"),
    (r"\alpha + \beta", "α + β"),
    (r"x^2 + y^{2}", "x² + y²"),
    (r"\sqrt{d_k}", "√d_k"),
    (r"a = -b", "a = −b"),
    (r"\text{FLOPs/token} = 2 N", "FLOPs/token = 2N"),
    (r"\bar{x}", "x̄"),
    (r"W^\top", "W⊤"),
    (r"I^*", "I*"),
    (r"\text{kv\_bytes}", "kv_bytes"),
    (r"\mathrm{KV}_{\text{seq}} = 2 \cdot L \cdot d", "KV_seq = 2 · L · d"),
]


@pytest.mark.parametrize("tex, text", CASES)
def test_formulas_read_as_text(tex, text):
    assert tex_to_text(tex) == text


def test_no_tex_syntax_survives_and_unknown_commands_keep_their_words():
    for tex, _ in CASES:
        out = tex_to_text(tex)
        assert "\\" not in out and "{" not in out and "}" not in out, out
    assert tex_to_text(r"\operatorname{softmax}(x)") == "softmax(x)"
    assert tex_to_text(r"\foo{bar}") == "foobar"          # unknown: the name, no backslash
    assert tex_to_text("") == ""
