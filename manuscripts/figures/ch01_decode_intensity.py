"""Qwen3-8B decode on one H100: arithmetic intensity of one step against batch size, for three
context lengths, with the H100 BF16 ridge point. Batching shares the weight reads; the KV reads
grow with the batch, so long contexts flatten the curve far below the ridge."""
from calculations import formulas, hardware, models

SIZE = (6.4, 3.9)
MODEL = "qwen3-8b"
DEVICE = "h100"
CONTEXTS = (512, 8192, 32768)
BATCHES = tuple(2 ** i for i in range(0, 11))  # 1 .. 1024


def draw(fig, t):
    ax = fig.add_subplot()
    model = models.get(MODEL)
    device = hardware.get(DEVICE)
    for context in CONTEXTS:
        ys = [formulas.decode_step(model, batch=b, context=context, hw=device).intensity for b in BATCHES]
        ax.plot(BATCHES, ys, marker="o", markersize=3, label=t["ctx"].format(n=f"{context:,}"))
    ridge = device.ridge_point("bf16")
    ax.axhline(ridge, color="0.3", linestyle="--", linewidth=1)
    ax.annotate(t["ridge"].format(r=ridge), (BATCHES[0], ridge), textcoords="offset points",
                xytext=(2, 4), fontsize=8, color="0.3")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    ax.set_xticks(BATCHES)
    ax.set_xticklabels([str(b) for b in BATCHES])
    ax.set_ylim(0.5, 1000)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
