"""Composition of the FLOPs of one fresh Qwen3-8B prefill (lm_head at the last position only)
across prompt lengths: linear layers, causal attention (QK^T, PV and softmax) and everything else."""
from calculations import formulas, models

SIZE = (6.4, 4.4)
MODEL = "qwen3-8b"
LENGTHS = (512, 2048, 8192, 32768, 131072)


def draw(fig, t):
    ax = fig.add_subplot()
    model = models.get(MODEL)
    linear, attention, other, totals = [], [], [], []
    for n in LENGTHS:
        kinds = formulas.forward(model, tokens=n).flops_by_kind()
        total = sum(kinds.values())
        attn = kinds.get("attention", 0) + kinds.get("softmax", 0)
        lin = kinds.get("linear", 0)
        linear.append(lin / total)
        attention.append(attn / total)
        other.append((total - lin - attn) / total)
        totals.append(total)
    xs = range(len(LENGTHS))
    ax.bar(xs, linear, color="#4c72b0", label=t["linear"])
    ax.bar(xs, attention, bottom=linear, color="#dd8452", label=t["attention"])
    ax.bar(xs, other, bottom=[a + b for a, b in zip(linear, attention)], color="#8c8c8c", label=t["other"])
    for x, total in zip(xs, totals):
        ax.annotate(t["total"].format(v=f"{float(f'{total / 1e12:.3g}'):,g}"), (x, 1.0), textcoords="offset points",
                    xytext=(0, 3), ha="center", fontsize=7)
    # The "other" band is a sliver of every bar, too thin to see: print its share on the bar.
    for x, share in zip(xs, other):
        ax.annotate(t["other_share"].format(v=f"{share:.2%}"), (x, 1.0), textcoords="offset points",
                    xytext=(0, -10), ha="center", fontsize=6.5, color="white")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([f"{n:,}" for n in LENGTHS])
    ax.set_ylim(0, 1.1)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.set_yticklabels(["0%", "25%", "50%", "75%", "100%"])
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    fig.subplots_adjust(bottom=0.3)
