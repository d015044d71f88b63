"""The 1F1B pipeline schedule of the chapter's example (p = 4 stages, m = 16 micro-batches:
`p_ex`, `m_ex` of @sec-training-systems-pipeline), computed by the diagram vocabulary's list
scheduler (a backward takes two forward slots); its bubble equals `tr.pipeline_bubble_fraction`."""
from bookkit.diagrams import pipeline_1f1b
from bookkit.diagrams.draw import draw_timeline
from calculations import training as tr

SIZE = (6.4, 2.9)
P, M = 4, 16   # the chapter's p_ex, m_ex (a test holds them equal)


def numbers(t):
    tl = pipeline_1f1b(P, M)
    bubble = tr.pipeline_bubble_fraction(P, M)
    assert abs(tl.bubble_fraction - bubble) < 1e-12, "schedule and formula disagree"
    return tl, {
        "p": t.num(P, "int", name="p_ex"), "m": t.num(M, "int", name="m_ex"),
        "warm": t.num(P - 1, "int", name="p_ex - 1"),
        "bubble": t.num(bubble, "pct digits=1", name="bubble_ex",
                        expr="tr.pipeline_bubble_fraction(p_ex, m_ex) = (p-1)/(m+p-1)"),
    }


def draw(fig, t):
    tl, v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["stage"].format(i=i + 1) for i in range(P)],
                  {"F": t["fwd"], "B": t["bwd"]}, t["time"], fontsize=5.5)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
