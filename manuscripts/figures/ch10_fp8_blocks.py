"""FP8 block scaling as DeepSeek-V3 trains with it (@sec-training-systems-low-precision): an
activation tensor cut into 1 x `fp8_tile` tiles (one token, `fp8_tile` channels) and a weight
matrix cut into `fp8_tile` x `fp8_tile` blocks, each tile or block with its own FP32 scale
(amax / `e4m3_max`). One outlier (`outlier_ratio` times a typical block's largest value) sits
in one activation tile: only that tile's scale grows. Overheads `a_over`, `w_over` and the
zero thresholds `thr_tensor`, `thr_block` from `calculations.training_extras`, as the chapter
computes them. Activation rows are drawn taller than to scale (a 1 x 128 tile would be a line)."""
from bookkit.diagrams.draw import fill_of, text_on
from bookkit.diagrams.extra import clear_under_text
from calculations import training_extras as tx

SIZE = (6.4, 3.0)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("fp8_tile", "e4m3_max", "a_over", "w_over", "outlier_ratio", "thr_tensor", "thr_block")
TILE, OUTLIER = 128, 1000             # the chapter's fp8_tile, outlier_ratio
TOKENS, CHANNELS = 6, 4 * TILE        # the activation drawn: 6 tokens x 512 channels
OUT_ROW, OUT_TILE = 2, 2              # where the outlier sits


def numbers(t):
    e4m3 = tx.fmt("fp8-e4m3")
    return {
        "tile": t.num(TILE, "int", name="fp8_tile"),
        "max": t.num(e4m3.max_normal, "int", name="e4m3_max"),
        "a_over": t.num(tx.scale_overhead(TILE), "pct digits=3", name="a_over",
                        expr="tx.scale_overhead(fp8_tile)"),
        "w_over": t.num(tx.scale_overhead(TILE * TILE), "pct digits=3", name="w_over",
                        expr="tx.scale_overhead(fp8_tile * fp8_tile)"),
        "ratio": t.num(OUTLIER, "int", name="outlier_ratio"),
        "thr_tensor": t.num(tx.zero_below(OUTLIER), "pct digits=2", name="thr_tensor",
                            expr="tx.zero_below(outlier_ratio)"),
        "thr_block": t.num(tx.zero_below(1.0), "sci sig=2", name="thr_block",
                           expr="tx.zero_below(1.0)"),
    }


def _tile(ax, x, y, w, h, kind, label, fontsize=6):
    from matplotlib.patches import Rectangle
    fill, hatch = fill_of(kind)
    ax.add_patch(Rectangle((x, y), w, h, facecolor=fill, hatch=hatch, edgecolor="#333333",
                           lw=0.6))
    if label:
        text_on(ax, x + w / 2, y + h / 2, label, fill, ha="center", va="center",
                fontsize=fontsize)


def draw(fig, t):
    from matplotlib.patches import Patch
    v = numbers(t)
    ax = fig.add_subplot()
    ax.set_axis_off()
    # left: activations, TOKENS rows x (CHANNELS / TILE) tiles; a tile is 1 unit wide, 0.5 high
    for r in range(TOKENS):
        for c in range(CHANNELS // TILE):
            hot = (r, c) == (OUT_ROW, OUT_TILE)
            _tile(ax, c, TOKENS * 0.5 - (r + 1) * 0.5, 1, 0.5, 3 if hot else 0,
                  "s×" + v["ratio"] if hot else "s")
    ax.text(2, TOKENS * 0.5 + 0.25, t["act"].format(**v), ha="center", va="bottom", fontsize=7.5)
    ax.text(2, -0.25, t["act_note"].format(**v), ha="center", va="top", fontsize=6.5)
    # right: weights, 4 x 4 blocks of TILE x TILE drawn as 0.75 x 0.75 squares
    x0, side = 5.8, 0.75
    for r in range(4):
        for c in range(4):
            _tile(ax, x0 + c * side, 3 - (r + 1) * side, side, side, 0, "s")
    ax.text(x0 + 2 * side, 3.25, t["wgt"].format(**v), ha="center", va="bottom", fontsize=7.5)
    ax.text(x0 + 2 * side, -0.25, t["wgt_note"].format(**v), ha="center", va="top", fontsize=6.5)
    ax.text(4.35, -0.95, t["compare"].format(**v), ha="center", va="top", fontsize=6.5)
    ax.legend(handles=[Patch(facecolor=fill_of(k)[0], hatch=fill_of(k)[1], edgecolor="#333333",
                             label=t[name].format(**v)) for k, name in ((0, "one_scale"),
                                                                         (3, "outlier"))],
              fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=2, frameon=False)
    ax.set_xlim(-0.3, x0 + 4 * side + 0.3)
    ax.set_ylim(-1.9, 4.3)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
