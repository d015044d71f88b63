"""Per-operator roofline of one Qwen3-8B layer on H100 (BF16): prefill of 4096 tokens and a
batch-1 decode step at 4096 tokens of context. Each point is one operator of the layer."""
from calculations import hardware, kernels, models

SIZE = (6.4, 4.6)
KIND_COLORS = {"linear": "#4C72B0", "attention": "#8172B2", "norm": "#DD8452", "rope": "#C44E52",
               "elementwise": "#55A868", "softmax": "#937860"}


def draw(fig, t):
    ax = fig.add_subplot()
    h = hardware.get("h100")
    peak = h.peak_tflops("bf16")
    bw = h.hbm_bandwidth / 1e12
    xs = [0.1 * 1.1 ** i for i in range(120)]
    ax.plot(xs, [min(peak, x * bw) for x in xs], color="0.25", lw=1.6, label=t["roof"])
    m = models.get("qwen3-8b")
    seen = set()
    for rows, marker, lab in ((kernels.operator_rows(m, 4096), "o", "prefill"),
                              (kernels.operator_rows(m, 1, context=4096), "^", "decode")):
        for r in rows:
            if r["layers"] == 1 or not r["intensity"]:
                continue
            x = r["intensity"]
            y = min(peak, x * bw)
            kind = r["kind"]
            key = (kind, marker)
            ax.scatter([x], [y], marker=marker, s=36, color=KIND_COLORS[kind], edgecolor="white",
                       linewidth=0.5, zorder=3, label=None)
            seen.add(kind)
    for kind in ("linear", "attention", "norm", "rope", "elementwise", "softmax"):
        if kind in seen:
            ax.scatter([], [], marker="s", s=30, color=KIND_COLORS[kind], label=t[kind])
    ax.scatter([], [], marker="o", color="0.5", label=t["prefill"])
    ax.scatter([], [], marker="^", color="0.5", label=t["decode"])
    ax.axvline(h.ridge_point("bf16"), color="0.6", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(0.1, 20000)
    ax.set_ylim(0.2, 3000)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=4, frameon=False)
    fig.subplots_adjust(left=0.12, right=0.97, top=0.93, bottom=0.24)
