"""Training compute (6ND) of the registry's dense models on the same token count, and H100 GPU-hours."""
from calculations import formulas, hardware, models

SIZE = (6.8, 3.8)
TOKENS = 15e12
MFU = 0.4
DEVICE = "h100"


def _power_of_ten(v: float) -> str:
    """7.2e+23 as a reader writes it: 7.2×10²³ (mathtext, so every edition's font draws it)."""
    mantissa, exponent = f"{v:.1e}".split("e")
    return rf"${mantissa}\times10^{{{int(exponent)}}}$"


def draw(fig, t):
    h = hardware.get(DEVICE)
    dense = sorted((m for m in models.all() if m.params_active == m.params_total), key=lambda m: m.params_total)
    flops = [formulas.train_flops(m.params_active, TOKENS) for m in dense]
    per_hour = h.peak_flops("bf16") * MFU * 3600
    ax = fig.add_subplot()
    xs = list(range(len(dense)))
    ax.bar(xs, flops, color="#7570b3")
    for x, f in zip(xs, flops):
        ax.annotate(_power_of_ten(f), (x, f), textcoords="offset points", xytext=(0, 2), ha="center", fontsize=7)
    ax.set_yscale("log")
    ax.set_xticks(xs)
    ax.set_xticklabels([m.name for m in dense], rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(t["y"])
    lo, hi = min(flops) / 3, max(flops) * 5
    ax.set_ylim(lo, hi)
    ax2 = ax.twinx()
    ax2.set_yscale("log")
    ax2.set_ylim(lo / per_hour, hi / per_hour)
    ax2.set_ylabel(t["y2"].format(mfu=MFU))
    ax.set_title(t["title"].format(d=TOKENS / 1e12), fontsize=10)
    ax.grid(True, axis="y", which="major", alpha=0.3)
