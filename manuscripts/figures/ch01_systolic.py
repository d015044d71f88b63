"""A weight-stationary systolic array at one clock cycle (@sec-getting-started-systolic), drawn
4 x 4 for legibility: weights preloaded in the cells; row i's activations enter at the left one
cycle after row i-1's and move right; partial sums move down into the accumulators. Each cell
shows which input vector it works on this cycle, so one vector's cells lie on an anti-diagonal
(the wavefront); the cells below it are still filling. The rates are TPU v1's (`sa_*` cells,
`dataflow.systolic_operand_traffic` with 256 x 256 cells at 700 MHz)."""
from bookkit.diagrams.draw import fill_of, text_on
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import dataflow

SIZE = (6.4, 3.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("sa_n", "sa_in", "sa_out", "sa_naive", "sa_reuse")
N = 256             # the chapter's sa_n (TPU v1)
CLOCK = 700e6       # the chapter's tpu1_clock
SHOW = 4            # cells drawn per side
CYCLE = 3           # the cycle drawn (0-based): vector k is in cell (i, j) when k = CYCLE - i - j
QUEUE = 2           # activations drawn waiting at the left of each row


def numbers(t):
    s = dataflow.systolic_operand_traffic(N, N, CLOCK, operand_bytes=1, acc_bytes=4)
    return {"n": t.num(N, "int", name="sa_n"),
            "in": t.num(s["edge_in_bytes_per_s"], "si unit=GB/s digits=0", name="sa_in",
                        expr='sa["edge_in_bytes_per_s"]'),
            "out": t.num(s["edge_out_bytes_per_s"], "si unit=GB/s digits=0", name="sa_out",
                         expr='sa["edge_out_bytes_per_s"]'),
            "naive": t.num(s["naive_bytes_per_s"], "si unit=TB/s digits=1", name="sa_naive",
                           expr='sa["naive_bytes_per_s"]'),
            "reuse": t.num(s["reuse"], "int", name="sa_reuse", expr='sa["reuse"]'),
            "show": t.num(SHOW, "int")}


def draw(fig, t):
    from matplotlib.patches import FancyArrowPatch, Rectangle
    v = numbers(t)
    ax = fig.add_subplot()
    top = 1.0                        # the weight FIFO's row above the array
    left = QUEUE + 0.6               # the array's left edge, after the waiting activations
    tiles, kinds, labels = [], [], []
    for i in range(SHOW):
        for j in range(SHOW):
            k = CYCLE - i - j
            tiles.append((top + i, left + j, 1, 1))
            kinds.append(k % 6 if k >= 0 else "free")
            labels.append(t["vec"].format(k=k + 1) if k >= 0 else t["idle"])
        for q in range(QUEUE):       # the next inputs of row i: vectors CYCLE - i + 1, ...
            k = CYCLE - i + 1 + q
            tiles.append((top + i + 0.15, left - 1 - q - 0.05, 0.7, 0.8))
            kinds.append(k % 6)
            labels.append(t["vec"].format(k=k + 1))
    draw_tiles(ax, tiles, kinds, {}, labels=labels, fontsize=7)
    # the weight FIFO above and the accumulators below (boxes without a data fill)
    for y, key in ((0.15, "fifo"), (top + SHOW + 0.25, "acc")):
        ax.add_patch(Rectangle((left, -y - 0.6), SHOW, 0.6, facecolor="#ffffff",
                               edgecolor="#333333", lw=0.8))
        ax.text(left + SHOW / 2, -y - 0.3, t[key], ha="center", va="center", fontsize=7)
    arrow = dict(arrowstyle="-|>", mutation_scale=9, color="#333333", lw=0.9)
    ax.add_patch(FancyArrowPatch((left + SHOW + 0.3, -0.45), (left + SHOW + 0.3, -top - 0.4),
                                 **arrow))
    ax.text(left + SHOW + 0.45, -0.6, t["weights"], ha="left", va="center", fontsize=7)
    ax.add_patch(FancyArrowPatch((0.0, -top + 0.25), (left - 0.1, -top + 0.25), **arrow))
    # between the left edge and the weight FIFO: drawn smaller if a language's words need it
    text_on(ax, 0.0, -top + 0.35, t["acts"].format(**v), fit=left - 0.2, ha="left",
            va="bottom", fontsize=7)
    ax.add_patch(FancyArrowPatch((left + SHOW + 0.3, -top - SHOW + 0.6),
                                 (left + SHOW + 0.3, -top - SHOW - 0.55), **arrow))
    ax.text(left + SHOW + 0.45, -top - SHOW + 0.1, t["sums"].format(**v), ha="left",
            va="center", fontsize=7)
    ax.text(left + SHOW + 0.45, -top - SHOW / 2 + 0.3, t["note"].format(**v), ha="left",
            va="center", fontsize=7)
    ax.set_xlim(-0.2, left + SHOW + 5.2)
    ax.set_ylim(-(top + SHOW + 1.1), 0.2)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
