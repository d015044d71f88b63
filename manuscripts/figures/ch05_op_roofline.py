"""Per-operator roofline of one Qwen3-8B layer on H100 (BF16): prefill of 4096 tokens and a
batch-1 decode step at 4096 tokens of context. Each point is one operator of the layer."""
from calculations import hardware, kernels, models

SIZE = (6.4, 4.6)
KIND_COLORS = {"linear": "#4C72B0", "attention": "#8172B2", "norm": "#DD8452", "rope": "#C44E52",
               "elementwise": "#55A868", "softmax": "#937860"}
STRINGS = {
    "zh-Hans": {"x": "算术强度（FLOP/字节，对数坐标）", "y": "可达算力（TFLOPS，对数坐标）",
                "roof": "H100 BF16 屋顶线", "prefill": "预填充 4096 词元", "decode": "解码（批大小 1）",
                "linear": "矩阵乘法", "attention": "注意力", "norm": "RMSNorm", "rope": "RoPE",
                "elementwise": "SwiGLU / 残差相加", "softmax": "softmax",
                "title": "Qwen3-8B 单层各算子在 H100 屋顶线上的位置"},
    "en": {"x": "Arithmetic intensity (FLOP/byte, log scale)", "y": "Attainable (TFLOPS, log scale)",
           "roof": "H100 BF16 roofline", "prefill": "prefill, 4096 tokens", "decode": "decode, batch 1",
           "linear": "matmul", "attention": "attention", "norm": "RMSNorm", "rope": "RoPE",
           "elementwise": "SwiGLU / residual add", "softmax": "softmax",
           "title": "Operators of one Qwen3-8B layer on the H100 roofline"},
    "zh-Hant": {"x": "算術強度（FLOP/位元組，對數座標）", "y": "可達算力（TFLOPS，對數座標）",
                "roof": "H100 BF16 屋頂線", "prefill": "預填充 4096 詞元", "decode": "解碼（批次大小 1）",
                "linear": "矩陣乘法", "attention": "注意力", "norm": "RMSNorm", "rope": "RoPE",
                "elementwise": "SwiGLU / 殘差相加", "softmax": "softmax",
                "title": "Qwen3-8B 單層各運算子在 H100 屋頂線上的位置"},
}


def draw(fig, t):
    ax = fig.add_subplot()
    h = hardware.get("h100")
    peak = h.peak_tflops("bf16")
    bw = h.hbm_bandwidth / 1e12
    xs = [0.1 * 1.1 ** i for i in range(120)]
    ax.plot(xs, [min(peak, x * bw) for x in xs], color="0.25", lw=1.6, label=t["roof"])
    m = models.get("qwen3-8b")
    seen = set()
    for rows, marker, lab in ((kernels.operator_rows(m, 4096), "o", "prefill"),
                              (kernels.operator_rows(m, 1, context=4096), "^", "decode")):
        for r in rows:
            if r["layers"] == 1 or not r["intensity"]:
                continue
            x = r["intensity"]
            y = min(peak, x * bw)
            kind = r["kind"]
            key = (kind, marker)
            ax.scatter([x], [y], marker=marker, s=36, color=KIND_COLORS[kind], edgecolor="white",
                       linewidth=0.5, zorder=3, label=None)
            seen.add(kind)
    for kind in ("linear", "attention", "norm", "rope", "elementwise", "softmax"):
        if kind in seen:
            ax.scatter([], [], marker="s", s=30, color=KIND_COLORS[kind], label=t[kind])
    ax.scatter([], [], marker="o", color="0.5", label=t["prefill"])
    ax.scatter([], [], marker="^", color="0.5", label=t["decode"])
    ax.axvline(h.ridge_point("bf16"), color="0.6", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(0.1, 20000)
    ax.set_ylim(0.2, 3000)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=4, frameon=False)
    fig.subplots_adjust(left=0.12, right=0.97, top=0.93, bottom=0.24)
