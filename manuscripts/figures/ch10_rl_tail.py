"""A synchronous rollout batch waits for its longest answer (@sec-training-systems-rl-async):
the chapter's 16 example lengths (`seq_lens` of @sec-training-systems-packing, standing in for
answer lengths) sorted, one row per answer: generating from step 0 to its length, then its slot
idle until the longest ends; the mean slot use is `tail_slot_use` (mean over max)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import timeline

SIZE = (6.4, 3.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("tail_n", "tail_max", "tail_mean", "tail_slot_use")
LENS = [620, 3900, 180, 1450, 300, 2100, 90, 760, 1200, 410, 2600, 150, 950, 60, 1800, 260]  # seq_lens


def numbers(t):
    lens = sorted(LENS)
    mean, top = sum(lens) / len(lens), max(lens)
    return lens, {
        "n": t.num(len(lens), "int", name="tail_n"),
        "max": t.num(top, "int", name="tail_max"),
        "mean": t.num(mean, "num digits=0", name="tail_mean"),
        "use": t.num(mean / top, "pct digits=0", name="tail_slot_use",
                     expr="tail_mean / tail_max"),
    }


def draw(fig, t):
    lens, v = numbers(t)
    top = max(lens)
    bars = []
    for r, L in enumerate(lens):
        bars.append((r, 0, L, "F", ""))
        if L < top:
            bars.append((r, L, top, 3, ""))
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(len(lens), bars),
                  [t.num(L, "int") for L in lens], {"F": t["gen"], 3: t["idle"]},
                  t["x"], bar_height=0.7)
    ax.set_ylabel(t["y"], fontsize=8)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
