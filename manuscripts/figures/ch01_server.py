"""One 8-GPU H100 server as it is wired (@sec-getting-started-scale): eight GPUs on NVSwitch
(scale-up, NVLink), each GPU beside its own 400 Gb/s NIC under a PCIe Gen5 switch, two host
CPUs on those switches, and the NICs to a leaf switch (scale-out). Bandwidths are the chapter's
cells (`nvlink_bw`, `pcie_bw`, `nic_bw`, `h100_bw`). A schematic of the DGX/HGX H100 layout
(four NVSwitch chips, eight single-port ConnectX-7, two CPUs); the PCIe tree is simplified."""
from bookkit.diagrams.draw import draw_topology
from bookkit.diagrams.topology import Link, Node, Topology
from calculations import collectives, hardware, serving

SIZE = (6.4, 3.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("nvlink_bw", "pcie_bw", "nic_gbit", "nic_bw", "h100_bw", "nvlink_over_nic", "scale_tp")
GPUS = 8                # the chapter's scale_tp: one HGX baseboard
NIC_GBIT = 400          # the chapter's nic_gbit


def numbers(t):
    h100 = hardware.get("h100")
    nic = collectives.gbps_to_bytes(NIC_GBIT)
    gbs = "si unit=GB/s digits=0"
    return {
        "nvlink": t.num(h100.link_unidirectional, gbs, name="nvlink_bw",
                        expr="h100.link_unidirectional"),
        "pcie": t.num(serving.PCIE5_X16_UNIDIRECTIONAL, gbs, name="pcie_bw",
                      expr="serving.PCIE5_X16_UNIDIRECTIONAL"),
        "gbit": t.num(NIC_GBIT, "int", name="nic_gbit"),
        "nic": t.num(nic, gbs, name="nic_bw", expr="collectives.gbps_to_bytes(nic_gbit)"),
        "hbm": t.num(h100.hbm_bandwidth, "si unit=TB/s digits=2", name="h100_bw",
                     expr="h100.hbm_bandwidth"),
        "ratio": t.num(h100.link_unidirectional / nic, "num digits=0", name="nvlink_over_nic",
                       expr="nvlink_bw / nic_bw"),
        "n": t.num(GPUS, "int", name="scale_tp"),
    }


def topology(t) -> Topology:
    nodes = [Node("leaf", 3.5, 3.3, "switch", t["leaf"])]
    links = []
    for i in range(GPUS):
        nodes += [Node(f"gpu{i}", i, 0, "gpu", str(i)), Node(f"nic{i}", i, 2.2, "edge", t["nic"])]
        links += [Link(f"nic{i}", "leaf", "", "network"),
                  Link(f"pcie{i // 2}", f"gpu{i}", "", "host"),
                  Link(f"pcie{i // 2}", f"nic{i}", "", "host")]
        links += [Link(f"gpu{i}", f"nvs{k}", "", "nvlink") for k in range(4)]
    for k in range(4):      # four NVSwitch chips below, four PCIe switches above the GPUs
        nodes += [Node(f"nvs{k}", 2 * k + 0.5, -1.3, "switch", t["nvs"]),
                  Node(f"pcie{k}", 2 * k + 0.5, 1.1, "agg", t["pcie_sw"])]
    for c in range(2):      # each CPU between its two PCIe switches
        nodes.append(Node(f"cpu{c}", 4 * c + 1.5, 1.1, "host", t["cpu"]))
        links += [Link(f"cpu{c}", f"pcie{2 * c}", "", "host"),
                  Link(f"cpu{c}", f"pcie{2 * c + 1}", "", "host")]
    return Topology(tuple(nodes), tuple(links))


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    draw_topology(ax, topology(t), node_size=0.3, label_links="none", fontsize=6.5,
                  link_kinds={"nvlink": t["l_nvlink"].format(**v), "host": t["l_pcie"].format(**v),
                              "network": t["l_net"].format(**v)})
    ax.text(8.0, 0, t["hbm_note"].format(**v), ha="left", va="center", fontsize=6.5)
    ax.text(8.0, -1.3, t["up"], ha="left", va="center", fontsize=6.5, style="italic")
    ax.text(8.0, 3.3, t["out"], ha="left", va="center", fontsize=6.5, style="italic")
    ax.set_xlim(-0.5, 10.6)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
