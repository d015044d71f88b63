"""Qwen3-8B and Qwen3-0.6B decode step (batch 1, 8192 tokens of context) on H100 against the
host's cost per kernel launch: operator-by-operator, fused, and as one CUDA graph."""
from calculations import kernels, models

SIZE = (6.6, 4.7)


def draw(fig, t):
    xs = [0.5 * i for i in range(0, 61)]
    axes = fig.subplots(1, 2, sharex=True)
    for ax, mid, key in zip(axes, ("qwen3-8b", "qwen3-0.6b"), ("m8", "m06")):
        m = models.get(mid)
        none = [kernels.decode_launch(m, fusion="none", launch_s=x * 1e-6) for x in xs]
        fused = [kernels.decode_launch(m, fusion="fused", launch_s=x * 1e-6) for x in xs]
        ax.plot(xs, [r["eager_s"] * 1e3 for r in none], color="#C44E52", lw=1.8,
                label=t["none"].format(t[key], none[0]["kernels"]))
        ax.plot(xs, [r["eager_s"] * 1e3 for r in fused], color="#DD8452", lw=1.8,
                label=t["fused"].format(t[key], fused[0]["kernels"]))
        ax.plot(xs, [r["graph_s"] * 1e3 for r in fused], color="#4C72B0", lw=1.8, ls="--", label=t["graph"])
        ax.axhline(fused[0]["gpu_time_s"] * 1e3, color="0.3", lw=1, ls=":", label=t["gpu"])
        x0 = kernels.LAUNCH_S_MEASURED * 1e6
        ax.axvline(x0, color="0.6", lw=0.8)
        ax.text(x0 + 0.4, 0.97, t["measured"].format(x0), transform=ax.get_xaxis_transform(), fontsize=7,
                color="0.35", rotation=90, va="top")
        ax.set_title(t[key], fontsize=10)
        ax.set_xlabel(t["x"], fontsize=8.5)
        ax.set_xlim(0, 30)
        ax.set_ylim(0, None)
        ax.grid(True, alpha=0.25)
    axes[0].set_ylabel(t["y"])
    h, lab = axes[0].get_legend_handles_labels()
    h2, lab2 = axes[1].get_legend_handles_labels()
    fig.legend(h + h2[:2], lab + lab2[:2], fontsize=7, loc="lower center", ncol=2, frameon=False)
    fig.subplots_adjust(left=0.11, right=0.98, top=0.93, bottom=0.31, wspace=0.22)
