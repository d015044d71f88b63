"""Cold start: seconds to put DeepSeek-V3's FP8 weights into one node's 8 GPUs from each
storage tier, for a node holding 1/8 of the model each (8-GPU replica) and for a decode
node of an EP320 unit (replicated part + one expert per GPU)."""
from calculations import distributed as D, models

SIZE = (6.4, 3.4)
TIERS = ("nvme-gen4", "nvme-gen5", "parallel-fs-client", "rdma-400g")


def draw(fig, t):
    m = models.get("deepseek-v3")
    full = m.params_total / 8
    ep = D.ep_decode(m, "h100", 320, 1, 0).weight_bytes_per_gpu
    ax = fig.add_subplot()
    ys = list(range(len(TIERS)))[::-1]
    h = 0.38
    for off, per_gpu, key, color in ((h / 2, full, "full", "#4C72B0"), (-h / 2, ep, "ep", "#DD8452")):
        vals = [D.cold_start(per_gpu, tid)["time_s"] for tid in TIERS]
        ax.barh([y + off for y in ys], vals, height=h, color=color, label=t[key])
        for y, v in zip(ys, vals):
            ax.text(v * 1.08, y + off, f"{v:.1f} s" if v >= 1 else f"{v * 1e3:.0f} ms", va="center", fontsize=6.5)
    ax.set_xscale("log")
    ax.set_xlim(0.1, 600)
    ax.set_yticks(ys)
    ax.set_yticklabels([t[k] for k in TIERS], fontsize=7)
    ax.tick_params(axis="x", labelsize=7)
    ax.set_xlabel(t["x"], fontsize=8)
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
