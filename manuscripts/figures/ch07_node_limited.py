"""Node-limited routing in DeepSeek-V3's expert parallelism (@sec-datacenter-networks-moe): one
token's ds_topk experts fall on limited_copies nodes (drawn with ds_experts_per_node each); the
source GPU sends one FP8 copy of the hidden state (ds_copy_bytes) per node over its NIC, and the
receiving GPU forwards it over NVLink to the node's other chosen experts."""
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from bookkit.diagrams.flow import Arrow, Box, Flow
from calculations import models

SIZE = (7.0, 3.4)
CELLS = ("ds_topk", "limited_copies", "limited_saving", "ds_copy_bytes", "ds_experts_per_node")
GROUPS = 4              # the chapter's ds_topk_groups (config.json topk_group)
W, W_SRC, X_NODE, X_EXP, DY = 2.6, 3.2, 5.8, 9.4, 1.35


def values():
    ds = models.get("deepseek-v3")
    k = ds.experts_per_token
    return {"k": k, "copies": GROUPS, "saving": 1 - GROUPS / k, "copy": ds.hidden_size * 1,
            "per": k // GROUPS}


def numbers(t):
    v = values()
    return {"k": t.num(v["k"], "int", name="ds_topk"),
            "g": t.num(v["copies"], "int", name="limited_copies"),
            "saving": t.num(v["saving"], "pct digits=0", name="limited_saving"),
            "copy": t.num(v["copy"], "si unit=KB digits=1", name="ds_copy_bytes"),
            "per": t.num(v["per"], "int", name="ds_experts_per_node")}


def flow(t, v):
    ys = [(GROUPS - 1) / 2 * DY - i * DY for i in range(GROUPS)]
    boxes = [Box("src", 0, -0.5, W_SRC, 1.0, t["src"], t["src_note"].format(**v))]
    arrows = []
    for i, y in enumerate(ys):
        boxes.append(Box(f"n{i}", X_NODE, y - 0.5, W, 1.0, t["node"].format(i=i + 1),
                         t["node_note"]))
        boxes.append(Box(f"e{i}", X_EXP, y - 0.5, W, 1.0, t["experts"].format(**v), ""))
        arrows.append(Arrow("src", f"n{i}", t["a_nic"].format(**v) if i == 0 else ""))
        arrows.append(Arrow(f"n{i}", f"e{i}", t["a_nvl"] if i == 0 else ""))
    return Flow(tuple(boxes), tuple(arrows))


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    draw_flow(ax, flow(t, v), fontsize=7.5)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
