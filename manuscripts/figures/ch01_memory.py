"""Memory of Qwen3-8B on one H100 (BF16 weights and KV cache) against context length, for a few
batch sizes, with the 80 GB capacity line."""
from calculations import formulas, hardware, models

SIZE = (6.4, 3.9)
MODEL = "qwen3-8b"
DEVICE = "h100"
BATCHES = (1, 8, 32)
CONTEXTS = tuple(2 ** i for i in range(10, 18))  # 1,024 .. 131,072


def draw(fig, t):
    ax = fig.add_subplot()
    model = models.get(MODEL)
    device = hardware.get(DEVICE)
    weights = model.params_total * 2 / 1e9
    ax.plot(CONTEXTS, [weights] * len(CONTEXTS), color="0.4", linestyle=":", label=t["weights"])
    for b in BATCHES:
        ys = [weights + formulas.kv_cache_bytes(model, tokens=c, batch=b, dtype="bf16") / 1e9 for c in CONTEXTS]
        ax.plot(CONTEXTS, ys, marker="o", markersize=3, label=t["batch"].format(b=b))
    capacity = device.hbm_bytes / 1e9
    ax.axhline(capacity, color="#c44e52", linestyle="--", linewidth=1)
    ax.annotate(t["hbm"].format(c=capacity), (CONTEXTS[0], capacity), textcoords="offset points",
                xytext=(2, 4), fontsize=8, color="#c44e52")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    ax.set_xticks(CONTEXTS)
    ax.set_xticklabels([f"{c // 1024}K" for c in CONTEXTS])
    ticks = [16, 32, 64, 128, 256, 512]
    ax.set_yticks(ticks)
    ax.set_yticklabels([str(v) for v in ticks])
    ax.minorticks_off()
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
