"""TMA's 128-byte swizzle (@sec-accelerators-tma-layout): one box's 8 rows of 128 bytes, each
row eight 16-byte chunks, written into shared memory whose 32 banks x 4 bytes span exactly one
row. Left: written as is, logical chunk c of every row lands on bank group c, so reading chunk 0
of 8 rows is an 8-way conflict. Right: chunk c of row r goes to position c XOR r, and chunk 0 of
the 8 rows spreads over 8 bank groups (1-way)."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import kernels

SIZE = (6.4, 3.2)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("tma_chunks", "tma_bank_row", "tma_ways_plain", "tma_ways_swizzle")
CHUNK = 16


def layout(swizzle):
    n = kernels.SMEM_BANKS * kernels.SMEM_BANK_BYTES // CHUNK
    tiles, kinds, labels, ways = [], [], [], {}
    for r in range(n):
        for c in range(n):
            pos = c ^ r if swizzle else c
            tiles.append((r, pos, 1, 1))
            kinds.append(1 if c == 0 else 0)
            labels.append(str(c))
            if c == 0:
                ways[pos] = ways.get(pos, 0) + 1
    return tiles, kinds, labels, max(ways.values()), n


def numbers(t):
    _, _, _, plain, n = layout(False)
    _, _, _, swz, _ = layout(True)
    return {"n": t.num(n, "int", name="tma_chunks"),
            "row": t.num(kernels.SMEM_BANKS * kernels.SMEM_BANK_BYTES, "int", name="tma_bank_row"),
            "plain": t.num(plain, "int", name="tma_ways_plain"),
            "swz": t.num(swz, "int", name="tma_ways_swizzle")}


def draw(fig, t):
    v = numbers(t)
    for k, swizzle in enumerate((False, True)):
        tiles, kinds, labels, _, n = layout(swizzle)
        ax = fig.add_subplot(1, 2, k + 1)
        names = {1: t["chunk0"], 0: t["other"]} if k == 1 else {}
        draw_tiles(ax, tiles, kinds, names, labels, fontsize=6)
        ax.set_title(t["swizzled" if swizzle else "plain"].format(**v), fontsize=8)
        ax.text(n / 2, 0.35, t["banks"].format(**v), ha="center", va="bottom", fontsize=6.5)
        ax.text(-0.3, -n / 2, t["rows"].format(**v), ha="right", va="center", fontsize=6.5,
                rotation=90)
        ax.set_xlim(-1.2, n + 0.2)
        ax.set_ylim(-n - 0.3, 1.2)
        clear_under_text(ax)
    ax = fig.axes[1]
    handles = ax.get_legend().legend_handles
    ax.legend(handles=handles, fontsize=7, loc="upper center", bbox_to_anchor=(-0.2, 0.0),
              ncol=1, frameon=False)


def describe(t):
    return t["alt"].format(**numbers(t))
