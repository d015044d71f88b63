"""DeepSeek-V3 decode with data-parallel attention and expert parallelism on H100-class GPUs:
memory per GPU and TPOT as the expert-parallel size grows, for three per-GPU batches."""
from calculations import distributed as D, models

SIZE = (6.6, 3.7)
EPS = (16, 32, 64, 144, 320)
BATCHES = (32, 64, 128)
CONTEXT = 4989
COLORS = {32: "#4C72B0", 64: "#55A868", 128: "#C44E52"}
STRINGS = {
    "zh-Hans": {"x": "专家并行规模 EP（GPU 数）", "mem": "每卡显存需求 (GB)", "tpot": "每词元时间 TPOT (ms)",
                "cap": "HBM 容量", "b": "每卡批大小 {b}", "serial": "实线：不重叠", "ovl": "虚线：完全重叠",
                "wt": "仅权重"},
    "en": {"x": "Expert-parallel size EP (GPUs)", "mem": "Memory per GPU (GB)", "tpot": "TPOT (ms)",
           "cap": "HBM capacity", "b": "batch {b} per GPU", "serial": "solid: no overlap",
           "ovl": "dashed: full overlap", "wt": "weights only"},
    "zh-Hant": {"x": "專家平行規模 EP（GPU 數）", "mem": "每張卡記憶體需求 (GB)", "tpot": "每詞元時間 TPOT (ms)",
                "cap": "HBM 容量", "b": "每張卡批次 {b}", "serial": "實線：不重疊", "ovl": "虛線：完全重疊",
                "wt": "僅權重"},
}


def draw(fig, t):
    m = models.get("deepseek-v3")
    ax1 = fig.add_subplot(1, 2, 1)
    ax2 = fig.add_subplot(1, 2, 2)
    cap = None
    for b in BATCHES:
        rs = [D.ep_decode(m, "h100", ep, b, CONTEXT) for ep in EPS]
        cap = rs[0].capacity_bytes / 1e9
        ax1.plot(EPS, [r.memory_bytes_per_gpu / 1e9 for r in rs], "o-", color=COLORS[b], ms=3.5,
                 label=t["b"].format(b=b))
        ax2.plot(EPS, [r.tpot_s * 1e3 for r in rs], "o-", color=COLORS[b], ms=3.5, label=t["b"].format(b=b))
        ax2.plot(EPS, [r.tpot_overlap_s * 1e3 for r in rs], "--", color=COLORS[b], lw=1)
    w = [D.ep_decode(m, "h100", ep, 1, 0).weight_bytes_per_gpu / 1e9 for ep in EPS]
    ax1.plot(EPS, w, "s:", color="0.4", ms=3, label=t["wt"])
    ax1.axhline(cap, color="black", lw=0.8)
    ax1.text(EPS[-1], cap - 1.5, t["cap"], ha="right", va="top", fontsize=7)
    for ax, key in ((ax1, "mem"), (ax2, "tpot")):
        ax.set_xscale("log")
        ax.set_xticks(EPS)
        ax.set_xticklabels([str(e) for e in EPS], fontsize=7)
        ax.minorticks_off()
        ax.tick_params(axis="y", labelsize=7)
        ax.set_xlabel(t["x"], fontsize=8)
        ax.set_ylabel(t[key], fontsize=8)
        ax.grid(True, alpha=0.3)
    ax1.set_ylim(0, 140)
    ax1.legend(fontsize=6.5, loc="upper right")
    ax2.set_ylim(0, 75)
    ax2.legend(fontsize=6.5, loc="upper right", title=t["serial"] + "\n" + t["ovl"], title_fontsize=6.5)
