"""Qwen3-8B (BF16) decode on one H100: step time (= TPOT) and throughput against batch size for
three context lengths. Solid up to the batch whose KV fits in 90 % of HBM next to the weights,
dotted beyond (does not fit); a dot marks the memory limit; the dashed line is a 50 ms TPOT target."""
from calculations import hardware, models, serving

SIZE = (7.2, 3.9)
CONTEXTS = (1024, 8192, 32768)
BATCHES = tuple(2 ** i for i in range(0, 12))  # 1 .. 2048
TPOT = 0.05
USABLE = 0.9
COLORS = ("#4C72B0", "#DD8452", "#55A868")


def draw(fig, t):
    m = models.get("qwen3-8b")
    h = hardware.get("h100")
    ax1 = fig.add_subplot(1, 2, 1)
    ax2 = fig.add_subplot(1, 2, 2)
    for c, col in zip(CONTEXTS, COLORS):
        bmax = serving.max_batch_memory(m, h, c, usable_fraction=USABLE)
        rows = serving.decode_curve(m, h, c, BATCHES)
        fit = [r for r in rows if r["batch"] <= bmax]
        over = [r for r in rows if r["batch"] >= fit[-1]["batch"]]
        lim = serving.decode_point(m, h, bmax, c)
        for ax, key, scale in ((ax1, "step_time_s", 1e3), (ax2, "tokens_per_s", 1)):
            ax.plot([r["batch"] for r in fit], [r[key] * scale for r in fit], color=col, marker="o",
                    markersize=3, label=t["ctx"].format(n=f"{c:,}"))
            ax.plot([r["batch"] for r in over], [r[key] * scale for r in over], color=col, ls=":", lw=1)
            ax.plot([bmax], [lim[key] * scale], marker="D", color=col, markersize=7, mec="black", ls="none")
    ax1.axhline(TPOT * 1e3, color="#C44E52", ls="--", lw=1.2, label=t["slo"])
    ax1.plot([], [], marker="D", color="grey", mec="black", ls="none", label=t["mem"])
    for ax, yl, tt in ((ax1, t["y1"], t["t1"]), (ax2, t["y2"], t["t2"])):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(t["x"], fontsize=8)
        ax.set_ylabel(yl, fontsize=8)
        ax.set_title(tt, fontsize=9)
        ax.tick_params(labelsize=7)
        ax.grid(True, which="both", alpha=0.3)
    ax1.legend(fontsize=7, loc="upper left", frameon=True)
    fig.subplots_adjust(left=0.09, right=0.98, top=0.92, bottom=0.14, wspace=0.3)
