"""Roofline of a few accelerators: attainable BF16 throughput against arithmetic intensity."""
from calculations import hardware

SIZE = (6.4, 3.8)
DEVICES = ("a100", "h100", "b200")
STRINGS = {
    "zh-Hans": {"x": "算术强度（FLOP/字节）", "y": "可达算力（TFLOPS）", "title": "屋顶线：BF16 稠密算力与 HBM 带宽",
                "ridge": "拐点"},
    "en": {"x": "Arithmetic intensity (FLOP/byte)", "y": "Attainable (TFLOPS)",
           "title": "Roofline: dense BF16 compute vs HBM bandwidth", "ridge": "ridge"},
    "zh-Hant": {"x": "算術強度（FLOP/位元組）", "y": "可達算力（TFLOPS）", "title": "屋頂線：BF16 稠密算力與 HBM 頻寬",
                "ridge": "拐點"},
}


def draw(fig, t):
    ax = fig.add_subplot()
    intensities = [2 ** (i / 4) for i in range(0, 49)]
    for key in DEVICES:
        device = hardware.get(key)
        peak = device.peak_tflops("bf16")
        bandwidth_tb = device.hbm_bandwidth / 1e12
        ax.plot(intensities, [min(peak, x * bandwidth_tb) for x in intensities], label=device.name)
        ridge = device.ridge_point("bf16")
        ax.annotate(f"{t['ridge']} {ridge:.0f}", (ridge, peak), textcoords="offset points",
                    xytext=(4, -12), fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
