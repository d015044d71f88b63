"""Share of a MoE layer's token-to-expert assignments that overflow a fixed expert capacity,
against the capacity factor (@sec-model-architecture-capacity-factor): DeepSeek-V3's 8 of 256
experts, a batch of 4096 tokens, uniform routing and the chapter's skew (32 hot experts take
25% of the assignments). Binomial loads, `calculations.moe_capacity`."""
from calculations import models, moe_capacity

SIZE = (6.4, 3.6)
TOKENS = 4096           # the chapter's cap_tokens
FACTOR = 1.25           # the chapter's cap_factor
HOT, SHARE = 32, 0.25   # the chapter's skew_hot, skew_share


def draw(fig, t):
    ds = models.get("deepseek-v3")
    k, e = ds.experts_per_token, ds.num_experts
    skew = [(HOT, SHARE), (e - HOT, 1 - SHARE)]
    factors = [1 + i * 0.025 for i in range(0, 81)]
    ax = fig.add_subplot()
    ax.plot(factors, [moe_capacity.dropped_fraction(TOKENS, k, e, f) for f in factors],
            linewidth=1.6, label=t["uniform"])
    ax.plot(factors, [moe_capacity.dropped_fraction(TOKENS, k, e, f, skew) for f in factors],
            linewidth=1.6, linestyle="--", label=t["skewed"].format(hot=HOT, share=t.num(SHARE, "pct digits=0")))
    fair_share_multiple = SHARE / (HOT / e)
    for x, key in ((FACTOR, "mark_cf"), (fair_share_multiple, "mark_skew")):
        ax.axvline(x, color="#333333", linewidth=0.8, linestyle=":")
        ax.annotate(t[key].format(x=t.num(x, "num digits=2")), (x, 0.11), xytext=(3, 0),
                    textcoords="offset points", fontsize=7.5, ha="left")
    ax.set_xlim(1, 3)
    ax.set_ylim(0, 0.14)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_title(t["title"].format(n=t.num(TOKENS, "int"), k=k, e=e), fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper right")
