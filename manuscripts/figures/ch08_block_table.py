"""Paged KV (@sec-inference-optimization-paged): three sequences growing token by token get
blocks of `paged_block` = 16 tokens from one pool as they need them, so their blocks interleave;
the block table maps each sequence's logical blocks to physical ones. Waste is only the last,
partly filled block of each sequence (`serving.paged_kv_waste`)."""
from bookkit.diagrams import kv_block_table
from bookkit.diagrams.draw import draw_block_table
from calculations import serving

SIZE = (6.4, 3.0)
BLOCK = 16              # the chapter's paged_block (vLLM's default; a test holds them equal)
LENGTHS = [37, 20, 50]  # tokens so far of three sequences
POOL = 16


def numbers(t):
    bt = kv_block_table(LENGTHS, BLOCK, POOL)
    pg = serving.paged_kv_waste(LENGTHS, BLOCK, max(LENGTHS))
    assert bt.wasted_tokens == pg["paged_tokens"] - pg["used_tokens"]
    return bt, {
        "b": t.num(BLOCK, "int", name="paged_block"),
        "lens": t["and"].join(t.num(n, "int") for n in LENGTHS),
        "blocks": t["and"].join(t.num(len(x), "int") for x in bt.tables),
        "pool": t.num(POOL, "int"),
        "used": t.num(sum(len(x) for x in bt.tables), "int"),
        "waste": t.num(pg["paged_waste"], "pct digits=1", name="paged_waste (3 sequences)",
                       expr="serving.paged_kv_waste([37, 20, 50], 16, 50)['paged_waste']"),
    }


def draw(fig, t):
    bt, v = numbers(t)
    ax = fig.add_subplot()
    draw_block_table(ax, bt, [t["seq"].format(i=i + 1) for i in range(len(LENGTHS))],
                     t["pool_label"].format(**v), t["table_label"].format(**v), columns=8)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
