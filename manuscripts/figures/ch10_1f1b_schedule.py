"""The 1F1B pipeline schedule of the chapter's what-if example (`pipe_p` stages, `pipe_m`
micro-batches; the book's are p_ex = 4 and m_ex = 16), computed by the diagram vocabulary's list
scheduler (a backward takes two forward slots); its bubble equals `tr.pipeline_bubble_fraction`.
The reader's choice of stages and micro-batches redraws it (`INPUTS`)."""
from bookkit.diagrams import pipeline_1f1b
from bookkit.diagrams.draw import draw_timeline
from calculations import training as tr

SIZE = (6.4, 2.9)
INPUTS = ("pipe_p", "pipe_m")   # the chapter's cell values this diagram draws


def numbers(t):
    P, M = t.inputs.get("pipe_p", 4), t.inputs.get("pipe_m", 16)   # drawn alone: the book's
    tl = pipeline_1f1b(P, M)
    bubble = tr.pipeline_bubble_fraction(P, M)
    assert abs(tl.bubble_fraction - bubble) < 1e-12, "schedule and formula disagree"
    return tl, {
        "p": t.num(P, "int", name="pipe_p"), "m": t.num(M, "int", name="pipe_m"),
        "warm": t.num(P - 1, "int", name="pipe_p - 1"),
        "bubble": t.num(bubble, "pct digits=1", name="pipe_bubble",
                        expr="tr.pipeline_bubble_fraction(pipe_p, pipe_m) = (p-1)/(m+p-1)"),
    }


def draw(fig, t):
    tl, v = numbers(t)
    fig.set_size_inches(6.4, 1.5 + 0.3 * tl.rows)     # a row per stage
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["stage"].format(i=i + 1) for i in range(tl.rows)],
                  {"F": t["fwd"], "B": t["bwd"]}, t["time"], fontsize=5.5)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
