"""A three-tier fat tree (folded Clos) from switches of radix k = 4, wired as
@sec-datacenter-networks-topology counts it: k pods of k/2 leaf and k/2 spine switches,
(k/2)^2 core switches, k^3/4 hosts. The counts on the figure are `cl.fat_tree_full(4, 3)`'s,
and the drawing's own node counts are checked against them."""
from bookkit.diagrams import fat_tree
from bookkit.diagrams.draw import draw_topology
from calculations import collectives as cl

SIZE = (6.4, 3.4)
K = 4   # the smallest radix whose three tiers can be drawn switch by switch


def numbers(t):
    ft = cl.fat_tree_full(K, 3)
    topo = fat_tree(K)
    assert (topo.count("host"), topo.count("core"), topo.count("edge")) == (
        ft.endpoints, ft.cores, ft.leaves), "drawing and calculations disagree"
    return topo, {
        "k": t.num(K, "int", name="k_demo"),
        "hosts": t.num(ft.endpoints, "int", name="hosts", expr="cl.fat_tree_full(4, 3).endpoints"),
        "cores": t.num(ft.cores, "int", name="cores", expr="cl.fat_tree_full(4, 3).cores"),
        "pods": t.num(ft.pods, "int", name="pods", expr="cl.fat_tree_full(4, 3).pods"),
        "leaves": t.num(ft.leaves, "int", name="leaves", expr="cl.fat_tree_full(4, 3).leaves"),
        "half": t.num(K // 2, "int", name="k/2"),
    }


def draw(fig, t):
    topo, v = numbers(t)
    ax = fig.add_subplot()
    draw_topology(ax, topo, node_size=0.17, label_links="none", fontsize=7,
                  link_kinds={"core": t["l_core"], "pod": t["l_pod"], "host": t["l_host"]})
    for y, key in ((3, "core"), (2, "spine"), (1, "leaf"), (0, "host")):
        ax.text(-0.6, y, t[key], ha="right", va="center", fontsize=8)
    ax.set_xlim(-3.2, K * K // 2 + 0.6)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
