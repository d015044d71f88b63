"""KV bytes one decode step reads for one sequence, DeepSeek-V3 shape: full MLA vs
NSA-style and DSA-style sparse attention (hyper-parameters from the NSA paper and the
DeepSeek-V3.2-Exp config), as a function of context length."""
from calculations import formulas, models

SIZE = (6.4, 3.8)
# NSA (arXiv 2502.11089): compression block 32, stride 16, 16 selected blocks of 64, window 512
NSA_L, NSA_D, NSA_SEL, NSA_SEL_BLOCK, NSA_W = 32, 16, 16, 64, 512
# DSA (DeepSeek-V3.2-Exp config): top-2048 tokens; indexer key of 128 values in FP8
DSA_TOPK, DSA_INDEX_DIM = 2048, 128


def draw(fig, t):
    ds = models.get("deepseek-v3")
    per_layer = formulas.kv_bytes_per_token(ds) // ds.num_layers        # latent bytes per token per layer
    idx = formulas.nbytes(DSA_INDEX_DIM, "fp8")
    ctx = [2 ** i for i in range(10, 18)] + [ds.max_position]
    full = [formulas.kv_cache_bytes(ds, tokens=T) for T in ctx]
    nsa = [ds.num_layers * per_layer * min(T, (T - NSA_L) // NSA_D + 1 + min(T, NSA_SEL * NSA_SEL_BLOCK) + min(T, NSA_W))
           for T in ctx]   # never more than the whole context
    dsa_idx = [ds.num_layers * idx * T for T in ctx]
    dsa = [i + ds.num_layers * per_layer * min(T, DSA_TOPK) for i, T in zip(dsa_idx, ctx)]
    ax = fig.add_subplot()
    ax.plot(ctx, full, marker="o", markersize=3, linewidth=1.8, label=t["full"])
    ax.plot(ctx, nsa, marker="s", markersize=3, linewidth=1.6, label=t["nsa"])
    ax.plot(ctx, dsa, marker="^", markersize=3, linewidth=1.6, label=t["dsa"])
    ax.plot(ctx, dsa_idx, linestyle=":", color="#555555", linewidth=1.2, label=t["idx"])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper left")
