"""Online softmax (@sec-operators-runtime-online-softmax): one row of the chapter's scores arrives
in two tiles; after each tile the running max m and the running sum l of exp(s - m) are updated,
and when the max grows the old sum is first scaled by exp(m_old - m_new). The last (m, l) equals
the one-pass max and sum (`kernels.online_softmax`, as the chapter's cell)."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import kernels

SIZE = (6.4, 2.7)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("os_n", "os_tile", "os_m1", "os_l1", "os_m2", "os_l2", "os_scale", "os_full_l")
SCORES = [1.0, 3.0, 0.5, 2.0, 4.0, 1.5, 0.0, 2.5]   # the chapter's os_scores
TILE = 4                                             # the chapter's os_tile


def numbers(t):
    run = kernels.online_softmax(SCORES, TILE)
    (a, b) = run["steps"]
    return {
        "n": t.num(len(SCORES), "int", name="os_n"), "tile": t.num(TILE, "int", name="os_tile"),
        "m1": t.num(a["m"], "num digits=1", name="os_m1"),
        "l1": t.num(a["l"], "num digits=4", name="os_l1"),
        "m2": t.num(b["m"], "num digits=1", name="os_m2"),
        "l2": t.num(b["l"], "num digits=4", name="os_l2"),
        "scale": t.num(b["scale"], "num digits=4", name="os_scale"),
        "full": t.num(run["full_l"], "num digits=4", name="os_full_l"),
    }


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    cells = [(0, i, 1, 1) for i in range(len(SCORES))]
    kinds = [i // TILE for i in range(len(SCORES))]
    draw_tiles(ax, cells, kinds, {0: t["tile1"].format(**v), 1: t["tile2"].format(**v)},
               labels=[t.num(s, "num digits=1") for s in SCORES], fontsize=8)
    half = TILE / 2
    ax.text(half, 0.35, t["step1"].format(**v), ha="center", va="bottom", fontsize=7.5)
    ax.text(TILE + half, 0.35, t["step2"].format(**v), ha="center", va="bottom", fontsize=7.5)
    # the old sum carried into the second tile's update, scaled on the way
    ax.annotate("", xy=(TILE + half, 0.95), xytext=(half, 0.95),
                arrowprops={"arrowstyle": "->", "color": "#555555", "lw": 0.8,
                            "connectionstyle": "arc3,rad=-0.15"})
    ax.text(TILE, 1.4, t["rescale"].format(**v), ha="center", va="bottom", fontsize=7.5)
    ax.text(len(SCORES) / 2, -1.45, t["check"].format(**v), ha="center", va="top", fontsize=7.5)
    ax.set_xlim(-0.2, len(SCORES) + 0.2)
    ax.set_ylim(-2.0, 2.3)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
