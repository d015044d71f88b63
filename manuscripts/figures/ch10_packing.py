"""Padding against packing (@sec-training-systems-packing): the chapter's `seq_n` sequences
(`seq_tokens` tokens) in arrival order. Left: `pad_batch` at a time, each padded to its
batch's longest (`pad_waste` of the stored positions are padding). Right: packed end to end
into rows of `pack_row` tokens by first-fit decreasing (`pack_rows_n` rows, `pack_waste`
empty). Drawn to scale in tokens; computed by `calculations.training_extras`."""
from bookkit.diagrams.draw import fill_of
from calculations import training_extras as tx

SIZE = (6.4, 3.2)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("seq_n", "seq_tokens", "pad_batch", "pack_row", "pad_waste", "pack_rows_n",
         "pack_waste")
# the chapter's seq_lens (arrival order), pad_batch, pack_row
LENGTHS = [620, 3900, 180, 1450, 300, 2100, 90, 760, 1200, 410, 2600, 150, 950, 60, 1800, 260]
BATCH, ROW = 4, 4096


def numbers(t):
    pad, pack = tx.pad_batches(LENGTHS, BATCH), tx.pack_rows(LENGTHS, ROW)
    return {
        "n": t.num(len(LENGTHS), "int", name="seq_n"),
        "tokens": t.num(sum(LENGTHS), "int", name="seq_tokens"),
        "batch": t.num(BATCH, "int", name="pad_batch"), "row": t.num(ROW, "int", name="pack_row"),
        "pad_waste": t.num(pad["waste"], "pct digits=0", name="pad_waste"),
        "rows": t.num(pack["count"], "int", name="pack_rows_n"),
        "pack_waste": t.num(pack["waste"], "pct digits=0", name="pack_waste"),
    }


def _bar(ax, x, y, w, kind, h=0.8):
    from matplotlib.patches import Rectangle
    if kind == "free":
        ax.add_patch(Rectangle((x, y), w, h, facecolor="none", edgecolor="#777777", lw=0.5,
                               ls="--"))
        return
    fill, hatch = fill_of(kind)
    ax.add_patch(Rectangle((x, y), w, h, facecolor=fill, hatch=hatch, edgecolor="#333333",
                           lw=0.4))


def draw(fig, t):
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    v = numbers(t)
    pad_ax, pack_ax = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1]})
    # left: one row per sequence, grouped by micro-batch, padding to the batch's longest
    y = 0.0
    for b in range(0, len(LENGTHS), BATCH):
        group = LENGTHS[b:b + BATCH]
        for i, n in enumerate(group):
            _bar(pad_ax, 0, -y, n, (b + i) % 2 * 2)        # alternate kinds 0 / 2 per sequence
            _bar(pad_ax, n, -y, max(group) - n, 5)        # padding
            y += 1
        y += 0.6
    pad_ax.set_ylim(-y + 0.4, 1.2)
    pad_ax.set_title(t["pad_title"].format(**v), fontsize=8)
    # right: packed rows, sequences end to end, the rest of each row empty
    for r, row in enumerate(sorted(tx.pack_rows(LENGTHS, ROW)["rows"],
                                   key=lambda row: -sum(n for _, _, n in row))):
        for i, start, n in row:
            _bar(pack_ax, start, -r * 1.3, n, i % 2 * 2, h=1.0)
        used = sum(n for _, _, n in row)
        _bar(pack_ax, used, -r * 1.3, ROW - used, "free", h=1.0)
    pack_ax.set_ylim(-y * 1.3 / 1.6 + 0.4, 1.6)
    pack_ax.set_title(t["pack_title"].format(**v), fontsize=8)
    for ax in (pad_ax, pack_ax):
        ax.set_xlim(0, ROW * 1.02)
        ax.set_yticks([])
        ax.tick_params(axis="x", labelsize=7)
        ax.set_xlabel(t["x"], fontsize=8)
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
    # the legend sits in the packed panel's empty lower half (a figure legend would collide
    # with the x labels after the pipeline's tight layout)
    pack_ax.legend(handles=[Patch(facecolor=fill_of(0)[0], edgecolor="#333333", label=t["seq"]),
                        Patch(facecolor=fill_of(2)[0], hatch=fill_of(2)[1], edgecolor="#333333",
                              label=t["seq2"]),
                        Patch(facecolor=fill_of(5)[0], hatch=fill_of(5)[1], edgecolor="#333333",
                              label=t["padding"]),
                        Line2D([], [], color="#777777", ls="--", lw=0.8, label=t["empty"])],
               fontsize=7, loc="lower center", ncol=2, frameon=False)
    fig.suptitle(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
