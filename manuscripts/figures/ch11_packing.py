"""Fragmentation and bin packing (@sec-scheduling-environments-training): the same load of
single-GPU jobs (`u_frag` of the GPUs) on a few of the cluster's `gpn`-GPU nodes, scattered at
random (left) and packed into as few nodes as possible (right); only whole free nodes can take
a large gang-scheduled job. The chance a node is whole free when scattered is
`queueing.p_node_free`."""
import random

from bookkit.diagrams.extra import draw_tiles
from calculations import queueing

SIZE = (6.4, 3.4)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('gpn', 'u_frag', 'p_free', 'cluster_nodes', 'free_scattered', 'free_packed')
GPN, U = 8, 0.5           # the chapter's gpn, u_frag
NODES = 12                # nodes drawn (the chapter's cluster has 512)
CLUSTER = 512             # the chapter's cluster_nodes
SEED = 5                  # one fixed scattering: the same picture on every build


def layouts():
    total = NODES * GPN
    busy = int(total * U)
    scattered = set(random.Random(SEED).sample(range(total), busy))
    packed = set(range(busy))
    return scattered, packed


def whole_free(busy: set) -> int:
    return sum(all(n * GPN + g not in busy for g in range(GPN)) for n in range(NODES))


def numbers(t):
    scattered, packed = layouts()
    p = queueing.p_node_free(U, GPN)
    return {
        "gpn": t.num(GPN, "int", name="gpn"), "u": t.num(U, "pct digits=0", name="u_frag"),
        "nodes": t.num(NODES, "int", name="packing_demo_nodes"),
        "p": t.num(p, "pct digits=2", name="p_free", expr="queueing.p_node_free(u_frag, gpn)"),
        "cluster": t.num(CLUSTER, "int", name="cluster_nodes"),
        "scat": t.num(CLUSTER * p, "num digits=0", name="free_scattered",
                      expr="cluster_nodes * p_free"),
        "pack": t.num(int(CLUSTER * (1 - U)), "int", name="free_packed",
                      expr="cluster_nodes * (1 - u_frag)"),
        "scat_here": t.num(whole_free(scattered), "int", name="packing_demo_scattered"),
        "pack_here": t.num(whole_free(packed), "int", name="packing_demo_packed"),
    }


def draw(fig, t):
    v = numbers(t)
    grid = [(n, g, 1, 1) for n in range(NODES) for g in range(GPN)]
    for k, (busy, title) in enumerate(zip(layouts(), (t["scattered"], t["packed"]))):
        ax = fig.add_subplot(1, 2, k + 1)
        kinds = [1 if i in busy else "free" for i in range(len(grid))]
        draw_tiles(ax, grid, kinds, {1: t["busy"], "free": t["idle"]} if k == 0 else {})
        for n in range(NODES):
            if all(n * GPN + g not in busy for g in range(GPN)):
                ax.text(GPN + 0.3, -n - 0.5, t["whole"], va="center", fontsize=6.5)
        ax.set_xlim(-0.2, GPN + 3.6)
        ax.set_title(title.format(**v), fontsize=8.5)
    fig.suptitle(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
