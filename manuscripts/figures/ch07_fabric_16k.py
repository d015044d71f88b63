"""Switches and optical transceivers per GPU for a 16,384-GPU cluster built from radix-64
switches: a non-blocking three-tier fat tree, the same with 3:1 oversubscription at the leaves,
and a rail-only fabric (8 rails of 2,048 GPUs, each a two-tier fat tree)."""
from calculations import collectives as cl

SIZE = (6.4, 3.6)
GPUS, K, RAILS = 16384, 64, 8
STRINGS = {
    "zh-Hans": {"sw": "每千张 GPU 的交换机数", "tx": "每张 GPU 的光模块数（所有链路用光纤）",
                "full": "三层胖树，无阻塞", "over": "三层胖树，叶层 3:1 收敛", "rail": "仅轨道（8 条轨道，各两层）",
                "title": "16,384 张 GPU、64 口交换机的三种组网"},
    "en": {"sw": "Switches per 1,000 GPUs", "tx": "Transceivers per GPU (all links optical)",
           "full": "3-tier fat tree, non-blocking", "over": "3-tier fat tree, 3:1 at the leaves",
           "rail": "Rail-only (8 rails, 2 tiers each)", "title": "Three fabrics for 16,384 GPUs with radix-64 switches"},
    "zh-Hant": {"sw": "每千張 GPU 的交換器數", "tx": "每張 GPU 的光模組數（所有鏈路皆用光纖）",
                "full": "三層胖樹，無阻塞", "over": "三層胖樹，葉層 3:1 超額訂閱", "rail": "僅軌道（8 條軌道，各兩層）",
                "title": "16,384 張 GPU、64 埠交換器的三種組網"},
}


def draw(fig, t):
    full = cl.fat_tree(GPUS, K)
    over = cl.fat_tree(GPUS, K, oversubscription=3)
    rail = cl.rail_only(GPUS // RAILS, RAILS, K)
    names = [t["full"], t["over"], t["rail"]]
    sw = [full.switches / GPUS * 1000, over.switches / GPUS * 1000, rail["switches"] / GPUS * 1000]
    tx = [full.transceivers() / GPUS, over.transceivers() / GPUS, rail["transceivers"] / GPUS]
    ys = [2, 1, 0]
    colors = ["#4C72B0", "#DD8452", "#55A868"]
    for i, (vals, key, fmt) in enumerate(((sw, "sw", "{:.1f}"), (tx, "tx", "{:.2f}"))):
        ax = fig.add_subplot(1, 2, i + 1)
        ax.barh(ys, vals, color=colors, height=0.6)
        for y, v in zip(ys, vals):
            ax.text(v + max(vals) * 0.02, y, fmt.format(v), va="center", fontsize=8)
        ax.set_yticks(ys)
        ax.set_yticklabels(names if i == 0 else [""] * 3, fontsize=8)
        ax.set_xlim(0, max(vals) * 1.25)
        ax.set_xlabel(t[key], fontsize=8)
        ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle(t["title"], fontsize=10)
