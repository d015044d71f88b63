"""Why goodput falls short of throughput (@sec-inference-optimization-goodput): the instance's
b_l batch slots (four drawn), each request holding one for about gp_W seconds (the chapter's
residence at the Little's-law limit); a request that arrives while every slot is busy waits for
the first one to free, and its TTFT misses the target. Times in units of gp_W, a schematic
arrival pattern."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import formulas, hardware, models, serving

SIZE = (7.0, 2.9)
CELLS = ("b_l", "gp_W")
PROMPT, OUTPUT, TTFT, SLO, USABLE = 2000, 500, 0.5, 0.05, 0.9   # the chapter's cells
SERVED, WAIT, LATE = 0, 5, 1
# (slot, start, end) in units of the residence time; slot 4 is the queue row
STARTS = ((0, 0.00), (1, 0.20), (2, 0.35), (3, 0.50))


def values():
    m, h = models.get("qwen3-8b"), hardware.get("h100")
    lim = serving.batch_limits(m, h, PROMPT + OUTPUT, SLO, usable_fraction=USABLE)
    b, step = lim["max_batch"], lim["step_time_s"]
    t_pf = formulas.forward(m, PROMPT, hw=h).totals.time_s
    rate = serving.instance_rate(b, step, OUTPUT, TTFT, t_pf)["rate"]
    return b, b / rate


def numbers(t):
    b, w = values()
    return {"b": t.num(b, "int", name="b_l"), "w": t.num(w, "num digits=1", name="gp_W"),
            "n": t.num(len(STARTS), "int")}


def schedule():
    bars = [(s, a, a + 1.0, SERVED, "") for s, a in STARTS]
    arrive = 0.7                               # all four slots busy: it queues
    bars += [(4, arrive, 1.0, WAIT, ""), (0, 1.0, 2.0, LATE, "")]
    bars += [(1, 1.25, 2.25, SERVED, ""), (2, 1.45, 2.45, SERVED, "")]
    return timeline(5, bars)


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, schedule(), [t["slot"].format(i=i + 1) for i in range(4)] + [t["queue"]],
                  {SERVED: t["k_served"], WAIT: t["k_wait"], LATE: t["k_late"]},
                  t["time_axis"].format(**v), bar_height=0.6)
    ax.set_title(t["title"].format(**v), fontsize=8.5)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
