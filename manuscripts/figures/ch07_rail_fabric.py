"""Rail-optimised wiring (@sec-datacenter-networks-topology): GPU i of every server on leaf
switch i, "rail i", so the cross-server step of a hierarchical all-reduce (same-numbered
GPUs) stays under one leaf; inside a server the GPUs meet on NVLink, and spine switches join
the rails. Four servers drawn; the GPUs per server (one rail each) and the NIC and NVLink
bandwidths are the chapter's cells."""
from bookkit.diagrams import rail_optimised
from bookkit.diagrams.draw import draw_topology
from calculations import collectives as cl
from calculations import hardware

SIZE = (6.6, 4.4)
CELLS = ("gpus_per_node", "nic_bw", "nvlink_bw")
SERVERS = 4     # drawn: enough to see the rails, few enough to follow a line
SPINES = 2
INPUTS = ("gpus_per_node",)   # the chapter's cell value this diagram draws


def numbers(t):
    gpus = t.inputs.get("gpus_per_node", 8)   # one NIC per GPU; drawn alone: the book's
    nic_bw = cl.gbps_to_bytes(cl.nic("cx7")["line_rate_gbps"])
    nvlink_bw = hardware.get("h100").link_unidirectional
    v = {
        "gpus": t.num(gpus, "int", name="gpus_per_node"),
        "servers": t.num(SERVERS, "int", name="rail_servers_drawn"),
        "nic": t.num(nic_bw, "si unit=GB/s digits=0", name="nic_bw",
                     expr="cl.gbps_to_bytes(cl.nic('cx7')['line_rate_gbps'])"),
        "nvlink": t.num(nvlink_bw, "si unit=GB/s digits=0", name="nvlink_bw",
                        expr="hardware.get('h100').link_unidirectional"),
        "last": t.num(gpus - 1, "int", name="gpus_per_node - 1"),
    }
    topo = rail_optimised(SERVERS, gpus, SPINES, nvlink_label=v["nvlink"], rail_label=v["nic"])
    assert all(topo.degree(f"rail{i}") == SERVERS + SPINES for i in range(gpus))
    return topo, v


def draw(fig, t):
    topo, v = numbers(t)
    ax = fig.add_subplot()
    draw_topology(ax, topo, node_size=0.32, label_links="none", fontsize=7,
                  group_label=t["server"], legend_cols=1,
                  link_kinds={"network": t["rail"].format(**v), "nvlink": t["nvlink"].format(**v),
                              "spine": t["spine"]})
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
