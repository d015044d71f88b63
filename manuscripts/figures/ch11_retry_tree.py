"""The retry tree of @sec-scheduling-environments-retry: an attempt is verified (tests pass with
probability `rt_p`), a failed one is retried with its log, at most `rt_k` attempts. Drawn as
a flow: the attempts in a row, each failure arrow to the next attempt, each pass arrow down to
its leaf; every arrow carries its probability and every leaf the probability of ending there,
from `agents.retry_tree` (a test holds them equal to the chapter's cells)."""
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from bookkit.diagrams.flow import Arrow, Box, Flow
from calculations import agents

SIZE = (6.4, 2.5)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('rt_p', 'rt_k', 'rt_q', 'rt_p1', 'rt_p2', 'rt_p3', 'rt_give', 'rt_exp')
P, K = 0.6, 3       # the chapter's rt_p and rt_k


def numbers(t):
    r = agents.retry_tree(P, K)
    p1, p2, p3 = r["pass_at"]
    return {
        "p": t.num(P, "pct digits=0", name="rt_p"), "k": t.num(K, "int", name="rt_k"),
        "q": t.num(1 - P, "pct digits=0", name="rt_q"),
        "p1": t.num(p1, "pct digits=0", name="rt_p1"),
        "p2": t.num(p2, "pct digits=0", name="rt_p2"),
        "p3": t.num(p3, "pct digits=1", name="rt_p3"),
        "give": t.num(r["give_up"], "pct digits=1", name="rt_give"),
        "exp": t.num(r["expected_attempts"], "num digits=2", name="rt_exp"),
    }


def draw(fig, t):
    v = numbers(t)
    w, gap = 2.3, 1.1
    boxes, arrows = [], []
    for i in range(K):
        x = i * (w + gap)
        boxes.append(Box(f"a{i}", x, 0, w, 1, t["attempt"].format(n=i + 1), t["verify"]))
        boxes.append(Box(f"p{i}", x, -2.0, w, 1, t["pass"],
                         t["leaf"].format(p=(v["p1"], v["p2"], v["p3"])[i])))
        arrows.append(Arrow(f"a{i}", f"p{i}", v["p"]))
        nxt = f"a{i + 1}" if i + 1 < K else "give"
        arrows.append(Arrow(f"a{i}", nxt, v["q"]))
    boxes.append(Box("give", K * (w + gap), 0, w, 1, t["give_up"], t["leaf"].format(p=v["give"])))
    ax = fig.add_subplot()
    draw_flow(ax, Flow(tuple(boxes), tuple(arrows)), fontsize=7.5)
    ax.set_ylim(-2.2, 1.35)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
