"""Switches and optical transceivers per GPU for a 16,384-GPU cluster built from radix-64
switches: a non-blocking three-tier fat tree, the same with 3:1 oversubscription at the leaves,
and a rail-only fabric (8 rails of 2,048 GPUs, each a two-tier fat tree)."""
from calculations import collectives as cl

SIZE = (6.4, 3.6)
GPUS, K, RAILS = 16384, 64, 8


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
