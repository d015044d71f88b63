"""Re-splitting one fleet by whole units (@sec-distributed-inference-reconfig, what-if wi-pools):
the fleet is DeepSeek's day rounded up to whole units (`shift_p0` prefill units of 4 nodes,
`shift_d0` decode units of 18, `shift_fleet` nodes); when every answer is `pools_scale` times as
long at the same input, `pool_shift.best_split` gives the split that serves the most traffic
(`pools_p`, `pools_d`, `pools_idle`, `pools_served`). One row per split, one bar per unit, its
width in nodes; decode units formed from prefill nodes, and idle nodes, have their own fill.
The reader's choice of answer length redraws it (`INPUTS`)."""
import math

from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import pool_shift as PS

SIZE = (6.4, 2.4)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("shift_fleet", "shift_p0", "shift_d0", "pools_scale", "pools_p", "pools_d",
         "pools_idle", "pools_served", "shift_pre_unit", "shift_dec_unit")
INPUTS = ("pools_scale",)   # the reader's choice of answer length (wi-pools) redraws it
BOOK_SCALE = 2              # the chapter's pools_scale when drawn alone
INPUT, OUTPUT, PRE_TPS, DEC_TPS = 608e9, 168e9, 73.7e3, 14.8e3   # DeepSeek's day, as ch09_pool_sizing
PRE_UNIT, DEC_UNIT = 4, 18  # the online system's prefill and decode units, in nodes
PRE, DEC, NEW, IDLE = "F", "B", 3, "W"


def arithmetic(scale):
    day = 24 * 3600
    pre, dec = INPUT / day / PRE_TPS, OUTPUT / day / DEC_TPS
    p0, d0 = math.ceil(pre / PRE_UNIT), math.ceil(dec / DEC_UNIT)
    fleet = p0 * PRE_UNIT + d0 * DEC_UNIT
    return p0, d0, fleet, PS.best_split(fleet, pre, dec * scale, PRE_UNIT, DEC_UNIT)


def numbers(t):
    scale = t.inputs.get("pools_scale", BOOK_SCALE)
    p0, d0, fleet, s = arithmetic(scale)
    return s, {
        "fleet": t.num(fleet, "int", name="shift_fleet"),
        "p0": t.num(p0, "int", name="shift_p0"), "d0": t.num(d0, "int", name="shift_d0"),
        "scale": t.num(scale, "num digits=1", name="pools_scale"),
        "p": t.num(s["prefill_units"], "int", name="pools_p"),
        "d": t.num(s["decode_units"], "int", name="pools_d"),
        "idle": t.num(s["idle_nodes"], "int", name="pools_idle"),
        "served": t.num(s["served"], "pct digits=1", name="pools_served",
                        expr="pool_shift.best_split(shift_fleet, pool_prefill, pool_decode * pools_scale, 4, 18)"),
        "pu": t.num(PRE_UNIT, "int", name="shift_pre_unit"),
        "du": t.num(DEC_UNIT, "int", name="shift_dec_unit"),
    }


def row(r, p, d, idle, d0):
    out, x = [], 0
    for _ in range(p):
        out.append((r, x, x + PRE_UNIT, PRE, ""))
        x += PRE_UNIT
    for k in range(d):
        out.append((r, x, x + DEC_UNIT, DEC if k < d0 else NEW, ""))
        x += DEC_UNIT
    if idle:
        out.append((r, x, x + idle, IDLE, ""))
    return out


def draw(fig, t):
    s, v = numbers(t)
    p0, d0, _, _ = arithmetic(t.inputs.get("pools_scale", BOOK_SCALE))
    bars = row(0, p0, d0, 0, d0) + row(1, s["prefill_units"], s["decode_units"], s["idle_nodes"], d0)
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(2, bars), [t["row_base"].format(**v), t["row_choice"].format(**v)],
                  {PRE: t["k_pre"].format(**v), DEC: t["k_dec"].format(**v), NEW: t["k_new"],
                   IDLE: t["k_idle"]}, t["x"].format(**v), bar_height=0.6)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
