"""Cold start: seconds to put DeepSeek-V3's FP8 weights into one node's 8 GPUs from each
storage tier, for a node holding 1/8 of the model each (8-GPU replica) and for a decode
node of an EP320 unit (replicated part + one expert per GPU)."""
from calculations import distributed as D, models

SIZE = (6.4, 3.4)
TIERS = ("nvme-gen4", "nvme-gen5", "parallel-fs-client", "rdma-400g")
STRINGS = {
    "zh-Hans": {"x": "加载时间（秒，对数坐标）", "full": "整模型 8 卡一份（每卡 1/8）", "ep": "EP320 解码节点",
                "nvme-gen4": "本地 NVMe PCIe 4.0 ×1", "nvme-gen5": "本地 NVMe PCIe 5.0 ×1",
                "parallel-fs-client": "并行文件系统（每客户端）", "rdma-400g": "对端 GPU，8×400 Gb/s RDMA"},
    "en": {"x": "Load time (s, log scale)", "full": "whole model on 8 GPUs (1/8 each)", "ep": "EP320 decode node",
           "nvme-gen4": "local NVMe PCIe 4.0 x1", "nvme-gen5": "local NVMe PCIe 5.0 x1",
           "parallel-fs-client": "parallel file system (per client)", "rdma-400g": "peer GPUs, 8x400 Gb/s RDMA"},
    "zh-Hant": {"x": "載入時間（秒，對數座標）", "full": "整個模型 8 張卡一份（每張 1/8）", "ep": "EP320 解碼節點",
                "nvme-gen4": "本機 NVMe PCIe 4.0 ×1", "nvme-gen5": "本機 NVMe PCIe 5.0 ×1",
                "parallel-fs-client": "平行檔案系統（每個用戶端）", "rdma-400g": "對端 GPU，8×400 Gb/s RDMA"},
}


def draw(fig, t):
    m = models.get("deepseek-v3")
    full = m.params_total / 8
    ep = D.ep_decode(m, "h100", 320, 1, 0).weight_bytes_per_gpu
    ax = fig.add_subplot()
    ys = list(range(len(TIERS)))[::-1]
    h = 0.38
    for off, per_gpu, key, color in ((h / 2, full, "full", "#4C72B0"), (-h / 2, ep, "ep", "#DD8452")):
        vals = [D.cold_start(per_gpu, tid)["time_s"] for tid in TIERS]
        ax.barh([y + off for y in ys], vals, height=h, color=color, label=t[key])
        for y, v in zip(ys, vals):
            ax.text(v * 1.08, y + off, f"{v:.1f} s" if v >= 1 else f"{v * 1e3:.0f} ms", va="center", fontsize=6.5)
    ax.set_xscale("log")
    ax.set_xlim(0.1, 600)
    ax.set_yticks(ys)
    ax.set_yticklabels([t[k] for k in TIERS], fontsize=7)
    ax.tick_params(axis="x", labelsize=7)
    ax.set_xlabel(t["x"], fontsize=8)
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
