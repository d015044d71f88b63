"""HBM bytes of one attention head's forward pass against sequence length: naive (scores and
probabilities written to memory) vs tiled (FlashAttention, K/V-outer and Q-outer loop orders),
H100 shared memory per SM as the SRAM, head_dim 128, BF16, causal."""
from calculations import kernels

SIZE = (6.4, 4.5)


def draw(fig, t):
    ax = fig.add_subplot()
    ns = [2 ** k for k in range(10, 18)] + [3 * 2 ** k for k in range(10, 16)]
    ns = sorted(ns)
    rs = [kernels.attention_io(n, 128, causal=True) for n in ns]
    ax.plot(ns, [r["naive_bytes"] for r in rs], color="#C44E52", lw=2, label=t["naive"])
    ax.plot(ns, [r["kv_outer_bytes"] for r in rs], color="#4C72B0", lw=2, label=t["kv"])
    ax.plot(ns, [r["q_outer_bytes"] for r in rs], color="#55A868", lw=2, label=t["q"])
    ax.plot(ns, [r["score_matrix_bytes"] for r in rs], color="0.5", lw=1, ls="--", label=t["s"])
    for n in (8192, 32768, 131072):
        ax.axvline(n, color="0.8", lw=0.8, zorder=0)
        ax.text(n, 2.2e6, f"{n // 1024}K", fontsize=8, ha="center", va="bottom", color="0.35")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(1024, 131072)
    ax.set_ylim(2e6, 3e11)
    ax.set_xticks([1024, 4096, 16384, 65536, 131072])
    ax.set_xticklabels(["1K", "4K", "16K", "64K", "128K"])
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="major", alpha=0.25)
    ax.legend(fontsize=7.5, loc="upper left", frameon=True)
    fig.subplots_adjust(left=0.13, right=0.97, top=0.92, bottom=0.12)
