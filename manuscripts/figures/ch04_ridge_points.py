"""Ridge points (dense peak / memory bandwidth) of the registry's accelerators, BF16 and FP8,
with the arithmetic intensity of two Qwen3-8B workloads on H100 for reference."""
from calculations import formulas, hardware, models

SIZE = (6.4, 4.7)
DEVICES = ("a100", "h100", "h200", "b200", "mi300x", "mi325x", "tpu-v5e", "tpu-v5p", "tpu-v6e", "rtx-4090")
LABELS = {"a100": "A100", "h100": "H100", "h200": "H200", "b200": "B200", "mi300x": "MI300X",
          "mi325x": "MI325X", "tpu-v5e": "TPU v5e", "tpu-v5p": "TPU v5p", "tpu-v6e": "TPU v6e",
          "rtx-4090": "RTX 4090"}


def draw(fig, t):
    ax = fig.add_subplot()
    names = [LABELS[d] for d in DEVICES]
    ys = list(range(len(DEVICES)))[::-1]
    bf16 = [hardware.get(d).ridge_point("bf16") for d in DEVICES]
    fp8 = [hardware.get(d).ridge_point("fp8") if hardware.get(d).has_peak("fp8") else None
           for d in DEVICES]
    h = 0.38
    ax.barh([y + h / 2 for y in ys], bf16, height=h, color="#4C72B0", label=t["bf16"])
    ax.barh([y - h / 2 for y, v in zip(ys, fp8) if v], [v for v in fp8 if v], height=h,
            color="#DD8452", label=t["fp8"])
    for y, v in zip(ys, bf16):
        ax.text(v * 1.04, y + h / 2, f"{v:.0f}", va="center", fontsize=7)
    for y, v in zip(ys, fp8):
        if v:
            ax.text(v * 1.04, y - h / 2, f"{v:.0f}", va="center", fontsize=7)
    m = models.get("qwen3-8b")
    dec = formulas.decode_step(m, batch=1, context=4096, hw="h100").intensity
    pre = formulas.forward(m, tokens=4096, hw="h100").totals.intensity
    ax.axvline(dec, color="#55A868", ls="--", lw=1.2, label=f"{t['decode']}: {dec:.1f}")
    ax.axvline(pre, color="#8172B2", ls=":", lw=1.4, label=f"{t['prefill']}: {pre:.0f}")
    ax.set_xscale("log")
    ax.set_xlim(0.5, 3000)
    ax.set_yticks(ys)
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xlabel(t["x"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    fig.subplots_adjust(left=0.16, right=0.96, top=0.93, bottom=0.25)
