"""Queue pairs one NIC keeps for an all-to-all (@sec-datacenter-networks-qp-scale): the
chapter's n_gpus GPUs, gpus_per_node per node, one NIC per GPU. Above, reliable connection
(RC): one QP per remote rank (qp_rc); below, XRC: one send QP per remote node (qp_xrc), the
receive side shared on each node. The program posts work requests and rings the doorbell, the
NIC looks up the QP's context and sends packets in PSN order, and writes a completion when the
acknowledgement returns. Counts from `collectives.rc_queue_pairs`, state at the chapter's
illustrative qp_ctx bytes per QP."""
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import arrows_both_ways, clear_under_text
from bookkit.diagrams.flow import Arrow, Box, Flow
from calculations import collectives as cl

SIZE = (6.4, 3.0)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("n_gpus", "qp_rc", "qp_xrc", "qp_ctx", "qp_state_rc", "qp_state_xrc")
N_GPUS, GPN, CTX = 1024, 8, 512       # the chapter's n_gpus, gpus_per_node, qp_ctx
ROW_GAP = 2.6
W, GAP = 4.2, 2.6            # box width, space between boxes for the arrows' words


def numbers(t):
    rc = cl.rc_queue_pairs(N_GPUS, GPN)
    xrc = cl.rc_queue_pairs(N_GPUS, GPN, 1, "xrc")
    return {"n": t.num(N_GPUS, "int", name="n_gpus"),
            "rc": t.num(rc, "int", name="qp_rc"),
            "xrc": t.num(xrc, "int", name="qp_xrc"),
            "ctx": t.num(CTX, "int", name="qp_ctx"),
            "s_rc": t.num(rc * CTX, "si unit=KB digits=0", name="qp_state_rc"),
            "s_xrc": t.num(xrc * CTX, "si unit=KB digits=0", name="qp_state_xrc")}


def draw(fig, t):
    v = numbers(t)
    boxes, arrows = [], []
    for r, key in enumerate(("rc", "xrc")):
        y = -r * ROW_GAP
        boxes += [Box(f"p{r}", 0, y, W, 1, t["prog"], t[f"prog_{key}"].format(**v)),
                  Box(f"n{r}", W + GAP, y, W, 1, t["nic"], t[f"nic_{key}"].format(**v)),
                  Box(f"r{r}", 2 * (W + GAP), y, W, 1, t[f"peer_{key}"].format(**v),
                      t[f"peer_note_{key}"])]
        arrows.append(Arrow(f"n{r}", f"r{r}", t["packets"]))
    ax = fig.add_subplot()
    draw_flow(ax, Flow(tuple(boxes), tuple(arrows)), fontsize=7)
    for r, key in enumerate(("rc", "xrc")):
        y = -r * ROW_GAP
        arrows_both_ways(ax, W, W + GAP, t["post"], t["cqe"], y_out=y + 0.72, y_back=y + 0.28,
                         fontsize=6.5)
        ax.text(1.5 * W + GAP, y + 1.25, t[f"row_{key}"].format(**v), ha="center", va="bottom", fontsize=8)
    ax.set_ylim(-ROW_GAP - 0.3, 1.75)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
