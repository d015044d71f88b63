"""Wave quantization on H100 (132 SMs): efficiency of a GEMM with N = 4096 output columns
(Qwen3-8B q_proj / o_proj) and N = 1024 (k_proj) cut into 128 x 256 tiles, against the number of
tokens M."""
from calculations import kernels

SIZE = (6.4, 4.3)


def draw(fig, t):
    ax = fig.add_subplot()
    ms = list(range(128, 8192 + 1, 128))
    for n, color, key in ((4096, "#4C72B0", "n4096"), (1024, "#DD8452", "n1024")):
        ax.plot(ms, [kernels.waves(m, n, 128, 256)["efficiency"] for m in ms], color=color, lw=1.6,
                marker="o", ms=2.5, label=t[key])
    ax.set_xlim(0, 8192)
    ax.set_ylim(0, 1.05)
    ax.set_xticks([0, 1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192])
    ax.tick_params(axis="x", labelsize=8)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=8, loc="lower right")
    fig.subplots_adjust(left=0.12, right=0.97, top=0.92, bottom=0.13)
