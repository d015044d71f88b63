"""ECMP hash collisions: F equal flows hashed onto F equal paths. Expected fraction of line rate
of a synchronous step (E[1/busiest path load]) and expected fraction of paths carrying any flow,
with the 1 - 1/e limit of the latter."""
import math

from calculations import collectives as cl

SIZE = (6.4, 4.0)
FLOWS = (2, 4, 8, 16, 32, 64)


def draw(fig, t):
    ax = fig.add_subplot()
    rate = [cl.ecmp_max_load(f, f)["rate"] for f in FLOWS]
    used = [cl.ecmp_used_paths(f, f) / f for f in FLOWS]
    ax.semilogx(FLOWS, used, "o-", color="#4C72B0", lw=1.6, label=t["used"])
    ax.semilogx(FLOWS, rate, "s-", color="#C44E52", lw=1.6, label=t["rate"])
    for x, y in zip(FLOWS, rate):
        ax.text(x, y - 0.05, f"{y:.2f}", ha="center", va="top", fontsize=7, color="#C44E52")
    ax.axhline(1 - 1 / math.e, color="#777777", ls=":", lw=1.2)
    ax.text(FLOWS[-1], 1 - 1 / math.e - 0.03, t["limit"], ha="right", va="top", fontsize=8, color="#555555")
    ax.minorticks_off()
    ax.set_xticks(FLOWS)
    ax.set_xticklabels([str(f) for f in FLOWS])
    ax.set_ylim(0, 1.05)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper right", frameon=False)
