"""Expert load imbalance: max/mean GPU load for DeepSeek-V3's 256 routed experts on a
32-GPU prefill unit, as redundant experts are added (greedy EPLB-like placement), for three
popularity skews; and the imbalance from sampling alone as tokens per expert shrink."""
from calculations import distributed as D, models

SIZE = (6.6, 3.6)
SKEWS = (0.3, 0.6, 0.9)
REDUNDANT = (0, 4, 8, 16, 24, 32, 48, 64)
COLORS = ("#4C72B0", "#55A868", "#C44E52")


def draw(fig, t):
    m = models.get("deepseek-v3")
    ax1 = fig.add_subplot(1, 2, 1)
    for s, c in zip(SKEWS, COLORS):
        loads = D.zipf_loads(m.num_experts, s)
        ys = [D.place_experts(loads, 32, r)["max_over_mean"] for r in REDUNDANT]
        ax1.plot(REDUNDANT, ys, "o-", color=c, ms=3, label=t["s"].format(s=s))
    ax1.axhline(1.0, color="black", lw=0.8)
    ax1.set_xlabel(t["x1"], fontsize=8)
    ax1.set_ylabel(t["y1"], fontsize=8)
    ax1.legend(fontsize=7)
    ax2 = fig.add_subplot(1, 2, 2)
    per_expert = [5, 10, 20, 50, 100, 200, 500, 1000, 2000]
    k, e = m.experts_per_token, m.num_experts
    ys = [D.binomial_max_over_mean(int(n * e / k), e, k) for n in per_expert]
    ax2.plot(per_expert, ys, "o-", color="#8172B2", ms=3)
    ax2.set_xscale("log")
    ax2.axhline(1.0, color="black", lw=0.8)
    ax2.set_xlabel(t["x2"], fontsize=8)
    ax2.set_ylabel(t["y2"], fontsize=8)
    for ax in (ax1, ax2):
        ax.tick_params(labelsize=7)
        ax.grid(True, alpha=0.3)
