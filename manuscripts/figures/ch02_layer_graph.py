"""The computation graph of one Qwen3-8B decoder layer (@sec-model-architecture-toy-attention):
the attention half down the left column (RMSNorm, the Q/K/V projections, QK-Norm and RoPE, the
K and V written to and read back from the cache, attention, the output projection added to the
residual), the MLP half up the right column (RMSNorm, gate and up, SiLU times up, down added to
the residual); each operator with the shape it produces, from the chapter's `q8_*` cells."""
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from bookkit.diagrams.flow import Arrow, Box, Flow
from calculations import models

SIZE = (6.4, 4.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("q8_H", "q8_nh", "q8_kvh", "q8_hd", "q8_I", "q8_L")
W, STEP, RIGHT = 3.3, 1.5, 6.0        # box width, row pitch, x of the right column


def numbers(t):
    m = models.get("qwen3-8b")
    return {
        "H": t.num(m.hidden_size, "int", name="q8_H", expr="qwen8.hidden_size"),
        "hq": t.num(m.num_heads, "int", name="q8_nh", expr="qwen8.num_heads"),
        "hkv": t.num(m.num_kv_heads, "int", name="q8_kvh", expr="qwen8.num_kv_heads"),
        "d": t.num(m.head_dim, "int", name="q8_hd", expr="qwen8.head_dim"),
        "I": t.num(m.intermediate_size, "int", name="q8_I", expr="qwen8.intermediate_size"),
        "L": t.num(m.num_layers, "int", name="q8_L", expr="qwen8.num_layers"),
    }


LEFT = ["norm1", "qkv", "qknorm", "attn", "oproj"]
RIGHT_UP = ["norm2", "gateup", "act", "down"]


def flow(t, v) -> Flow:
    boxes = [Box(k, 0, -i * STEP, W, 1, t[k], t[f"{k}_note"].format(**v))
             for i, k in enumerate(LEFT)]
    bottom = -(len(LEFT) - 1) * STEP
    boxes += [Box(k, RIGHT, bottom + i * STEP, W, 1, t[k], t[f"{k}_note"].format(**v))
              for i, k in enumerate(RIGHT_UP)]
    boxes.append(Box("cache", W + 0.55, -2.55 * STEP, RIGHT - W - 1.1, 1, t["cache"], ""))
    arrows = [Arrow(a, b) for a, b in zip(LEFT, LEFT[1:])]
    arrows += [Arrow(a, b) for a, b in zip(RIGHT_UP, RIGHT_UP[1:])]
    arrows += [Arrow("oproj", "norm2", t["resid"]), Arrow("qknorm", "cache", ""),
               Arrow("cache", "attn", "")]
    return Flow(tuple(boxes), tuple(arrows))


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    draw_flow(ax, flow(t, v), fontsize=6.8)
    ax.text(RIGHT + W / 2, 1.15, t["out"].format(**v), ha="center", va="bottom", fontsize=6.8)
    ax.text(W / 2, 1.15, t["in"].format(**v), ha="center", va="bottom", fontsize=6.8)
    ax.set_ylim(-(len(LEFT) - 1) * STEP - 0.4, 1.7)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
