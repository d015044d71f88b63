"""The reticle limit (@sec-accelerators-host-link): one exposure of the lithography scanner
covers at most 26 mm x 33 mm; the H100's GH100 die (814 mm^2) nearly fills it, and B200 joins
two dies near the limit with a die-to-die link. Fields and dies drawn to scale in mm (a die's
real outline is not published: drawn as a rectangle of its area, as wide as the field)."""
from bookkit.diagrams.draw import fill_of, text_on

SIZE = (6.4, 3.3)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("reticle_w_mm", "reticle_h_mm", "reticle_mm2", "gh100_mm2", "gh100_reticle_share",
         "b200_d2d")
W, H, GH100 = 26, 33, 814       # the chapter's reticle_w_mm, reticle_h_mm, gh100_mm2
B200_D2D = 10e12                # the chapter's b200_d2d (NVIDIA)


def numbers(t):
    return {"w": t.num(W, "int", name="reticle_w_mm"), "h": t.num(H, "int", name="reticle_h_mm"),
            "field": t.num(W * H, "int", name="reticle_mm2"),
            "gh100": t.num(GH100, "int", name="gh100_mm2"),
            "share": t.num(GH100 / (W * H), "pct digits=0", name="gh100_reticle_share"),
            "d2d": t.num(B200_D2D, "si unit=TB/s digits=0", name="b200_d2d")}


def field(ax, x, label, fill, text, fontsize=7):
    from matplotlib.patches import Rectangle
    ax.add_patch(Rectangle((x, 0), W, H, facecolor="none", edgecolor="#555555", lw=0.8, ls="--"))
    h = GH100 / W
    ax.add_patch(Rectangle((x, (H - h) / 2), W, h, facecolor=fill[0], hatch=fill[1],
                           edgecolor="#333333", lw=0.7))
    text_on(ax, x + W / 2, H / 2, text, fill[0], ha="center", va="center", fontsize=fontsize)
    ax.text(x + W / 2, -1.5, label, ha="center", va="top", fontsize=7.5)


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_aspect("equal")
    field(ax, 0, t["h100"].format(**v), fill_of("gpu"), t["die"].format(**v))
    gap = 16
    x2 = W + 14
    field(ax, x2, "", fill_of(2), t["b_die"].format(**v), fontsize=6.5)
    field(ax, x2 + W + gap, "", fill_of(2), t["b_die"].format(**v), fontsize=6.5)
    ax.annotate("", xy=(x2 + W + gap, H / 2), xytext=(x2 + W, H / 2),
                arrowprops={"arrowstyle": "<->", "color": "#333333", "lw": 1.4})
    ax.text(x2 + W + gap / 2, H / 2 + 2.5, t["link"].format(**v), ha="center", va="bottom",
            fontsize=6.5)
    ax.text(x2 + W + gap / 2, -1.5, t["b200"].format(**v), ha="center", va="top", fontsize=7.5)
    ax.text(W / 2, H + 1.2, t["field"].format(**v), ha="center", va="bottom", fontsize=7)
    ax.set_xlim(-1, x2 + 2 * W + gap + 1)
    ax.set_ylim(-6, H + 6)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
