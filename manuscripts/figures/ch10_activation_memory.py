"""Activation bytes per GPU for Llama-3.1-70B (TP 8 with sequence parallelism, one micro-batch,
80 layers in flight on the first 1F1B stage) against sequence length, for the three recompute
strategies of Korthikanti et al. 2022, with the H100's 80 GB for reference."""
from calculations import hardware, models, training as tr

SIZE = (6.4, 4.2)
SEQS = [1024 * 2 ** k for k in range(8)]          # 1K .. 128K


def draw(fig, t):
    m = models.get("llama-3.1-70b")
    ax = fig.add_subplot()
    styles = {"none": ("#C44E52", "-", "o"), "selective": ("#4C72B0", "-", "s"), "full": ("#55A868", "-", "^")}
    for rc, (color, ls, mk) in styles.items():
        ys = [tr.activation_bytes_per_layer(s, 1, m.hidden_size, m.num_heads, tp=8, recompute=rc)
              * m.num_layers / 1e9 for s in SEQS]
        ax.plot(SEQS, ys, color=color, ls=ls, marker=mk, ms=4, label=t[rc])
    ax.axhline(hardware.get("h100").hbm_bytes / 1e9, color="black", ls="--", lw=1, label=t["hbm"])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(SEQS)
    ax.set_xticklabels([f"{s // 1024}K" for s in SEQS], fontsize=8)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", frameon=True)
    fig.subplots_adjust(left=0.12, right=0.97, top=0.92, bottom=0.13)
