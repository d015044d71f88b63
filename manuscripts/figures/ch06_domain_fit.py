"""Resident weights (BF16, all parameters) of the registry's models against the pooled device
memory of scale-up domains (90% usable): one H100, an 8x H100 node, a GB200 NVL72 rack and a
CloudMatrix384 supernode."""
from calculations import formulas, hardware, models, scaleup

SIZE = (6.4, 5.0)
SHOW = ("qwen3-8b", "llama-3.1-8b", "qwen3-32b", "mixtral-8x7b", "llama-3.1-70b", "gpt-oss-120b",
        "qwen3-235b-a22b", "llama-3.1-405b", "deepseek-v3", "kimi-k2")
LABELS = {"qwen3-8b": "Qwen3-8B", "llama-3.1-8b": "Llama-3.1-8B", "qwen3-32b": "Qwen3-32B",
          "mixtral-8x7b": "Mixtral-8x7B", "llama-3.1-70b": "Llama-3.1-70B", "gpt-oss-120b": "gpt-oss-120b",
          "qwen3-235b-a22b": "Qwen3-235B-A22B", "llama-3.1-405b": "Llama-3.1-405B",
          "deepseek-v3": "DeepSeek-V3", "kimi-k2": "Kimi-K2"}


def draw(fig, t):
    ax = fig.add_subplot()
    ys = list(range(len(SHOW)))[::-1]
    bf = [formulas.nbytes(models.get(i).params_total, "bf16") for i in SHOW]
    f8 = [formulas.nbytes(models.get(i).params_total, "fp8") for i in SHOW]
    ax.barh(ys, bf, height=0.6, color="#4C72B0", label=t["bf16"])
    ax.plot(f8, ys, "|", color="#DD8452", ms=14, mew=2.2, ls="none", label=t["fp8"])
    caps = [(hardware.get("h100").hbm_bytes * 0.9, t["one"], "#8172B2"),
            (scaleup.domain("hgx-h100").memory_bytes * 0.9, t["hgx"], "#C44E52"),
            (scaleup.domain("gb200-nvl72").memory_bytes * 0.9, t["nvl"], "#55A868"),
            (scaleup.domain("cloudmatrix-384").memory_bytes * 0.9, t["cm"], "#937860")]
    for v, name, c in caps:
        ax.axvline(v, color=c, ls="--", lw=1.3, label=name)
    ax.set_xscale("log")
    ax.set_xlim(5e9, 2e14)
    ax.set_ylim(-0.7, len(SHOW) - 0.3)
    ax.set_yticks(ys)
    ax.set_yticklabels([LABELS[i] for i in SHOW], fontsize=8)
    ax.set_xlabel(t["x"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, axis="x", which="major", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3, frameon=False)
    fig.subplots_adjust(left=0.22, right=0.97, top=0.93, bottom=0.24)
