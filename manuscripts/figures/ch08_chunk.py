"""Chunked prefill for Qwen3-8B (BF16) on one H100: the largest prefill chunk that can ride in one
decode step without pushing the step past a TPOT target, against the number of sequences being
decoded (4096-token contexts)."""
from calculations import hardware, models, serving

SIZE = (6.4, 3.9)
BATCHES = (1, 8, 16, 32, 48, 64, 96, 128)
TARGETS = (0.03, 0.05, 0.1)
CONTEXT = 4096
COLORS = ("#C44E52", "#4C72B0", "#55A868")


def draw(fig, t):
    m = models.get("qwen3-8b")
    h = hardware.get("h100")
    ax = fig.add_subplot()
    for tp, col in zip(TARGETS, COLORS):
        ys = [serving.max_chunk(m, h, b, CONTEXT, tp) for b in BATCHES]
        ax.plot(BATCHES, ys, marker="o", ms=3, color=col, label=t["slo"].format(ms=tp * 1e3))
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.set_title(t["title"], fontsize=10)
    ax.set_ylim(bottom=0)
    ax.tick_params(labelsize=8)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    fig.subplots_adjust(left=0.13, right=0.97, top=0.91, bottom=0.13)
