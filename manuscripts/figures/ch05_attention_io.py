"""HBM bytes of one attention head's forward pass against sequence length: naive (scores and
probabilities written to memory) vs tiled (FlashAttention, K/V-outer and Q-outer loop orders),
H100 shared memory per SM as the SRAM, head_dim 128, BF16, causal."""
from calculations import kernels

SIZE = (6.4, 4.5)
STRINGS = {
    "zh-Hans": {"x": "序列长度 N（词元，对数坐标）", "y": "单个头的 HBM 读写（字节，对数坐标）",
                "naive": "朴素实现：写回 S 与 P", "kv": "分块：K/V 外循环（FlashAttention 算法 1）",
                "q": "分块：Q 外循环（FlashAttention-2 的顺序）", "s": "N×N 分数矩阵本身",
                "title": "注意力的 HBM 流量：分块省下常数倍，不改变 N² 阶"},
    "en": {"x": "Sequence length N (tokens, log scale)", "y": "HBM bytes for one head (log scale)",
           "naive": "naive: S and P written to memory", "kv": "tiled: K/V outer loop (FlashAttention Alg. 1)",
           "q": "tiled: Q outer loop (FlashAttention-2 order)", "s": "the N×N score matrix itself",
           "title": "Attention HBM traffic: tiling saves a constant factor, still N²"},
    "zh-Hant": {"x": "序列長度 N（詞元，對數座標）", "y": "單一注意力頭的 HBM 讀寫（位元組，對數座標）",
                "naive": "樸素實作：寫回 S 與 P", "kv": "分塊：K/V 外迴圈（FlashAttention 演算法 1）",
                "q": "分塊：Q 外迴圈（FlashAttention-2 的順序）", "s": "N×N 分數矩陣本身",
                "title": "注意力的 HBM 流量：分塊省下常數倍，不改變 N² 階"},
}


def draw(fig, t):
    ax = fig.add_subplot()
    ns = [2 ** k for k in range(10, 18)] + [3 * 2 ** k for k in range(10, 16)]
    ns = sorted(ns)
    rs = [kernels.attention_io(n, 128, causal=True) for n in ns]
    ax.plot(ns, [r["naive_bytes"] for r in rs], color="#C44E52", lw=2, label=t["naive"])
    ax.plot(ns, [r["kv_outer_bytes"] for r in rs], color="#4C72B0", lw=2, label=t["kv"])
    ax.plot(ns, [r["q_outer_bytes"] for r in rs], color="#55A868", lw=2, label=t["q"])
    ax.plot(ns, [r["score_matrix_bytes"] for r in rs], color="0.5", lw=1, ls="--", label=t["s"])
    for n in (8192, 32768, 131072):
        ax.axvline(n, color="0.8", lw=0.8, zorder=0)
        ax.text(n, 2.2e6, f"{n // 1024}K", fontsize=8, ha="center", va="bottom", color="0.35")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(1024, 131072)
    ax.set_ylim(2e6, 3e11)
    ax.set_xticks([1024, 4096, 16384, 65536, 131072])
    ax.set_xticklabels(["1K", "4K", "16K", "64K", "128K"])
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="major", alpha=0.25)
    ax.legend(fontsize=7.5, loc="upper left", frameon=True)
    fig.subplots_adjust(left=0.13, right=0.97, top=0.92, bottom=0.12)
