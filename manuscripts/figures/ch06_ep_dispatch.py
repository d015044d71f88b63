"""Who sends what where in expert parallelism (@sec-supernodes-example-moe): one GPU of an EP-64
group of DeepSeek-V3 holds 128 tokens, each routed to top-k experts; with balanced routing the
copies split by where the chosen expert lives: on this GPU, on the 7 other GPUs of its 8-GPU
node (NVLink), or on the 56 GPUs of the other nodes (NIC). Dispatch sends each copy's hidden
state in FP8, combine brings the expert's output back in BF16 along the same path
(`calculations.scaleup.ep_alltoall`'s balanced-routing shares)."""
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from bookkit.diagrams.flow import Arrow, Box, Flow
from calculations import formulas, models

SIZE = (6.4, 3.4)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("tok", "k", "ep", "ep_copies", "ep_local_copies", "ep_node_copies", "ep_off_copies",
         "ep_node_peers", "ep_off_peers", "ep_node_disp", "ep_node_comb", "ep_off_disp",
         "ep_off_comb")
TOKENS, EP, NODE = 128, 64, 8      # the chapter's tok, ep and GPUs per node


def split():
    ds = models.get("deepseek-v3")
    copies = TOKENS * ds.experts_per_token
    local = copies // EP                              # balanced: 1/EP of the copies per GPU
    node, off = local * (NODE - 1), local * (EP - NODE)
    assert local * EP == copies and local + node + off == copies
    disp, comb = formulas.nbytes(ds.hidden_size, "fp8"), formulas.nbytes(ds.hidden_size, "bf16")
    return ds, copies, local, node, off, disp, comb


def numbers(t):
    ds, copies, local, node, off, disp, comb = split()
    mb = "si unit=MB digits=2"
    return {"tok": t.num(TOKENS, "int", name="tok"), "k": t.num(ds.experts_per_token, "int", name="k"),
            "ep": t.num(EP, "int", name="ep"), "copies": t.num(copies, "int", name="ep_copies"),
            "local": t.num(local, "int", name="ep_local_copies"),
            "node": t.num(node, "int", name="ep_node_copies"),
            "off": t.num(off, "int", name="ep_off_copies"),
            "peers": t.num(NODE - 1, "int", name="ep_node_peers"),
            "others": t.num(EP - NODE, "int", name="ep_off_peers"),
            "nd": t.num(node * disp, mb, name="ep_node_disp"),
            "nc": t.num(node * comb, mb, name="ep_node_comb"),
            "od": t.num(off * disp, mb, name="ep_off_disp"),
            "oc": t.num(off * comb, mb, name="ep_off_comb")}


def draw(fig, t):
    v = numbers(t)
    ys = (2.2, 0.0, -2.2)
    boxes = [Box("src", 0, 0, 3.2, 1, t["src"].format(**v), t["src_note"].format(**v))]
    boxes += [Box(bid, 8.0, y, 3.6, 1, t[bid].format(**v), t[bid + "_note"].format(**v))
              for bid, y in zip(("local", "node", "far"), ys)]
    flow = Flow(tuple(boxes), tuple(Arrow("src", b) for b in ("local", "node", "far")))
    ax = fig.add_subplot()
    draw_flow(ax, flow, fontsize=7)
    for bid, y in zip(("local", "node", "far"), ys):
        # the label ends just before its destination box, on the side of the arrow away from
        # the others: above a rising or level arrow, below a falling one
        below = y < 0
        ax.text(7.85, y + 0.5 + (-0.3 if below else 0.2), t[bid + "_arrow"].format(**v),
                ha="right", va="top" if below else "bottom", fontsize=6.5)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
