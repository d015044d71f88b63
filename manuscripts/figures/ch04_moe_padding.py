"""MoE padding in decode (@sec-accelerators-padding): a DeepSeek-V3 decode batch routed to its
experts (a seeded uniform draw, `kernels.moe_routing_counts`, as the chapter's cell); each
expert's rows are padded up to one 64-row tile of the matrix unit. Sixteen of the experts are
drawn, to scale in rows; the useful share is over all of them (`kernels.padded_rows`)."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import kernels, models

SIZE = (6.4, 3.0)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("moe_dec_tokens", "moe_experts", "moe_topk", "moe_tile", "moe_dec_mean", "moe_dec_useful")
TOKENS, TILE, SHOWN = 256, 64, 16       # the chapter's moe_dec_tokens, moe_tile; experts drawn
SCALE = 8                                # rows per drawing unit


def counts():
    ds = models.get("deepseek-v3")
    return ds, kernels.moe_routing_counts(TOKENS, ds.num_experts, ds.experts_per_token)


def numbers(t):
    ds, c = counts()
    return {"tokens": t.num(TOKENS, "int", name="moe_dec_tokens"),
            "experts": t.num(ds.num_experts, "int", name="moe_experts"),
            "k": t.num(ds.experts_per_token, "int", name="moe_topk"),
            "tile": t.num(TILE, "int", name="moe_tile"),
            "mean": t.num(TOKENS * ds.experts_per_token / ds.num_experts, "num digits=0",
                          name="moe_dec_mean"),
            "useful": t.num(kernels.padded_rows(c, TILE)["useful"], "pct digits=1",
                            name="moe_dec_useful"),
            "shown": t.num(SHOWN, "int")}


def draw(fig, t):
    v = numbers(t)
    _, c = counts()
    cells, kinds, labels = [], [], []
    for e, rows in enumerate(c[:SHOWN]):
        x = e * 1.4
        pad = TILE - rows
        cells.append((0, x, pad / SCALE, 1)); kinds.append(3); labels.append("")
        cells.append((pad / SCALE, x, rows / SCALE, 1)); kinds.append(0)
        labels.append(str(rows))
    ax = fig.add_subplot()
    draw_tiles(ax, cells, kinds, {0: t["used"].format(**v), 3: t["pad"].format(**v)},
               labels=labels, fontsize=6)
    for e in range(SHOWN):
        ax.text(e * 1.4 + 0.5, -TILE / SCALE - 0.35, t["expert"].format(i=e + 1), ha="center",
                va="top", fontsize=5.5, rotation=90)
    ax.set_ylim(-TILE / SCALE - 2.2, 0.3)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
