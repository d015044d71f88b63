"""Split-K for decode (@sec-operators-runtime-waves, the decode paragraph): Qwen3-8B's Q
projection at batch 1 reads a hidden x hidden weight; cut into the chapter's tile_n-wide column
tiles it gives only a few thread blocks, most SMs idle. Split along k into sk slices, every
slice of every column tile is its own block, and the sk FP32 partial sums are added at the end
(`kernels.waves`). The weight is drawn to scale, k down and n across."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import formulas, kernels, models

SIZE = (6.4, 4.0)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("hidden", "dec_tiles", "dec_sm_share", "sk", "sk_tiles", "sk_sm_share", "h100_sms",
         "sk_partial_bytes")
TILE_M, TILE_N = 128, 256      # the chapter's tile_m, tile_n
SK = 8                         # the chapter's sk


def numbers(t):
    hidden = models.get("qwen3-8b").hidden_size
    w = kernels.waves(1, hidden, TILE_M, TILE_N)
    tiles = w["tiles"]
    return hidden, tiles, {
        "k": t.num(hidden, "int", name="hidden"),
        "tiles": t.num(tiles, "int", name="dec_tiles"),
        "share": t.num(tiles / w["sms"], "pct digits=0", name="dec_sm_share"),
        "sk": t.num(SK, "int", name="sk"),
        "sk_tiles": t.num(tiles * SK, "int", name="sk_tiles"),
        "sk_share": t.num(tiles * SK / w["sms"], "pct digits=0", name="sk_sm_share"),
        "sms": t.num(w["sms"], "int", name="h100_sms"),
        "partial": t.num(2 * SK * hidden * formulas.nbytes(1, "fp32"), "si unit=kB digits=0",
                         name="sk_partial_bytes")}


def draw(fig, t):
    hidden, tiles, v = numbers(t)
    unit = hidden / tiles                       # one column tile's width, drawn as 1
    one = [(0, c, hidden / unit, 1) for c in range(tiles)]
    h = hidden / SK / unit
    split = [(r * h, c, h, 1) for r in range(SK) for c in range(tiles)]
    a1 = fig.add_subplot(1, 2, 1)
    draw_tiles(a1, one, [0] * tiles, {0: t["block"]})
    a1.set_title(t["left"].format(**v), fontsize=8.5)
    a2 = fig.add_subplot(1, 2, 2)
    draw_tiles(a2, split, [1] * len(split), {1: t["slice"]})
    a2.set_title(t["right"].format(**v), fontsize=8.5)
    fig.suptitle(t["title"].format(**v), fontsize=9)
    clear_under_text(a1)
    clear_under_text(a2)


def describe(t):
    return t["alt"].format(**numbers(t)[2])
