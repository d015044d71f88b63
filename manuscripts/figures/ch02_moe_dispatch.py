"""MoE dispatch in one decode step (@eq-model-architecture-touched): a batch of Mixtral-8x7B's
`mix_batch_small` tokens, each routed by the router to `mix_k` of its `mix_e` experts; the
experts some token chose must all be read this step. The routing drawn is one seeded uniform
draw (what the formula assumes); its count sits beside the formula's expectation."""
import random

from bookkit.diagrams.draw import FILLS, draw_topology
from bookkit.diagrams.extra import clear_under_text
from bookkit.diagrams.topology import Link, Node, Topology
from calculations import models

SIZE = (6.4, 3.3)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('mix_e', 'mix_k', 'mix_batch_small', 'mix_touched_expected')
BATCH = 8       # the chapter's mix_batch_small
SEED = 1        # one fixed draw (the same picture on every build) that hits 7 of 8, near the mean


def routing():
    m = models.get("mixtral-8x7b")
    rng = random.Random(SEED)
    return m, [sorted(rng.sample(range(m.num_experts), m.experts_per_token))
               for _ in range(BATCH)]


def numbers(t):
    m, chosen = routing()
    e, k = m.num_experts, m.experts_per_token
    touched = len({x for c in chosen for x in c})
    return chosen, touched, {
        "e": t.num(e, "int", name="mix_e"), "k": t.num(k, "int", name="mix_k"),
        "b": t.num(BATCH, "int", name="mix_batch_small"),
        "touched": t.num(touched, "int", name="moe_drawn_touched",
                         expr="experts chosen by the drawn batch"),
        "expected": t.num(1 - (1 - k / e) ** BATCH, "pct digits=0", name="mix_touched_expected",
                          expr="1 - (1 - mix_k / mix_e) ** mix_batch_small"),
    }


def draw(fig, t):
    chosen, _, v = numbers(t)
    m, _ = routing()
    e = m.num_experts
    read = {x for c in chosen for x in c}
    span = max(BATCH, e) - 1
    nodes = [Node(f"t{i}", i * span / (BATCH - 1), 1.6, "host", str(i + 1)) for i in range(BATCH)]
    nodes += [Node(f"e{j}", j * span / (e - 1), 0, 1 if j in read else 5, f"E{j + 1}")
              for j in range(e)]
    links = [Link(f"t{i}", f"e{j}", directed=True) for i, c in enumerate(chosen) for j in c]
    ax = fig.add_subplot()
    draw_topology(ax, Topology(tuple(nodes), tuple(links)), node_size=0.32, label_links="none",
                  fontsize=7.5)
    ax.text(-0.6, 1.6, t["tokens"], ha="right", va="center", fontsize=8)
    ax.text(-0.6, 0, t["experts"], ha="right", va="center", fontsize=8)
    ax.set_xlim(-2.6, span + 0.6)
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(facecolor=FILLS[1][0], hatch=FILLS[1][1], edgecolor="#333333",
                             label=t["read"].format(**v)),
                       Patch(facecolor=FILLS[5][0], hatch=FILLS[5][1], edgecolor="#333333",
                             label=t["idle"])],
              fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 0.02), ncol=2, frameon=False)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t)[2])
