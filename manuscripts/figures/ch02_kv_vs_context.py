"""KV cache of one sequence against context length: GQA, MHA, MLA, sliding windows, constant state."""
from calculations import formulas, hardware, models

SIZE = (6.6, 4.8)


def draw(fig, t):
    ax = fig.add_subplot()
    contexts = [2 ** i for i in range(7, 21)]
    llama = models.get("llama-3.1-70b")
    ds = models.get("deepseek-v3")
    oss = models.get("gpt-oss-120b")
    mha_per_token = formulas.nbytes(2 * llama.num_layers * llama.num_heads * llama.head_dim, "bf16")
    state = formulas.nbytes(llama.num_layers * llama.num_heads * llama.head_dim * llama.head_dim, "bf16")
    gb = 1e9
    ax.plot(contexts, [mha_per_token * c / gb for c in contexts], color="#8172B2", linestyle="--",
            label=t["llama_mha"])
    for model, color, key in ((llama, "#4C72B0", "llama"), (oss, "#55A868", "oss"), (ds, "#C44E52", "ds")):
        # Solid up to the context the model was built for, dotted beyond it: the curve keeps the
        # arithmetic going, but the model itself does not go there.
        native = model.max_position or contexts[-1]
        inside = [c for c in contexts if c <= native] + ([native] if native < contexts[-1] else [])
        beyond = [native] + [c for c in contexts if c > native]
        ax.plot(inside, [formulas.kv_cache_bytes(model, c) / gb for c in inside], color=color, label=t[key])
        if len(beyond) > 1:
            ax.plot(beyond, [formulas.kv_cache_bytes(model, c) / gb for c in beyond], color=color,
                    linestyle=":", linewidth=1.2)
            ax.plot([native], [formulas.kv_cache_bytes(model, native) / gb], "o", color=color, markersize=4)
    ax.plot(contexts, [state / gb for _ in contexts], color="#937860", linestyle=":", label=t["linear"])
    cap = hardware.get("h200").hbm_bytes / gb
    ax.axhline(cap, color="#333333", linewidth=1)
    ax.annotate(t["hbm"], (contexts[-1], cap), textcoords="offset points", xytext=(-2, -11), fontsize=7.5,
                ha="right")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False,
              title=t["beyond"], title_fontsize=7)
