"""Dense BF16 TFLOPS per watt and memory GB/s per watt (per TDP) for the registry's
accelerators that record a TDP."""
from calculations import hardware

SIZE = (6.4, 3.6)
DEVICES = ("a100", "h100", "h200", "b200", "mi300x", "mi325x", "rtx-4090")
LABELS = {"a100": "A100", "h100": "H100", "h200": "H200", "b200": "B200", "mi300x": "MI300X",
          "mi325x": "MI325X", "rtx-4090": "RTX 4090"}


def draw(fig, t):
    devs = [hardware.get(d) for d in DEVICES]
    names = [LABELS[d] for d in DEVICES]
    flops = [d.peak_tflops("bf16") / d.tdp_w for d in devs]
    bw = [d.hbm_bandwidth / 1e9 / d.tdp_w for d in devs]
    ys = list(range(len(devs)))[::-1]
    for i, (vals, key, color, fmt) in enumerate(((flops, "flops", "#4C72B0", "{:.2f}"),
                                                 (bw, "bw", "#55A868", "{:.1f}"))):
        ax = fig.add_subplot(1, 2, i + 1)
        ax.barh(ys, vals, color=color, height=0.6)
        for y, v in zip(ys, vals):
            ax.text(v + max(vals) * 0.02, y, fmt.format(v), va="center", fontsize=7)
        ax.set_yticks(ys)
        ax.set_yticklabels(names if i == 0 else [""] * len(names), fontsize=8)
        ax.set_xlim(0, max(vals) * 1.25)
        ax.set_xlabel(t[key], fontsize=9)
        ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle(t["title"], fontsize=10)
