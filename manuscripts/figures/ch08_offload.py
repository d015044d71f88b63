"""Bring back the KV cache of one Qwen3-8B sequence (BF16) on an H100: load it from host memory over
PCIe 5.0 x16 (one direction), load it from one PCIe 5.0 NVMe SSD, or recompute it with a prefill
(roofline bound at peak, and at half the peak)."""
from calculations import hardware, models, serving

SIZE = (6.4, 4.0)
CONTEXTS = tuple(2 ** i for i in range(9, 18))  # 512 .. 131072


def draw(fig, t):
    m = models.get("qwen3-8b")
    h = hardware.get("h100")
    ax = fig.add_subplot()
    pcie = [serving.offload(m, h, c, serving.PCIE5_X16_UNIDIRECTIONAL) for c in CONTEXTS]
    ssd = [serving.offload(m, h, c, serving.NVME_GEN5_READ) for c in CONTEXTS]
    half = [serving.offload(m, h, c, compute_eff=0.5) for c in CONTEXTS]
    ax.plot(CONTEXTS, [r["load_s"] * 1e3 for r in pcie], marker="o", ms=3, color="#4C72B0", label=t["pcie"])
    ax.plot(CONTEXTS, [r["load_s"] * 1e3 for r in ssd], marker="s", ms=3, color="#55A868", label=t["ssd"])
    ax.plot(CONTEXTS, [r["recompute_s"] * 1e3 for r in pcie], marker="^", ms=3, color="#C44E52", label=t["re"])
    ax.plot(CONTEXTS, [r["recompute_s"] * 1e3 for r in half], ls="--", color="#C44E52", label=t["re50"])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.set_title(t["title"], fontsize=10)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper left", frameon=True)
    fig.subplots_adjust(left=0.12, right=0.97, top=0.92, bottom=0.13)
