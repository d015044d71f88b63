"""One RDMA write and its completion (@sec-datacenter-networks-rdma), to scale in time: the
program posts a work request; the NIC sends the message as rdma_pkts MTU packets at the port's
payload rate; each reaches the responder one fibre delay later and is written straight into its
memory; the acknowledgement travels back and the requester's NIC writes a completion entry. The
times are the chapter's cells (switch and NIC processing are left out, as the chapter says)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import collectives as cl

SIZE = (6.4, 2.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('rdma_msg', 'rdma_pkts', 'rdma_pkt_t', 'rdma_ser', 'rdma_prop', 'rdma_done', 'cable_m')
MSG, CABLE_M = 64 * 1024, 100     # the chapter's rdma_msg, cable_m
POST, WIRE, WRITE, ACK, CQE = 0, 1, 2, 3, 4


def times():
    net = cl.data()
    ovh = net["packet_overheads"]
    mtu = ovh["mtu_payload_bytes"]
    rate = cl.gbps_to_bytes(cl.nic("cx7")["line_rate_gbps"]) * cl.packet_efficiency(
        mtu, ovh["rocev2_headers_bytes"], ovh["ethernet_frame_bytes"])
    pkts = -(-MSG // mtu)
    ser = MSG / rate
    prop = cl.fiber_delay(CABLE_M / 1000)
    return {"pkts": pkts, "pkt": ser / pkts, "ser": ser, "prop": prop, "done": ser + 2 * prop}


def step():
    d = times()
    us = 1e6
    mark = d["pkt"] * 0.6           # the post and the completion drawn as short marks
    bars = [(0, -mark * us, 0, POST, "")]
    for i in range(d["pkts"]):
        a = i * d["pkt"]
        bars.append((1, a * us, (a + d["pkt"]) * us, WIRE, ""))
        bars.append((2, (a + d["prop"]) * us, (a + d["prop"] + d["pkt"]) * us, WRITE, ""))
    end = d["ser"] + d["prop"]
    bars.append((3, end * us, (end + d["prop"]) * us, ACK, ""))
    bars.append((0, d["done"] * us, (d["done"] + mark) * us, CQE, ""))
    return timeline(4, bars), d


def numbers(t):
    d = times()
    return {
        "msg": t.num(MSG, "si unit=KiB digits=0", name="rdma_msg"),
        "pkts": t.num(d["pkts"], "int", name="rdma_pkts"),
        "pkt": t.num(d["pkt"], "si unit=ns digits=0", name="rdma_pkt_t"),
        "ser": t.num(d["ser"], "si unit=μs digits=2", name="rdma_ser"),
        "prop": t.num(d["prop"], "si unit=ns digits=0", name="rdma_prop"),
        "done": t.num(d["done"], "si unit=μs digits=2", name="rdma_done"),
        "m": t.num(CABLE_M, "int", name="cable_m"),
    }


def draw(fig, t):
    tl, _ = step()
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["r_app"], t["r_tx"], t["r_rx"], t["r_ack"]],
                  {POST: t["k_post"], WIRE: t["k_wire"].format(**v), WRITE: t["k_write"],
                   ACK: t["k_ack"].format(**v), CQE: t["k_cqe"]}, t["time_axis"],
                  bar_height=0.55, fontsize=6)
    old = ax.get_legend()       # five kinds: the vocabulary's one-row legend, laid out in rows of 3
    ax.legend(handles=old.legend_handles, labels=[x.get_text() for x in old.get_texts()],
              fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=3, frameon=False)
    ax.set_title(t["title"].format(**v), fontsize=8.5)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
