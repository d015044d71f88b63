"""Speculative decoding for Qwen3-8B (BF16) on one H100 with Qwen3-0.6B as the draft, 512-token
contexts: speed-up over plain decoding against the acceptance rate, for three draft lengths, at
batch 1 and at batch 256 (roofline bounds from calculations.serving.speculative)."""
from calculations import hardware, models, serving

SIZE = (7.2, 3.8)
ALPHAS = tuple(x / 100 for x in range(50, 96, 5))
KS = (2, 4, 8)
BATCHES = (1, 256)
CONTEXT = 512
COLORS = ("#4C72B0", "#DD8452", "#55A868")


def draw(fig, t):
    m = models.get("qwen3-8b")
    d = models.get("qwen3-0.6b")
    h = hardware.get("h100")
    axes = [fig.add_subplot(1, 2, i + 1) for i in range(len(BATCHES))]
    top = 0
    for ax, b in zip(axes, BATCHES):
        for k, col in zip(KS, COLORS):
            ys = [serving.speculative(m, d, h, b, CONTEXT, a, k)["speedup"] for a in ALPHAS]
            top = max(top, max(ys))
            ax.plot(ALPHAS, ys, marker="o", ms=3, color=col, label=t["k"].format(k=k))
        ax.axhline(1.0, color="black", lw=0.8, ls="--", label=t["even"])
        ax.set_title(t["b"].format(b=b), fontsize=9)
        ax.set_xlabel(t["x"], fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(True, alpha=0.3)
    for ax in axes:
        ax.set_ylim(0, top * 1.08)
    axes[0].set_ylabel(t["y"], fontsize=8)
    axes[0].legend(fontsize=7, loc="upper left")
    fig.subplots_adjust(left=0.09, right=0.98, top=0.91, bottom=0.14, wspace=0.22)
