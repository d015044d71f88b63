"""Attention of one query head on small numbers (@sec-model-architecture-toy-attention): the
query scored against 3 cached keys, softmax into weights, the weighted sum of 3 values. The
vectors are the chapter's toy example (d_h = 2); every number drawn is a chapter cell
(`toy_*`)."""
import dataclasses
import math

from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from bookkit.diagrams.flow import Flow

SIZE = (6.4, 2.4)
HEIGHT = 2.4           # boxes taller than the default, for three-line notes
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("toy_s1", "toy_s2", "toy_s3", "toy_p1", "toy_p2", "toy_p3", "toy_o1", "toy_o2",
         "toy_scale")
D = 2                                   # the chapter's toy_d
Q = (1.0, 1.0)                          # toy_q
K = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0))  # toy_K
V = ((1.0, 0.0), (0.0, 2.0), (3.0, 1.0))  # toy_V


def numbers(t):
    scale = 1 / math.sqrt(D)
    s = [sum(a * b for a, b in zip(Q, k)) * scale for k in K]
    e = [math.exp(x - max(s)) for x in s]
    p = [x / sum(e) for x in e]
    o = [sum(pi * v[j] for pi, v in zip(p, V)) for j in range(D)]
    f = "num digits=3"
    v = {"scale": t.num(scale, f, name="toy_scale", expr="1 / math.sqrt(toy_d)")}
    for i in range(3):
        v[f"s{i + 1}"] = t.num(s[i], f, name=f"toy_s{i + 1}")
        v[f"p{i + 1}"] = t.num(p[i], f, name=f"toy_p{i + 1}")
    v["o1"] = t.num(o[0], f, name="toy_o1")
    v["o2"] = t.num(o[1], f, name="toy_o2")
    return v


def draw(fig, t):
    v = numbers(t)
    keys = ["inputs", "scores", "weights", "out"]
    items = [(k, t[k], t[f"{k}_note"].format(**v)) for k in keys]
    arrows = [(a, b, t[f"{a}_to"].format(**v)) for a, b in zip(keys, keys[1:])]
    flow = stack_flow(items, arrows, horizontal=True, gap=1.3, width=2.3)
    flow = Flow(tuple(dataclasses.replace(b, h=HEIGHT) for b in flow.boxes), flow.arrows)
    ax = fig.add_subplot()
    draw_flow(ax, flow, fontsize=7)
    ax.set_ylim(-0.3, HEIGHT + 0.4)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
