"""Expected fraction of a MoE layer's experts hit by a decode batch, 1 - (1 - k/E)^B."""
from calculations import models

SIZE = (6.4, 3.8)
MARK_BATCH = 64
MODELS = ("mixtral-8x7b", "gpt-oss-20b", "qwen3-30b-a3b", "deepseek-v3", "gpt-oss-120b")


def draw(fig, t):
    ax = fig.add_subplot()
    batches = list(range(1, 257))
    for key in MODELS:
        m = models.get(key)
        k, e = m.experts_per_token, m.num_experts
        style = "--" if key == "gpt-oss-120b" else "-"  # 4/128 overlaps DeepSeek-V3's 8/256
        ax.plot(batches, [1 - (1 - k / e) ** b for b in batches], linestyle=style, linewidth=1.6,
                label=t["fmt"].format(name=m.name, k=k, e=e))
    ax.axvline(MARK_BATCH, color="#333333", linewidth=0.8, linestyle=":")
    ax.annotate(t["mark"].format(b=MARK_BATCH), (MARK_BATCH, 0.45), textcoords="offset points",
                xytext=(-3, 0), fontsize=7.5, ha="right")
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="lower right")
