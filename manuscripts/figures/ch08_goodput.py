"""Goodput under an SLO (@sec-inference-optimization-goodput): Qwen3-8B on one H100, the chapter's
Little's-law example (b_l slots, rate_l requests/s at the Little bound, residence gp_W). Against
the arrival rate: the fraction of requests that find a free slot (1 - Erlang C, M/M/c), the
throughput (the arrival rate itself) and the goodput (arrival rate x that fraction); the 90%
target and the largest rate that meets it (gp_rate) marked."""
from calculations import colocation, formulas, hardware, models, queueing, serving

SIZE = (6.6, 3.5)
PROMPT, OUTPUT, TTFT, SLO, USABLE, TARGET = 2000, 500, 0.5, 0.05, 0.9, 0.9   # the chapter's cells


def model():
    m, h = models.get("qwen3-8b"), hardware.get("h100")
    lim = serving.batch_limits(m, h, PROMPT + OUTPUT, SLO, usable_fraction=USABLE)
    b, step = lim["max_batch"], lim["step_time_s"]
    t_pf = formulas.forward(m, PROMPT, hw=h).totals.time_s
    rate = serving.instance_rate(b, step, OUTPUT, TTFT, t_pf)["rate"]
    w = b / rate
    return b, rate, (lambda lam: 1 - queueing.erlang_c(b, lam * w))


def draw(fig, t):
    b, rate, attain = model()
    lo, hi = 0.0, rate
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if attain(mid) >= TARGET else (lo, mid)
    xs = [rate * (0.5 + 0.5 * i / 60) for i in range(61)]
    ax = fig.add_subplot()
    ax.plot(xs, xs, color="grey", ls="--", lw=1, label=t["through"])
    ax.plot(xs, [x * attain(x) for x in xs], color="#4C72B0", lw=1.8, label=t["good"])
    ax.axvline(lo, color="#55A868", ls=":", lw=1.2, label=t["best"].format(r=f"{lo:.2f}"))
    ax.set_xlabel(t["x"], fontsize=8)
    ax.set_ylabel(t["y"], fontsize=8)
    ax2 = ax.twinx()
    ax2.plot(xs, [100 * attain(x) for x in xs], color="#DD8452", lw=1.2, label=t["attain"])
    ax2.axhline(100 * TARGET, color="#DD8452", ls=":", lw=0.9)
    ax2.set_ylim(0, 105)
    ax2.set_ylabel(t["y2"], fontsize=8)
    for a in (ax, ax2):
        a.tick_params(labelsize=7)
    ax.grid(True, alpha=0.3)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="lower left")
    ax.set_title(t["title"].format(b=b), fontsize=9)
