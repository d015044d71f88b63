"""One H100's memory serving fine-tuned versions of Qwen3-8B two ways
(@sec-inference-optimization-lora), to scale: left, every version merged into its own full copy
of the weights (lora_merged_models fit, with no room for KV); right, one base plus lora_gpu
resident rank-16 LoRA adapters (`sampling.lora_params`), the rest of the usable memory holding
the KV of lora_batch sequences of ctx_a tokens."""
from bookkit.diagrams import memory_map
from bookkit.diagrams.draw import draw_memory_map
from calculations import formulas, hardware, models, sampling

SIZE = (6.4, 3.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('w_resident', 'lora_merged_models', 'lora_gpu', 'lora_mem', 'lora_batch', 'ctx_a',
         'lora_bytes')
RANK, ON_GPU, CTX, USABLE = 16, 32, 8192, 0.9     # the chapter's lora_rank, lora_gpu, ctx_a, usable


def plan():
    m, h100 = models.get("qwen3-8b"), hardware.get("h100")
    hbm = h100.hbm_bytes
    w = formulas.nbytes(m.params_total, "bf16")
    adapter = formulas.nbytes(sampling.lora_params(m, RANK), "bf16")
    kv_seq = CTX * formulas.kv_bytes_per_token(m, dtype="bf16")
    merged = int(USABLE * hbm // w)
    batch = int((USABLE * hbm - w - ON_GPU * adapter) // kv_seq)
    return {"hbm": hbm, "w": w, "adapter": adapter, "merged": merged, "batch": batch,
            "kv": batch * kv_seq, "lora": ON_GPU * adapter}


def numbers(t):
    p = plan()
    return p, {
        "w": t.num(p["w"], "si unit=GB digits=1", name="w_resident"),
        "merged": t.num(p["merged"], "int", name="lora_merged_models"),
        "gpu": t.num(ON_GPU, "int", name="lora_gpu"),
        "mem": t.num(p["lora"], "si unit=GB digits=1", name="lora_mem"),
        "batch": t.num(p["batch"], "int", name="lora_batch"),
        "ctx": t.num(CTX, "int", name="ctx_a"),
        "one": t.num(p["adapter"], "si unit=MB digits=0", name="lora_bytes"),
        "kv": t.num(p["kv"], "si unit=GB digits=1", name="lora_kv",
                    expr="lora_batch * kv_seq"),
        "hbm": t.num(p["hbm"], "si unit=GiB digits=0", name="hbm"),
    }


def draw(fig, t):
    p, v = numbers(t)
    left = fig.add_subplot(1, 2, 1)
    draw_memory_map(left, memory_map(p["hbm"], [(f"m{i}", p["w"]) for i in range(p["merged"])]),
                    [t["copy"].format(i=i + 1, **v) for i in range(p["merged"])],
                    t["free"], fontsize=7)
    left.set_title(t["left"].format(**v), fontsize=8)
    right = fig.add_subplot(1, 2, 2)
    draw_memory_map(right, memory_map(p["hbm"], [("w", p["w"]), ("lora", p["lora"]), ("kv", p["kv"])]),
                    [t["base"].format(**v), t["adapters"].format(**v), t["kv_label"].format(**v)],
                    t["free"], fontsize=7)
    right.set_title(t["right"].format(**v), fontsize=8)
    fig.suptitle(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t)[1])
