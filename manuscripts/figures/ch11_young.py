"""Checkpoint plus recomputation overhead delta/tau + tau/(2M) against the checkpoint interval
tau (@sec-scheduling-environments-training), for a DeepSeek-V3-scale job: delta from the
checkpoint's bytes (chapter 10's accounting, BF16 moments) at 100 GB/s, M from the per-GPU
reliability scaled to the job's GPUs, and M / 4 when preemption makes interruptions four
times as frequent. Dots: Young's optimum sqrt(2 delta M); vertical line: every 6 hours."""
import math

from calculations import checkpoints, models, queueing

SIZE = (6.4, 3.4)
CKPT_BW, PREEMPT_X, NAIVE_H = 100e9, 4, 6      # the chapter's ckpt_bw, preempt_x, naive_interval_h
COLORS = ("#4C72B0", "#C44E52")


def draw(fig, t):
    delta = models.get("deepseek-v3").params_total * checkpoints.checkpoint_bytes_per_param(
        **checkpoints.DEEPSEEK_V3_OPTIMIZER) / CKPT_BW
    m = queueing.mtbi_scaled(queueing.DSV3_TRAIN_GPUS)
    ax = fig.add_subplot()
    taus = [10 ** (k / 50) * 60 for k in range(0, 151)]          # 1 min .. 1000 min
    for mtbi, color, ls, key in ((m, COLORS[0], "-", "base"), (m / PREEMPT_X, COLORS[1], "--", "pre")):
        ys = [100 * (delta / x + x / (2 * mtbi)) for x in taus]
        ax.plot([x / 60 for x in taus], ys, color=color, lw=1.8, ls=ls,
                label=t[key].format(x=t.num(PREEMPT_X, "int")))
        opt = queueing.young_interval(delta, mtbi)
        ax.plot([opt / 60], [100 * math.sqrt(2 * delta / mtbi)], "o", color=color, ms=6)
    ax.axvline(NAIVE_H * 60, color="0.5", lw=0.8, ls=":")
    ax.text(NAIVE_H * 60 * 1.08, 1.5, t["naive"].format(h=t.num(NAIVE_H, "int")), fontsize=8,
            va="bottom")
    ax.set_xscale("log")
    ax.set_ylim(0, 30)
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", frameon=False)
    ax.set_title(t["title"], fontsize=10)
