"""Shared-memory bank conflicts (@sec-operators-runtime-banks): the first rows of a 32 x 32 FP32
tile in shared memory, each 4-byte word coloured by nothing but whether the warp reads it and
labelled with its bank, (word address) mod 32. Reading a column, thread i reads word 32 i (no
padding: every word in bank 0, 32 passes) or word 33 i (each row padded by one word: 32
different banks, one pass), `kernels.bank_conflict_ways` as the chapter's cell."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import kernels

SIZE = (6.4, 3.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("bank_n", "bank_col_ways", "bank_pad_ways")
ROWS = 6            # rows of the tile drawn (of 32)
COLS = 32           # words per row of the tile: one FP32 row is 32 words


def numbers(t):
    banks = kernels.SMEM_BANKS
    return {"banks": t.num(banks, "int", name="bank_n"),
            "ways": t.num(kernels.bank_conflict_ways(COLS), "int", name="bank_col_ways"),
            "pad_ways": t.num(kernels.bank_conflict_ways(COLS + 1), "int", name="bank_pad_ways"),
            "rows": t.num(ROWS, "int"), "cols": t.num(COLS, "int")}


def panel(ax, stride, t, v, title):
    """Row r of the tile starts at word r * stride; the warp reads column 0 of each row."""
    cells, kinds, labels = [], [], []
    banks = kernels.SMEM_BANKS
    for r in range(ROWS):
        for c in range(stride):
            cells.append((r, c, 1, 1))
            read = c == 0
            kinds.append(1 if read else (5 if c >= COLS else 0))
            bank = (r * stride + c) % banks
            # label the words read and the first row (the bank numbering); the rest stay plain
            labels.append(str(bank) if read or r == 0 else "")
    names = {0: t["word"], 1: t["read"], 5: t["pad"]} if stride > COLS else {}
    draw_tiles(ax, cells, kinds, names, labels=labels, fontsize=5)
    ax.set_xlim(-0.5, COLS + 1.5)
    ax.set_ylim(-ROWS - 0.3, 0.3)
    ax.set_title(title.format(**v), fontsize=8)


def draw(fig, t):
    v = numbers(t)
    top, bottom = fig.subplots(2, 1)
    panel(top, COLS, t, v, t["plain"])
    panel(bottom, COLS + 1, t, v, t["padded"])
    fig.suptitle(t["title"].format(**v), fontsize=9)
    clear_under_text(top)
    clear_under_text(bottom)


def describe(t):
    return t["alt"].format(**numbers(t))
