"""DeepSeek-V3 decode with data-parallel attention and expert parallelism on H100-class GPUs:
memory per GPU and TPOT as the expert-parallel size grows, for three per-GPU batches."""
from calculations import distributed as D, models

SIZE = (6.6, 3.7)
EPS = (16, 32, 64, 144, 320)
BATCHES = (32, 64, 128)
CONTEXT = 4989
COLORS = {32: "#4C72B0", 64: "#55A868", 128: "#C44E52"}


def draw(fig, t):
    m = models.get("deepseek-v3")
    ax1 = fig.add_subplot(1, 2, 1)
    ax2 = fig.add_subplot(1, 2, 2)
    cap = None
    for b in BATCHES:
        rs = [D.ep_decode(m, "h100", ep, b, CONTEXT) for ep in EPS]
        cap = rs[0].capacity_bytes / 1e9
        ax1.plot(EPS, [r.memory_bytes_per_gpu / 1e9 for r in rs], "o-", color=COLORS[b], ms=3.5,
                 label=t["b"].format(b=b))
        ax2.plot(EPS, [r.tpot_s * 1e3 for r in rs], "o-", color=COLORS[b], ms=3.5, label=t["b"].format(b=b))
        ax2.plot(EPS, [r.tpot_overlap_s * 1e3 for r in rs], "--", color=COLORS[b], lw=1)
    w = [D.ep_decode(m, "h100", ep, 1, 0).weight_bytes_per_gpu / 1e9 for ep in EPS]
    ax1.plot(EPS, w, "s:", color="0.4", ms=3, label=t["wt"])
    ax1.axhline(cap, color="black", lw=0.8)
    ax1.text(EPS[-1], cap - 1.5, t["cap"], ha="right", va="top", fontsize=7)
    for ax, key in ((ax1, "mem"), (ax2, "tpot")):
        ax.set_xscale("log")
        ax.set_xticks(EPS)
        ax.set_xticklabels([str(e) for e in EPS], fontsize=7)
        ax.minorticks_off()
        ax.tick_params(axis="y", labelsize=7)
        ax.set_xlabel(t["x"], fontsize=8)
        ax.set_ylabel(t[key], fontsize=8)
        ax.grid(True, alpha=0.3)
    ax1.set_ylim(0, 140)
    ax1.legend(fontsize=6.5, loc="upper right")
    ax2.set_ylim(0, 75)
    ax2.legend(fontsize=6.5, loc="upper right", title=t["serial"] + "\n" + t["ovl"], title_fontsize=6.5)
