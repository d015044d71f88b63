"""Preemption when the KV pool is full (@sec-workloads-state): three sequences hold all pages of
a small pool (pages of the chapter's 16 tokens, interleaved as decode allocates them,
`bookkit.diagrams.kv_block_table`); A's next token needs a new page, so the last admitted
sequence, C, is preempted and its pages freed; A takes one. The cost of bringing C back
(recompute vs swap) is the chapter's cell, in the title; it follows the reader's prompt and
output lengths (`INPUTS`)."""
from bookkit.diagrams import kv_block_table
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import formulas, hardware, models, serving

SIZE = (6.4, 2.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("pre_page_tokens", "pre_len", "pre_recompute_s", "pre_swap_s")
PAGE = 16                    # the chapter's pre_page_tokens
LENGTHS = [64, 48, 80]       # tokens of A, B, C: exactly the 12 pages of the drawn pool
POOL = 12
INPUTS = ("prompt_tokens", "output_tokens")     # the reader's prompt and output lengths


def numbers(t):
    m, gpu = models.get("qwen3-8b"), hardware.get("h100")
    n = t.inputs.get("prompt_tokens", 2000) + t.inputs.get("output_tokens", 500)   # alone: the book's
    kv = n * formulas.kv_bytes_per_token(m, dtype="bf16")
    return {"page": t.num(PAGE, "int", name="pre_page_tokens"),
            "len": t.num(n, "int", name="pre_len"),
            "recompute": t.num(formulas.forward(m, n, hw=gpu).totals.roofline_time_s,
                               "si unit=ms digits=0", name="pre_recompute_s"),
            "swap": t.num(2 * kv / serving.PCIE5_X16_UNIDIRECTIONAL, "si unit=ms digits=1",
                          name="pre_swap_s"),
            "pool": t.num(POOL, "int")}


def panel(ax, owners, names, title):
    cells = [(0, p, 1, 1) for p in range(POOL)]
    kinds = ["free" if o is None else o for o in owners]
    labels = ["" if o is None else names[o] for o in owners]
    draw_tiles(ax, cells, kinds, {}, labels=labels, fontsize=8)
    ax.set_title(title, fontsize=8)


def draw(fig, t):
    v = numbers(t)
    bt = kv_block_table(LENGTHS, PAGE, POOL)
    before = bt.owner()
    after = [None if o == 2 else o for o in before]
    after[bt.tables[2][0]] = 0                 # A takes the first page C gave back
    names = [t["a"], t["b"], t["c"]]
    top, bottom = fig.subplots(2, 1)
    panel(top, before, names, t["full"].format(**v))
    panel(bottom, after, names, t["after"].format(**v))
    from matplotlib.patches import Patch
    from bookkit.diagrams.draw import fill_of
    handles = [Patch(facecolor=fill_of(k)[0], hatch=fill_of(k)[1], edgecolor="#333333",
                     label=t[key]) for k, key in ((0, "seq_a"), (1, "seq_b"), (2, "seq_c"),
                                                  ("free", "free"))]
    bottom.legend(handles=handles, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.05),
                  ncol=4, frameon=False)
    fig.suptitle(t["title"].format(**v), fontsize=9)
    clear_under_text(top)
    clear_under_text(bottom)


def describe(t):
    return t["alt"].format(**numbers(t))
