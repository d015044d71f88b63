"""Qwen3-8B decode on edge devices (4-bit weights, 2,048-token context) against an H100 in BF16:
the bandwidth bound on tokens/s and the energy per token (power x time per token)."""
from calculations import device, formulas, hardware, models

SIZE = (6.4, 3.6)
CTX = 2048
BATCH = 64
LABELS = {"a17-pro": "A17 Pro", "sd8-elite": "SD 8 Elite", "m4-max": "M4 Max", "rtx-4090": "RTX 4090",
          "orin-agx-64": "AGX Orin", "orin-nano-super": "Orin Nano S."}


def draw(fig, t):
    m = models.get("qwen3-8b")
    h = hardware.get("h100")
    b = device.decode_bytes_per_token(m, CTX)["total"]
    names, tps, joules, colors = [], [], [], []
    for d in device.devices():
        r = device.decode_tokens_per_s(d.bandwidth, b)
        names.append(LABELS[d.id])
        tps.append(r)
        joules.append(device.energy_per_token_j(d.power_w, 1 / r))
        colors.append("#4C72B0")
    s1 = formulas.decode_step(m, 1, CTX, h, dtype="bf16")
    s64 = formulas.decode_step(m, BATCH, CTX, h, dtype="bf16")
    names += [t["h1"], t["h64"]]
    tps += [s1.tokens_per_s_per_sequence, s64.tokens_per_s_per_sequence]
    joules += [h.tdp_w * s1.time_s, h.tdp_w * s64.time_s / BATCH]
    colors += ["#C44E52", "#C44E52"]
    ys = list(range(len(names)))[::-1]
    ax = fig.add_subplot(1, 2, 1)
    ax.barh(ys, tps, color=colors, height=0.6)
    for y, v in zip(ys, tps):
        ax.text(v + max(tps) * 0.02, y, f"{v:.0f}", va="center", fontsize=7)
    ax.set_yticks(ys)
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xlim(0, max(tps) * 1.25)
    ax.set_xlabel(t["tps"], fontsize=8)
    ax.grid(True, axis="x", alpha=0.3)
    ax2 = fig.add_subplot(1, 2, 2)
    ax2.barh(ys, joules, color=colors, height=0.6)
    ax2.set_xscale("log")
    for y, v in zip(ys, joules):
        ax2.text(v * 1.15, y, f"{v:.2f}", va="center", fontsize=7)
    ax2.set_yticks(ys)
    ax2.set_yticklabels([""] * len(names))
    ax2.set_xlim(min(joules) * 0.5, max(joules) * 6)
    ax2.set_xlabel(t["j"], fontsize=8)
    ax2.grid(True, axis="x", alpha=0.3)
    fig.suptitle(t["title"], fontsize=10)
