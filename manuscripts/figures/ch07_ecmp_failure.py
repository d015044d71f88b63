"""ECMP after a link failure (@sec-datacenter-networks-stragglers): a leaf switch with up_paths
uplinks, one failed, and up_paths elephant flows hashed onto the rest. Top, one hashing drawn
with a fixed seed (an example; the chapter's ecmp_fail is the expectation over all hashings,
`cl.ecmp_max_load`); bottom, perfect placement, where one path must still carry two flows
(ecmp_fail_best). A column is a path, a square a flow; the busiest path sets the rate of a
synchronous step."""
import random

from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import collectives as cl

SIZE = (6.4, 3.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('up_paths', 'ecmp_ok', 'ecmp_fail', 'ecmp_fail_best', 'ecmp_spray')
PATHS = 32           # the chapter's up_paths (k / 2 for k = 64)
FLOW, BUSY, DEAD = 0, 3, 5
SEED = 7             # the example hashing drawn (any seed; the numbers are expectations)


def loads():
    rng = random.Random(SEED)
    hashed = [0] * (PATHS - 1)
    for _ in range(PATHS):
        hashed[rng.randrange(PATHS - 1)] += 1
    perfect = [1] * (PATHS - 1)
    perfect[0] += 1
    return hashed, perfect


def panel(counts):
    tiles, kinds = [], []
    top = max(counts)
    for col, n in enumerate(counts):
        for level in range(n):
            tiles.append((top - 1 - level, col, 0.9, 0.9))
            kinds.append(BUSY if n == top else FLOW)
    tiles.append((top - 1, PATHS - 1, 0.9, 0.9))      # the failed uplink, last column
    kinds.append(DEAD)
    return tiles, kinds, top


def numbers(t):
    hashed, _ = loads()
    return {
        "paths": t.num(PATHS, "int", name="up_paths"),
        "ok": t.num(cl.ecmp_max_load(PATHS, PATHS)["rate"], "pct digits=0", name="ecmp_ok"),
        "fail": t.num(cl.ecmp_max_load(PATHS, PATHS - 1)["rate"], "pct digits=0", name="ecmp_fail"),
        "best": t.num(1 / 2, "pct digits=0", name="ecmp_fail_best"),
        "spray": t.num((PATHS - 1) / PATHS, "pct digits=1", name="ecmp_spray"),
        "max": t.num(max(hashed), "int"),
        "rate": t.num(1 / max(hashed), "pct digits=0"),
    }


def draw(fig, t):
    v = numbers(t)
    hashed, perfect = loads()
    for k, (counts, title) in enumerate(((hashed, t["hashed"]), (perfect, t["perfect"]))):
        ax = fig.add_subplot(2, 1, k + 1)
        tiles, kinds, _ = panel(counts)
        labels = ["×" if kd == DEAD else "" for kd in kinds]
        names = {FLOW: t["k_flow"], BUSY: t["k_busy"], DEAD: t["k_dead"]} if k == 1 else {}
        draw_tiles(ax, tiles, kinds, names, labels=labels, fontsize=6)
        ax.set_title(title.format(**v), fontsize=8)
        clear_under_text(ax)
    fig.suptitle(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
