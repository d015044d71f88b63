"""Roofline of three accelerators (attainable dense BF16 throughput against arithmetic intensity),
with the two phases of the chapter's running example placed on the H100 roof: Qwen3-8B prefill of
8,192 tokens and a batch-1 decode step at 8,192 tokens of context."""
from calculations import formulas, hardware, models

SIZE = (6.4, 4.0)
DEVICES = ("a100", "h100", "b200")
MODEL = "qwen3-8b"
TOKENS = 8192


def draw(fig, t):
    ax = fig.add_subplot()
    intensities = [2 ** (i / 4) for i in range(-8, 57)]
    for key in DEVICES:
        device = hardware.get(key)
        peak = device.peak_tflops("bf16")
        bandwidth_tb = device.hbm_bandwidth / 1e12
        line, = ax.plot(intensities, [min(peak, x * bandwidth_tb) for x in intensities], label=device.name)
        ridge = device.ridge_point("bf16")
        ax.plot([ridge], [peak], marker="o", markersize=4, color=line.get_color())
        ax.annotate(t["ridge"].format(r=ridge), (ridge, peak), textcoords="offset points",
                    xytext=(6, 3), fontsize=8, color=line.get_color())
    h100 = hardware.get("h100")
    model = models.get(MODEL)
    h_peak = h100.peak_tflops("bf16")
    h_bw = h100.hbm_bandwidth / 1e12
    prefill = formulas.forward(model, tokens=TOKENS, hw=h100).totals.intensity
    decode = formulas.decode_step(model, batch=1, context=TOKENS, hw=h100).intensity
    for x, label, offset in ((prefill, t["prefill"], (8, -13)), (decode, t["decode"], (6, -4))):
        y = min(h_peak, x * h_bw)
        ax.plot([x], [y], marker="s", markersize=6, color="black", zorder=5)
        ax.annotate(label, (x, y), textcoords="offset points", xytext=offset, fontsize=8,
                    ha="right" if offset[0] < 0 else "left")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    ax.set_ylim(0.5, 6000)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
