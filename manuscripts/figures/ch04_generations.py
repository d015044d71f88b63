"""A100 -> H100 -> B200 side by side: dense BF16 peak, HBM bandwidth, HBM capacity, NVLink
one-direction bandwidth and TDP, each relative to A100 (registry values)."""
from calculations import hardware

SIZE = (6.4, 3.6)
DEVICES = ("a100", "h100", "b200")
LABELS = {"a100": "A100", "h100": "H100", "b200": "B200"}
COLORS = {"a100": "#8C8C8C", "h100": "#4C72B0", "b200": "#DD8452"}


def _metrics(h):
    return (h.peak_flops("bf16"), h.hbm_bandwidth, h.hbm_bytes, h.link_unidirectional, h.tdp_w)


def draw(fig, t):
    base = _metrics(hardware.get("a100"))
    ax = fig.add_subplot()
    n = len(base)
    width = 0.26
    top = 0.0
    for i, d in enumerate(DEVICES):
        vals = [v / b for v, b in zip(_metrics(hardware.get(d)), base)]
        top = max(top, max(vals))
        xs = [k + (i - 1) * width for k in range(n)]
        ax.bar(xs, vals, width=width, color=COLORS[d], label=LABELS[d])
        for x, v in zip(xs, vals):
            ax.text(x, v + 0.08, f"{v:.2f}".rstrip("0").rstrip("."), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(n))
    ax.set_xticklabels(t["metrics"], fontsize=8)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.set_ylim(0, top * 1.18)
    ax.axhline(1.0, color="#444444", linewidth=0.8, linestyle=":")
    ax.legend(fontsize=8, loc="upper right", frameon=False)
    ax.grid(True, axis="y", alpha=0.3)
