"""One decoder layer of Qwen3-8B as a token goes through it (@tbl-model-architecture-layer):
norm, attention (Q/K/V and output projections, GQA, the K and V written to the cache), norm,
SwiGLU MLP; beside each block its parameters and what it caches, from the chapter's `q8_*`
cells."""
from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text, widen
from calculations import models

SIZE = (6.4, 4.2)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('q8_L', 'q8_H', 'q8_I', 'q8_q_width', 'q8_kv_width', 'q8_group', 'q8_p_attn', 'q8_p_mlp',
         'q8_mlp_share', 'q8_p_layer')


def numbers(t):
    m = models.get("qwen3-8b")
    q_width, kv_width = m.num_heads * m.head_dim, m.num_kv_heads * m.head_dim
    attn, mlp = m.attention_params(), m.dense_mlp_params()
    layer = m.layer_params(0)
    return {
        "L": t.num(m.num_layers, "int", name="q8_L"),
        "H": t.num(m.hidden_size, "int", name="q8_H"),
        "I": t.num(m.intermediate_size, "int", name="q8_I"),
        "q": t.num(q_width, "int", name="q8_q_width", expr="num_heads * head_dim"),
        "kv": t.num(kv_width, "int", name="q8_kv_width", expr="num_kv_heads * head_dim"),
        "group": t.num(m.num_heads // m.num_kv_heads, "int", name="q8_group"),
        "attn": t.num(attn, "int", name="q8_p_attn", expr="qwen8.attention_params()"),
        "mlp": t.num(mlp, "int", name="q8_p_mlp", expr="qwen8.dense_mlp_params()"),
        "share": t.num(mlp / layer, "pct digits=0", name="q8_mlp_share",
                       expr="q8_p_mlp / q8_p_layer"),
        "layer": t.num(layer, "int", name="q8_p_layer", expr="qwen8.layer_params(0)"),
    }


def draw(fig, t):
    v = numbers(t)
    parts = ["norm1", "attn", "norm2", "mlp"]
    items = [(k, t[k].format(**v), t[f"{k}_note"].format(**v)) for k in parts]
    arrows = [(a, b, t["hidden"].format(**v)) for a, b in zip(parts, parts[1:])]
    ax = fig.add_subplot()
    draw_flow(ax, widen(stack_flow(items, arrows, gap=0.6), 6.4), fontsize=7.5)
    ax.set_xlim(-0.4, 8.4)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
