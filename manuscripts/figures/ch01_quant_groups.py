"""Group quantisation drawn to scale in bits (@sec-getting-started-group-quant): 128 weights of
one row in three 4-bit formats, each group of g values followed by its s-bit scale, so a strip's
length is the bits it takes: b + s/g bits per weight (`gq_*` cells; the formats' group and
scale sizes are those of `serving.QUANT_FORMATS`)."""
from bookkit.diagrams.draw import text_on
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import serving

SIZE = (6.4, 2.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("gq_int4_bits", "gq_mx_bits", "gq_nv_bits", "gq_int4_group", "gq_mx_group",
         "gq_nv_group", "gq_int4_scale", "gq_mx_scale", "gq_nv_scale")
ELEM = 4            # bits of one 4-bit element (INT4 or FP4 E2M1)
ROW = 128           # weights drawn per format
# (format, cell prefix, group, scale bits): the chapter's gq_formats
FORMATS = (("int4-g128", "gq_int4", 128, 16), ("mxfp4", "gq_mx", 32, 8), ("nvfp4", "gq_nv", 16, 8))
ROW_H, ROW_GAP = 40, 30     # in bits, so the strips' heights read against their lengths


def numbers(t):
    out = []
    for key, cell, g, s in FORMATS:
        bits = ELEM + s / g
        assert abs(bits - (ELEM + serving.QUANT_FORMATS[key][1])) < 1e-12
        out.append({"g": t.num(g, "int", name=f"{cell}_group"),
                    "s": t.num(s, "int", name=f"{cell}_scale"),
                    "bits": t.num(bits, "num digits=3" if cell == "gq_int4" else
                                  "num digits=2" if cell == "gq_mx" else "num digits=1",
                                  name=f"{cell}_bits", expr=f"gq_elem_bits + {cell}_scale / {cell}_group"),
                    "row": t.num(ROW, "int"), "total": t.num(ROW * bits, "int")})
    return out


def draw(fig, t):
    v = numbers(t)
    tiles, kinds = [], []
    for r, (key, cell, g, s) in enumerate(FORMATS):
        y, x = r * (ROW_H + ROW_GAP), 0
        for _ in range(ROW // g):
            tiles.append((y, x, ROW_H, g * ELEM)); kinds.append(0); x += g * ELEM
            tiles.append((y, x, ROW_H, s)); kinds.append(1); x += s
    ax = fig.add_subplot()
    draw_tiles(ax, tiles, kinds, {0: t["values"].format(e=t.num(ELEM, "int")), 1: t["scale"]})
    ax.set_aspect("auto")
    longest = max(x0 + w for _, x0, _, w in tiles)
    for r, (key, cell, g, s) in enumerate(FORMATS):
        y = -(r * (ROW_H + ROW_GAP)) - ROW_H / 2
        ax.text(-8, y, t[f"name_{r}"].format(**v[r]), ha="right", va="center", fontsize=7)
        ax.text(longest + 8, y, t["per_weight"].format(**v[r]), ha="left", va="center",
                fontsize=7)
        text_on(ax, g * ELEM / 2, y, t["group"].format(**v[r]), "#a6c8ea", ha="center",
                va="center", fontsize=6)
    ax.set_xlim(-150, longest + 150)
    ax.set_title(t["title"].format(row=t.num(ROW, "int")), fontsize=9)
    clear_under_text(ax)


def describe(t):
    v = numbers(t)
    return t["alt"].format(row=t.num(ROW, "int"), e=t.num(ELEM, "int"),
                           **{f"{k}{r}": x for r, d in enumerate(v) for k, x in d.items()})
