"""The zero-bubble schedule ZB-H1 (Qi et al. 2023) for the chapter's example pipeline
(@sec-training-systems-bubbles: `p_ex` stages, `m_ex` micro-batches), computed by the diagram
vocabulary from the dependencies: the backward split into B (input gradient, on the critical
path) and W (weight gradient, needed by nobody downstream), the W filling what 1F1B leaves
idle. Forward, B and W take one slot each, so 1F1B's backward (B + W) is its two slots, as in
`ch10_1f1b_schedule`; the bubble falls from the chapter's `bubble_ex` to a third of 1F1B's."""
from bookkit.diagrams import pipeline_1f1b, pipeline_zero_bubble, zero_bubble_formula
from bookkit.diagrams.draw import draw_timeline
from calculations import training as tr

SIZE = (6.4, 2.9)
CELLS = ("p_ex", "m_ex", "bubble_ex")
INPUTS = ("p_ex", "m_ex")     # the chapter's cell values this diagram draws


def numbers(t):
    p, m = t.inputs.get("p_ex", 4), t.inputs.get("m_ex", 16)   # drawn alone: the book's
    tl = pipeline_zero_bubble(p, m)
    zb = zero_bubble_formula(p, m)
    one_f_one_b = tr.pipeline_bubble_fraction(p, m)
    assert abs(tl.bubble_fraction - zb) < 1e-12, "schedule and the paper's formula disagree"
    assert abs(pipeline_1f1b(p, m).bubble_fraction - one_f_one_b) < 1e-12
    return tl, {
        "p": t.num(p, "int", name="p_ex"), "m": t.num(m, "int", name="m_ex"),
        "bubble": t.num(one_f_one_b, "pct digits=1", name="bubble_ex",
                        expr="tr.pipeline_bubble_fraction(p_ex, m_ex)"),
        "zb": t.num(zb, "pct digits=1", name="zb_bubble",
                    expr="(p-1)(F+B-W) / (m(F+B+W) + (p-1)(F+B-W)), F = B = W"),
        "held": t.num(p - 1, "int", name="p_ex - 1"),
    }


def draw(fig, t):
    tl, v = numbers(t)
    fig.set_size_inches(6.4, 1.5 + 0.3 * tl.rows)     # a row per stage
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["stage"].format(i=i + 1) for i in range(tl.rows)],
                  {"F": t["fwd"], "B": t["b"], "W": t["w"]}, t["time"], fontsize=5.5)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
