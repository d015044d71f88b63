"""Causal attention in blocks (@sec-operators-runtime-example-attention): one head of Qwen3-8B
at an 8K context, the score matrix cut into the chapter's tiled-kernel blocks (B = block_c for
head_dim 128 on the H100's shared memory, `kernels.attention_io`). In the Q-outer loop, Q block i
needs K/V blocks 0..i: blocks below the diagonal are computed whole, diagonal blocks are masked
inside, blocks above are never loaded. Each row is one thread block's work."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import kernels, models

SIZE = (6.4, 4.2)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("att8_block", "att8_tr", "att8_blocks_done", "att8_blocks_total", "att8_done_share")
CONTEXT = 8192          # the chapter's first context
FULL, DIAG, SKIP = 0, 1, "free"


def grid():
    d = models.get("qwen3-8b").head_dim
    a = kernels.attention_io(CONTEXT, d, causal=True)
    tr = a["passes_q_outer"]
    cells, kinds = [], []
    for i in range(tr):             # Q block (row)
        for j in range(tr):         # K/V block (column)
            cells.append((i, j, 1, 1))
            kinds.append(FULL if j < i else DIAG if j == i else SKIP)
    return a, tr, cells, kinds


def numbers(t):
    a, tr, _, kinds = grid()
    done = sum(1 for k in kinds if k != SKIP)
    assert done == tr * (tr + 1) // 2
    return {"n": t.num(CONTEXT, "int", name="att_demo_context"),
            "b": t.num(a["block_c"], "int", name="att8_block"),
            "tr": t.num(tr, "int", name="att8_tr"),
            "done": t.num(done, "int", name="att8_blocks_done"),
            "total": t.num(tr * tr, "int", name="att8_blocks_total"),
            "share": t.num(done / (tr * tr), "pct digits=0", name="att8_done_share")}


def draw(fig, t):
    _, _, cells, kinds = grid()
    v = numbers(t)
    ax = fig.add_subplot()
    draw_tiles(ax, cells, kinds, {FULL: t["full"], DIAG: t["diag"], SKIP: t["skip"]})
    ax.text(0, 0.6, t["keys"], ha="left", va="bottom", fontsize=7.5)
    ax.text(-0.8, 0, t["queries"], ha="right", va="top", fontsize=7.5, rotation=90)
    ax.set_title(t["title"].format(**v), fontsize=9, pad=16)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
