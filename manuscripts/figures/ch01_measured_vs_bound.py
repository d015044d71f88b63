"""A public concurrency sweep of Llama-3.1-8B-Instruct (FP16) served by vLLM on one H100-80GB
(InferenceBench 'concurrency sweep' recipe: median time per output token at 1, 4, 16, 64
concurrent requests) against the chapter's HBM bound for the same model, batch and a short
context. The gap is what the layers above the kernels cost."""
from calculations import formulas, hardware, models

SIZE = (6.4, 3.9)
MODEL = "llama-3.1-8b"
DEVICE = "h100"
CONTEXT = 1024
# InferenceBench, https://yobitelcomm.github.io/bench/recipes/concurrency-sweep/ (tpot_p50_ms)
MEASURED = {1: 6.48, 4: 6.59, 16: 10.94, 64: 46.91}
BATCHES = tuple(2 ** i for i in range(0, 7))


def draw(fig, t):
    ax = fig.add_subplot()
    model = models.get(MODEL)
    device = hardware.get(DEVICE)
    bound = [formulas.decode_step(model, batch=b, context=CONTEXT, hw=device).time_s * 1e3 for b in BATCHES]
    ax.plot(BATCHES, bound, marker="o", markersize=3, label=t["bound"].format(c=f"{CONTEXT:,}"))
    xs = sorted(MEASURED)
    ax.plot(xs, [MEASURED[x] for x in xs], marker="s", markersize=5, linestyle="--", color="C3",
            label=t["measured"])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    ax.set_xticks(BATCHES)
    ax.set_xticklabels([str(b) for b in BATCHES])
    ax.set_ylim(2, 100)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
