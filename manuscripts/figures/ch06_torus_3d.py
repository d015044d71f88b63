"""A TPU v5p cube (@sec-supernodes-ici): 4 x 4 x 4 chips, each linked to its two neighbours
along each of three axes, the ends of every row, column and pillar joined by a wraparound link
(drawn as arcs); no switch anywhere. The side, the per-link bandwidth, the diameter and the
bisection are the chapter's cells (`calculations.scaleup`)."""
from bookkit.diagrams import torus3d
from bookkit.diagrams.draw import draw_topology
from calculations import scaleup

SIZE = (6.4, 4.4)
CELLS = ("cube_side", "cube_chips", "ici_per_link", "torus_diameter_cube",
         "cube_bisection_links")


def numbers(t):
    ici = scaleup.link("tpu-v5p-ici")
    chips = scaleup.domain("tpu-v5p-cube").devices
    side = round(chips ** (1 / 3))
    topo = torus3d(side, side, side)
    degrees = {topo.degree(n.id) for n in topo.nodes}
    assert len(topo.nodes) == chips and degrees == {ici.links_per_device}, degrees
    return topo, {
        "side": t.num(side, "int", name="cube_side"),
        "chips": t.num(chips, "int", name="cube_chips"),
        "links": t.num(ici.links_per_device, "int", name="ici_links"),
        "link_bw": t.num(ici.per_link_unidirectional, "si unit=GB/s digits=0", name="ici_per_link",
                         expr="scaleup.link('tpu-v5p-ici').per_link_unidirectional"),
        "diameter": t.num(3 * (side // 2), "int", name="torus_diameter_cube",
                          expr="3 * (cube_side // 2)"),
        "cut": t.num(2 * side * side, "int", name="cube_bisection_links",
                     expr="2 * cube_side * cube_side"),
        "total": t.num(len(topo.links), "int", name="torus_links"),
    }


def draw(fig, t):
    topo, v = numbers(t)
    ax = fig.add_subplot()
    draw_topology(ax, topo, node_size=0.09, label_links="none", wrap_bend=0.45, legend_cols=1,
                  link_kinds={"link": t["link"].format(**v), "wrap": t["wrap"].format(**v)})
    ax.set_title(t["title"].format(**v) + "\n" + t["note"].format(**v), fontsize=8.5)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
