"""One 8-card node's memory when it serves 128K-token sequences (@sec-model-architecture-example):
Llama-3.1-70B (BF16 weights) and DeepSeek-V3 (FP8 weights, BF16 KV), each column to scale
against the node's HBM: the weights, the KV of as many whole sequences as fit, what is left.
Follows the chapter's what-if `wi-kvlong` (the accelerator: `INPUTS`); the numbers are the
cells' (`formulas.memory_plan`)."""
from bookkit.diagrams import memory_map
from bookkit.diagrams.draw import draw_memory_map
from calculations import formulas, hardware, models

SIZE = (6.4, 3.4)
INPUTS = ("ex_hw_id",)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("node_hbm", "llama_node_seqs", "ds_node_seqs", "ctx_long_k", "node_gpus")
NODE = 8                # the chapter's node_gpus
CONTEXT = 131072        # the chapter's ctx_long


def numbers(t):
    hw = hardware.get(t.inputs.get("ex_hw_id", "h200"))     # drawn alone: the book's
    llama, ds = models.get("llama-3.1-70b"), models.get("deepseek-v3")
    pl = formulas.memory_plan(llama, hw.id, devices=NODE, context=CONTEXT, dtype="bf16")
    pd = formulas.memory_plan(ds, hw.id, devices=NODE, context=CONTEXT, dtype="fp8",
                              kv_dtype="bf16")
    cols = []
    for m, plan in ((llama, pl), (ds, pd)):
        kv = plan.max_batch * formulas.kv_cache_bytes(m, tokens=CONTEXT)
        cols.append((plan.capacity_bytes, plan.weight_bytes, kv))
    gb = "si unit=GB digits=0"
    return cols, {
        "hw": hw.name,
        "n": t.num(NODE, "int", name="node_gpus"),
        "hbm": t.num(pl.capacity_bytes, gb, name="node_hbm", expr="plan_llama.capacity_bytes"),
        "k": t.num(CONTEXT // 1024, "int", name="ctx_long_k"),
        "lw": t.num(pl.weight_bytes, gb, expr="plan_llama.weight_bytes"),
        "dw": t.num(pd.weight_bytes, gb, expr="plan_ds.weight_bytes"),
        "ls": t.num(pl.max_batch, "int", name="llama_node_seqs", expr="plan_llama.max_batch"),
        "ds": t.num(pd.max_batch, "int", name="ds_node_seqs", expr="plan_ds.max_batch"),
        "lkv": t.num(cols[0][2], gb, expr="llama_node_seqs * llama_kv_long"),
        "dkv": t.num(cols[1][2], gb, expr="ds_node_seqs * ds_kv_long"),
    }


def draw(fig, t):
    cols, v = numbers(t)
    for i, ((cap, w, kv), key) in enumerate(zip(cols, ("llama", "ds"))):
        ax = fig.add_subplot(1, 2, i + 1)
        draw_memory_map(ax, memory_map(cap, [("weights", w), ("kv", kv)]),
                        [t["weights"].format(w=v["lw" if key == "llama" else "dw"]),
                         t["kv"].format(seqs=v["ls" if key == "llama" else "ds"], k=v["k"],
                                        kv=v["lkv" if key == "llama" else "dkv"])],
                        t["free"], width=1.0, fontsize=7.5)
        ax.set_title(t[key], fontsize=8.5)
    fig.suptitle(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t)[1])
