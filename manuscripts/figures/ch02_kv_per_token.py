"""KV cache bytes per token (BF16, every layer holding the token) across the model registry."""
from calculations import formulas, models

SIZE = (6.8, 4.0)
COLORS = {"gqa": "#4C72B0", "mla": "#C44E52", "swa": "#55A868"}


def _kind(m):
    if m.is_mla:
        return "mla"
    if m.num_sliding_layers:
        return "swa"
    return "gqa"


def _mha_bytes(m):
    """Bytes per token if every query head had its own K and V (MLA: expanded per head)."""
    if m.is_mla:
        return formulas.kv_bytes_per_token(m, mla_expanded=True)
    return formulas.nbytes(2 * m.num_layers * m.num_heads * m.head_dim, "bf16")


def draw(fig, t):
    ax = fig.add_subplot()
    specs = sorted(models.all(), key=lambda m: formulas.kv_bytes_per_token(m))
    xs = range(len(specs))
    values = [formulas.kv_bytes_per_token(m) for m in specs]
    kinds = [_kind(m) for m in specs]
    ax.bar(xs, values, color=[COLORS[k] for k in kinds], width=0.7)
    ax.scatter(xs, [_mha_bytes(m) for m in specs], marker="_", s=160, color="#333333", zorder=3,
               label=t["mha"])
    for kind in ("gqa", "swa", "mla"):
        ax.bar([0], [0], color=COLORS[kind], label=t[kind])
    for x, v in zip(xs, values):
        ax.annotate(f"{v / 1000:.0f} kB", (x, v), textcoords="offset points", xytext=(0, 2),
                    ha="center", fontsize=6.5)
    ax.set_yscale("log")
    ax.set_ylim(2e4, 2e7)
    ax.set_xticks(list(xs))
    ax.set_xticklabels([m.name for m in specs], rotation=40, ha="right", fontsize=7.5)
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper left")
