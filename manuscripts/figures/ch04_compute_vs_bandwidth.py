"""Dense BF16 peak against memory bandwidth for the registry's accelerators, log-log,
with lines of constant arithmetic intensity (ridge point)."""
from calculations import hardware

SIZE = (6.4, 4.4)
DEVICES = ("a100", "h100", "h200", "b200", "mi300x", "mi325x", "tpu-v5e", "tpu-v5p", "tpu-v6e", "rtx-4090")
LABELS = {"a100": "A100", "h100": "H100", "h200": "H200", "b200": "B200", "mi300x": "MI300X",
          "mi325x": "MI325X", "tpu-v5e": "TPU v5e", "tpu-v5p": "TPU v5p", "tpu-v6e": "TPU v6e",
          "rtx-4090": "RTX 4090"}
INTENSITIES = (100, 200, 400, 800)
OFFSETS = {"mi300x": (-8, 6), "mi325x": (5, -10)}


def draw(fig, t):
    ax = fig.add_subplot()
    xs = [0.6, 12.0]
    for k in INTENSITIES:
        ax.plot(xs, [x * k for x in xs], color="0.6", lw=0.8, ls="--")
        x_end = min(9.5, 3000 / k)
        ax.text(x_end, x_end * k, t["line"].format(k), fontsize=7, color="0.35",
                ha="right", va="bottom", rotation=0)
    for d in DEVICES:
        dev = hardware.get(d)
        bw = dev.hbm_bandwidth / 1e12
        pk = dev.peak_tflops("bf16")
        color = "#DD8452" if d.startswith("tpu") else ("#C44E52" if d.startswith("mi") else "#4C72B0")
        ax.scatter([bw], [pk], s=28, color=color, zorder=3)
        dx, dy = OFFSETS.get(d, (5, -3))
        ax.annotate(LABELS[d], (bw, pk), textcoords="offset points", xytext=(dx, dy), fontsize=8,
                    ha="right" if dx < 0 else "left")
    ax.set_xscale("log")
    ax.set_yscale("log")
    # Plain numbers at readable steps instead of bare powers of ten (10^0, 10^1).
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter
    ax.xaxis.set_major_locator(FixedLocator([0.5, 1, 2, 4, 8]))
    ax.yaxis.set_major_locator(FixedLocator([100, 200, 500, 1000, 2000]))
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        axis.set_minor_formatter(NullFormatter())
    ax.set_xlim(0.6, 12)
    ax.set_ylim(100, 3500)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
