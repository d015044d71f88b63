"""Ship a prompt's KV cache over one 400 Gb/s NIC, or recompute it: per-GPU times against
prompt length, for DeepSeek-V3 (MLA, FP8 on H100) and Qwen3-8B (GQA, BF16 on H100)."""
from calculations import distributed as D, models

SIZE = (6.4, 3.8)
PROMPTS = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
CASES = (("deepseek-v3", "fp8", "DeepSeek-V3", "#C44E52"), ("qwen3-8b", "bf16", "Qwen3-8B", "#4C72B0"))


def draw(fig, t):
    ax = fig.add_subplot()
    bw = D.gbit_s(400)
    for mid, dt, name, color in CASES:
        m = models.get(mid)
        rs = [D.disaggregation(m, "h100", p, bw, dtype=dt) for p in PROMPTS]
        ax.plot(PROMPTS, [r.transfer_s * 1e3 for r in rs], "o--", color=color, ms=3, label=t["tx"].format(m=name))
        ax.plot(PROMPTS, [r.recompute_s * 1e3 for r in rs], "s-", color=color, ms=3, label=t["rc"].format(m=name))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(PROMPTS)
    ax.set_xticklabels([f"{p // 1024}K" if p >= 1024 else str(p) for p in PROMPTS], fontsize=7)
    ax.minorticks_off()
    ax.tick_params(axis="y", labelsize=7)
    ax.set_xlabel(t["x"], fontsize=8)
    ax.set_ylabel(t["y"], fontsize=8)
    ax.grid(True, alpha=0.3, which="major")
    ax.legend(fontsize=7, loc="upper left")
