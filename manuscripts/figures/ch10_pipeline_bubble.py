"""Pipeline bubble fraction (p-1)/v / (m + (p-1)/v) against the number of micro-batches m, for
p = 4, 8, 16 stages, plain 1F1B (v = 1) and interleaved with v = 4 chunks per GPU."""
from calculations import training as tr

SIZE = (6.4, 4.0)
MS = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def draw(fig, t):
    ax = fig.add_subplot()
    colors = {4: "#4C72B0", 8: "#DD8452", 16: "#C44E52"}
    for p, c in colors.items():
        ax.plot(MS, [tr.pipeline_bubble_fraction(p, m) for m in MS], color=c, marker="o", ms=3,
                label=t["p"].format(p=p))
        ax.plot(MS, [tr.pipeline_bubble_fraction(p, m, 4) for m in MS], color=c, ls="--", lw=1.2)
    ax.plot([], [], color="gray", label=t["v1"])
    ax.plot([], [], color="gray", ls="--", label=t["v4"])
    ax.set_xscale("log", base=2)
    ax.set_xticks(MS)
    ax.set_xticklabels([str(m) for m in MS], fontsize=8)
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper right", frameon=True)
    fig.subplots_adjust(left=0.12, right=0.97, top=0.92, bottom=0.13)
