"""Grouped-query attention in Qwen3-8B (@sec-model-architecture-gqa): the query heads of one
layer, each linked to the KV head whose K and V it reads; every group of H_q/H_kv query heads
shares one KV head, so only H_kv heads' K and V are cached per token and layer
(`qwen8_*` cells)."""
from bookkit.diagrams.draw import draw_topology
from bookkit.diagrams.extra import clear_under_text
from bookkit.diagrams.topology import Link, Node, Topology
from calculations import formulas, models

SIZE = (6.4, 2.3)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("qwen8_heads", "qwen8_kv_heads", "qwen8_kv_per_token", "qwen8_kv_mha")
DX = 0.42               # spacing of the query heads


def numbers(t):
    m = models.get("qwen3-8b")
    mha = 2 * m.num_layers * m.num_heads * m.head_dim * 2
    return m, {
        "hq": t.num(m.num_heads, "int", name="qwen8_heads"),
        "hkv": t.num(m.num_kv_heads, "int", name="qwen8_kv_heads"),
        "g": t.num(m.num_heads // m.num_kv_heads, "int"),
        "kv": t.num(formulas.kv_bytes_per_token(m), "int", name="qwen8_kv_per_token",
                    expr="formulas.kv_bytes_per_token(qwen8)"),
        "mha": t.num(mha, "int", name="qwen8_kv_mha",
                     expr="2 * qwen8_layers * qwen8_heads * qwen8.head_dim * 2"),
    }


def draw(fig, t):
    m, v = numbers(t)
    g = m.num_heads // m.num_kv_heads
    nodes = [Node(f"q{i}", i * DX, 1.2, "gpu", "") for i in range(m.num_heads)]
    nodes += [Node(f"kv{k}", (k * g + (g - 1) / 2) * DX, 0, "switch", t.num(k, "int"))
              for k in range(m.num_kv_heads)]
    links = [Link(f"q{i}", f"kv{i // g}") for i in range(m.num_heads)]
    ax = fig.add_subplot()
    draw_topology(ax, Topology(tuple(nodes), tuple(links)), node_size=0.15, fontsize=7)
    ax.text(-0.35, 1.2, t["q"].format(**v), ha="right", va="center", fontsize=7.5)
    ax.text(-0.35, 0, t["kv"].format(**v), ha="right", va="center", fontsize=7.5)
    ax.text((m.num_heads - 1) * DX / 2, -0.45, t["note"].format(**v), ha="center", va="top",
            fontsize=7.5)
    ax.set_xlim(-3.4, m.num_heads * DX + 0.2)
    ax.set_ylim(-1.3, 1.55)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t)[1])
