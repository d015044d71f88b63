"""What one H100's HBM holds when it serves Qwen3-8B (@sec-kv-cache): the BF16 weights and one
conversation's KV cache of `long_context` tokens, stacked to scale against the card's capacity;
the rest is what further sequences' KV caches can use."""
from bookkit.diagrams import memory_map
from bookkit.diagrams.draw import draw_memory_map
from calculations import formulas, hardware, models

SIZE = (6.4, 3.4)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('h100_hbm', 'qwen_weights_bf16', 'long_context', 'qwen_kv_long', 'kv_per_token')
CONTEXT = 32768     # the chapter's long_context (a test holds them equal)


def numbers(t):
    qwen, h100 = models.get("qwen3-8b"), hardware.get("h100")
    hbm = h100.hbm_bytes
    weights = qwen.params_total * 2
    kv = formulas.kv_cache_bytes(qwen, tokens=CONTEXT, dtype="bf16")
    free = hbm - weights - kv
    per_token = formulas.kv_bytes_per_token(qwen, dtype="bf16")
    gb = "si unit=GB digits=2"
    return (hbm, weights, kv), {
        "hbm": t.num(hbm, "si unit=GB digits=0", name="h100_hbm", expr="h100.hbm_bytes"),
        "w": t.num(weights, gb, name="qwen_weights_bf16", expr="qwen.params_total * 2"),
        "n": t.num(CONTEXT, "int", name="long_context"),
        "kv": t.num(kv, gb, name="qwen_kv_long",
                    expr="formulas.kv_cache_bytes(qwen, tokens=long_context)"),
        "free": t.num(free, gb, name="hbm_map_free", expr="h100_hbm - weights - kv"),
        "more": t.num(free // (kv), "int", name="hbm_map_more_seqs",
                      expr="free // qwen_kv_long"),
        "tok": t.num(per_token, "si unit=kB digits=1", name="kv_per_token"),
    }


def draw(fig, t):
    (hbm, weights, kv), v = numbers(t)
    ax = fig.add_subplot()
    draw_memory_map(ax, memory_map(hbm, [("weights", weights), ("kv", kv)]),
                    [t["weights"].format(**v), t["kv"].format(**v)], t["free"].format(**v),
                    width=1.0, fontsize=8)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
