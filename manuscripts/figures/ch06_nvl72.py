"""The GB200 NVL72 scale-up domain (@sec-supernodes, the NVL72 paragraph): 18 compute trays of
4 GPUs and 9 NVLink switch trays, every compute tray wired to every switch tray, so any two GPUs
are one switch hop apart; below, the scale-out network each GPU also reaches, at a fraction of
the NVLink bandwidth. Bandwidths and pooled memory from `calculations.scaleup`."""
from bookkit.diagrams import Topology
from bookkit.diagrams.draw import draw_topology
from bookkit.diagrams.extra import clear_under_text
from bookkit.diagrams.topology import Link, Node
from calculations import scaleup

SIZE = (6.4, 3.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('nvl_devices', 'nv5_links', 'nv5_per_link', 'nv5_uni', 'ib400_uni', 'nv5_over_ib',
         'nvl_aggregate', 'nvl_memory')
# The rack's layout (links.json's `topology`, and the chapter's prose): 18 compute trays of 4
# GPUs, 9 switch trays; the asserts in numbers() hold them to the domain's data.
COMPUTE_TRAYS, GPUS_PER_TRAY, SWITCH_TRAYS = 18, 4, 9


def numbers(t):
    nvl, nv5, ib = scaleup.domain("gb200-nvl72"), scaleup.link("nvlink5"), scaleup.link("ib-ndr-400")
    assert COMPUTE_TRAYS * GPUS_PER_TRAY == nvl.devices
    assert nv5.links_per_device % SWITCH_TRAYS == 0
    return {
        "gpus": t.num(nvl.devices, "int", name="nvl_devices"),
        "trays": t.num(COMPUTE_TRAYS, "int", name="nvl_compute_trays"),
        "per_tray": t.num(GPUS_PER_TRAY, "int", name="nvl_gpus_per_tray"),
        "sw": t.num(SWITCH_TRAYS, "int", name="nvl_switch_trays"),
        "links": t.num(nv5.links_per_device, "int", name="nv5_links"),
        "per_sw": t.num(nv5.links_per_device // SWITCH_TRAYS, "int", name="nvl_links_per_switch_tray",
                        expr="nv5_links / switch trays"),
        "per_link": t.num(nv5.per_link_unidirectional, "si unit=GB/s digits=0", name="nv5_per_link"),
        "nv": t.num(nv5.unidirectional, "si unit=GB/s digits=0", name="nv5_uni"),
        "ib": t.num(ib.unidirectional, "si unit=GB/s digits=0", name="ib400_uni"),
        "ratio": t.num(nv5.unidirectional / ib.unidirectional, "num digits=0", name="nv5_over_ib"),
        "agg": t.num(nvl.aggregate_bidirectional, "si unit=TB/s digits=1", name="nvl_aggregate"),
        "mem": t.num(nvl.memory_bytes, "si unit=TB digits=2", name="nvl_memory"),
    }


def topology(v) -> Topology:
    span = COMPUTE_TRAYS - 1
    sw = [Node(f"s{i}", (i + 0.5) * span / SWITCH_TRAYS, 5.0, "switch", str(i + 1))
          for i in range(SWITCH_TRAYS)]
    ct = [Node(f"c{j}", j, 0.0, "gpu", "") for j in range(COMPUTE_TRAYS)]
    net = [Node("net", span / 2, -3.4, "core", "")]
    links = [Link(f"c{j}", f"s{i}") for j in range(COMPUTE_TRAYS) for i in range(SWITCH_TRAYS)]
    links += [Link(f"c{j}", "net", kind="network") for j in range(COMPUTE_TRAYS)]
    return Topology(tuple(sw + ct + net), tuple(links))


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    draw_topology(ax, topology(v), node_size=0.38, label_links="none", fontsize=7,
                  link_kinds={"link": t["nvlink"].format(**v), "network": t["scaleout"].format(**v)})
    ax.text(-0.7, 5.0, t["switch_row"].format(**v), ha="right", va="center", fontsize=7.5)
    ax.text(-0.7, 0.0, t["compute_row"].format(**v), ha="right", va="center", fontsize=7.5)
    ax.text(-0.7, -3.4, t["net_row"], ha="right", va="center", fontsize=7.5)
    ax.set_xlim(-6.5, COMPUTE_TRAYS - 0.3)
    ax.set_ylim(-4.0, 5.6)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
