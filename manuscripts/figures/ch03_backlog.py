"""Backlog and drain (@sec-workloads-backlog): the chapter's chat service, 20 requests/s on
average, meets a 10-minute peak at 1.5x; with the pool sized for utilization 0.8 or 0.9, the
backlog grows at (peak - capacity) and drains at (capacity - mean). Phases drawn to scale on
one time axis, with the chapter's numbers."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import timeline

SIZE = (6.4, 2.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("request_rate", "bl_peak", "bl_peak_s", "bl_mu", "bl_backlog", "bl_drain_s",
         "bl_mu_t", "bl_backlog_t", "bl_drain_t")
RATE, PEAK_FACTOR, PEAK_S = 20, 1.5, 600      # the chapter's request_rate, bl_peak_factor, bl_peak_s
LEAD = 300                                      # seconds of normal load drawn before the peak


def case(rho):
    mu = RATE / rho
    backlog = (PEAK_FACTOR * RATE - mu) * PEAK_S
    return mu, backlog, backlog / (mu - RATE)


def numbers(t):
    mu, backlog, drain = case(0.8)
    mu_t, backlog_t, drain_t = case(0.9)
    return {"rate": t.num(RATE, "int", name="request_rate"),
            "peak": t.num(PEAK_FACTOR * RATE, "int", name="bl_peak"),
            "peak_s": t.num(PEAK_S, "si unit=s digits=0", name="bl_peak_s"),
            "mu": t.num(mu, "num digits=0", name="bl_mu"),
            "backlog": t.num(backlog, "num digits=0", name="bl_backlog"),
            "drain": t.num(drain, "si unit=s digits=0", name="bl_drain_s"),
            "mu_t": t.num(mu_t, "num digits=0", name="bl_mu_t"),
            "backlog_t": t.num(backlog_t, "num digits=0", name="bl_backlog_t"),
            "drain_t": t.num(drain_t, "si unit=s digits=0", name="bl_drain_t")}


def draw(fig, t):
    v = numbers(t)
    _, _, drain = case(0.8)
    _, _, drain_t = case(0.9)
    end = LEAD + PEAK_S + drain_t + LEAD / 2
    m = 60.0        # drawn in minutes
    p0, p1 = LEAD / m, (LEAD + PEAK_S) / m
    bars = [(0, 0, p0, 0, t["normal"].format(**v)), (0, p0, p1, 1, t["peak_bar"].format(**v)),
            (0, p1, end / m, 0, t["normal"].format(**v))]
    for row, d, key in ((1, drain, "grow"), (2, drain_t, "grow_t")):
        bars.append((row, p0, p1, 3, t[key].format(**v)))
        bars.append((row, p1, p1 + d / m, 2, t["drain_bar"]))
    rows = [t["arrivals"], t["pool"].format(**v), t["pool_t"].format(**v)]
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(3, bars), rows,
                  {0: t["k_normal"], 1: t["k_peak"], 3: t["k_grow"], 2: t["k_drain"]},
                  t["time"], bar_height=0.6, fontsize=6.5)
    ax.set_xlim(0, end / m)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
