"""Why causal attention allows a KV cache (@sec-model-architecture-causal): the attention
pairs of a short sequence as a grid, query rows against key/value columns. Above the diagonal
is masked; the prompt's rows were computed at prefill; each decode step adds one row, whose
query meets the cached K/V of every earlier token and the new token's own K/V. The earlier
rows never change, so their K/V can be kept (`mask_*` cells)."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles

SIZE = (6.4, 3.4)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("mask_prompt", "mask_new", "mask_pairs_prefill", "mask_pairs_cached",
         "mask_pairs_recompute")
PROMPT, NEW = 6, 2      # the chapter's mask_prompt, mask_new


def numbers(t):
    cached = sum(PROMPT + i + 1 for i in range(NEW))
    recompute = sum((PROMPT + i + 1) * (PROMPT + i + 2) // 2 for i in range(NEW))
    return {"p": t.num(PROMPT, "int", name="mask_prompt"),
            "new": t.num(NEW, "int", name="mask_new"),
            "pre": t.num(PROMPT * (PROMPT + 1) // 2, "int", name="mask_pairs_prefill",
                         expr="mask_prompt * (mask_prompt + 1) // 2"),
            "cached": t.num(cached, "int", name="mask_pairs_cached"),
            "re": t.num(recompute, "int", name="mask_pairs_recompute")}


def draw(fig, t):
    v = numbers(t)
    n = PROMPT + NEW
    tiles, kinds = [], []
    for r in range(n):
        for c in range(n):
            tiles.append((r, c, 1, 1))
            kinds.append("free" if c > r else 0 if r < PROMPT else 2 if c == r else 1)
    ax = fig.add_subplot()
    draw_tiles(ax, tiles, kinds, {0: t["k_prefill"], 1: t["k_cached"], 2: t["k_new"],
                                  "free": t["k_masked"]}, fontsize=6)
    for i in range(n):
        ax.text(-0.3, -i - 0.5, t.num(i + 1, "int"), ha="right", va="center", fontsize=6.5)
        ax.text(i + 0.5, 0.3, t.num(i + 1, "int"), ha="center", va="bottom", fontsize=6.5)
    ax.text(-1.3, -n / 2, t["rows"], ha="right", va="center", fontsize=7, rotation=90)
    ax.text(n / 2, 1.2, t["cols"], ha="center", va="bottom", fontsize=7)
    for i in range(NEW):
        ax.text(n + 0.4, -(PROMPT + i) - 0.5,
                t["step"].format(i=t.num(i + 1, "int"), pairs=t.num(PROMPT + i + 1, "int")),
                ha="left", va="center", fontsize=7)
    ax.text(n + 0.4, -PROMPT / 2, t["prefill"].format(**v), ha="left", va="center", fontsize=7)
    ax.set_xlim(-2.2, n + 7.5)
    ax.set_ylim(-n - 0.3, 2.2)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
