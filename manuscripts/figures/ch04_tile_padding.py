"""Tile padding in a dense matmul (@sec-accelerators-padding): a prefill chunk of 300 tokens
(rows M) times Qwen3-8B's 4096-wide weight, 1024 of the output columns drawn, cut into 128x128
output tiles; the last row of tiles holds only M mod 128 real rows, the rest is padding that the
tensor cores compute anyway."""
import math

from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import kernels

SIZE = (6.4, 2.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("tp_chunk_small", "tp_tile", "tp_rows_small", "tp_last_rows", "tp_useful_small",
         "tp_cols_drawn")
ROWS, TILE, COLS = 300, 128, 1024


def numbers(t):
    padded = math.ceil(ROWS / TILE) * TILE
    return {"m": t.num(ROWS, "int", name="tp_chunk_small"),
            "tile": t.num(TILE, "int", name="tp_tile"),
            "padded": t.num(padded, "int", name="tp_rows_small"),
            "last": t.num(ROWS - (padded - TILE), "int", name="tp_last_rows"),
            "useful": t.num(kernels.padded_rows([ROWS], TILE)["useful"], "pct digits=1",
                            name="tp_useful_small"),
            "cols": t.num(COLS, "int", name="tp_cols_drawn")}


def draw(fig, t):
    v = numbers(t)
    tiles, kinds, labels = [], [], []
    for r in range(0, ROWS, TILE):
        for c in range(0, COLS, TILE):
            real = min(TILE, ROWS - r)
            tiles.append((r, c, real, TILE))
            kinds.append(0)
            labels.append("")
            if real < TILE:
                tiles.append((r + real, c, TILE - real, TILE))
                kinds.append(5)
                labels.append("")
    ax = fig.add_subplot()
    draw_tiles(ax, tiles, kinds, {0: t["real"].format(**v), 5: t["pad"].format(**v)})
    padded = math.ceil(ROWS / TILE) * TILE
    ax.text(-12, -ROWS / 2, t["rows"].format(**v), ha="right", va="center", fontsize=7, rotation=90)
    ax.text(COLS / 2, 14, t["cols"].format(**v), ha="center", va="bottom", fontsize=7)
    ax.set_xlim(-70, COLS + 10)
    ax.set_ylim(-padded - 10, 60)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
