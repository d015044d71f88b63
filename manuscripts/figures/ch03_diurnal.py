"""A day of traffic (@sec-workloads-diurnal): the chapter's chat service, 20 requests/s on
average, over six 4-hour periods (0.5x to 1.5x the mean); the pool is sized for the afternoon
peak at utilization 0.8. Each column is one period drawn to scale: the online requests at the
bottom, the capacity left for a preemptible batch tier on top."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import diurnal

SIZE = (6.4, 3.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("di_mu", "di_util", "di_peak", "di_trough", "di_share_night", "di_share_peak",
         "di_mu_el", "di_el_save")
RATE, RHO, HOURS = 20, 0.8, 4          # the chapter's request_rate, bl_rho, di_hours
PROFILE = [0.5, 0.75, 1.25, 1.5, 1.25, 0.75]
WIDTH = 10                              # drawn width of one period, in the height's units


def pool():
    rates = [RATE * f for f in PROFILE]
    return rates, diurnal.peak_sized_pool(rates, RHO)


def numbers(t):
    rates, p = pool()
    peak = rates.index(max(rates))
    return {"mu": t.num(p["capacity"], "num digits=1", name="di_mu"),
            "util": t.num(p["utilization"], "pct digits=0", name="di_util"),
            "peak": t.num(max(rates), "int", name="di_peak"),
            "trough": t.num(min(rates), "int", name="di_trough"),
            "night": t.num(p["fill"][0] / p["capacity"], "pct digits=0", name="di_share_night"),
            "at_peak": t.num(p["fill"][peak] / p["capacity"], "pct digits=0",
                             name="di_share_peak"),
            "mu_el": t.num(p["elastic_capacity"], "num digits=0", name="di_mu_el"),
            "el_save": t.num(p["elastic_saving"], "pct digits=0", name="di_el_save")}


def draw(fig, t):
    v = numbers(t)
    rates, p = pool()
    cap = p["capacity"]
    tiles, kinds, labels = [], [], []
    for i, r in enumerate(rates):
        tiles.append((cap - r, i * WIDTH, r, WIDTH))
        kinds.append(0)
        labels.append(t["rate"].format(n=t.num(r, "int")))
        tiles.append((0, i * WIDTH, cap - r, WIDTH))
        kinds.append(1)
        labels.append(t["rate"].format(n=t.num(cap - r, "num digits=1")))
    ax = fig.add_subplot()
    draw_tiles(ax, tiles, kinds, {0: t["online"], 1: t["batch"]}, labels, fontsize=7)
    for i in range(len(rates)):
        ax.text(i * WIDTH + WIDTH / 2, 1.5, t["hours"].format(a=i * HOURS, b=(i + 1) * HOURS),
                ha="center", va="bottom", fontsize=7)
    ax.set_ylim(-cap * 1.02, 6)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
