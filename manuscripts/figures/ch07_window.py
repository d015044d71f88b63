"""Why the window must cover the bandwidth-delay product (@sec-datacenter-networks-rdma): the
same link sending rdma_msg writes one at a time (post, wait for the completion, post the next)
and with rdma_inflight_msgs outstanding at once. One at a time, the link idles for a round
trip after every message (utilization rdma_util_one); with enough in flight it never idles.
Times from the chapter's cells (fibre only, as the chapter says)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import collectives as cl

SIZE = (6.4, 2.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('rdma_msg', 'rdma_ser', 'rdma_rtt', 'rdma_bdp', 'rdma_util_one', 'rdma_inflight_msgs')
MSG, CABLE_M, SPAN = 64 * 1024, 100, 3     # the chapter's rdma_msg, cable_m; rounds drawn
SEND_A, SEND_B, WAIT = 0, 1, 5


def times():
    ovh = cl.data()["packet_overheads"]
    rate = cl.gbps_to_bytes(cl.nic("cx7")["line_rate_gbps"]) * cl.packet_efficiency(
        ovh["mtu_payload_bytes"], ovh["rocev2_headers_bytes"], ovh["ethernet_frame_bytes"])
    ser = MSG / rate
    rtt = 2 * cl.fiber_delay(CABLE_M / 1000)
    bdp = rate * rtt
    return {"ser": ser, "rtt": rtt, "bdp": bdp, "util": ser / (ser + rtt),
            "inflight": -(-int(bdp) // MSG) + 1}


def step():
    d = times()
    us, bars = 1e6, []
    for i in range(SPAN):
        a = i * (d["ser"] + d["rtt"])
        bars.append((0, a * us, (a + d["ser"]) * us, SEND_A if i % 2 == 0 else SEND_B, str(i + 1)))
        bars.append((0, (a + d["ser"]) * us, (a + d["ser"] + d["rtt"]) * us, WAIT, ""))
    end = SPAN * (d["ser"] + d["rtt"])
    i = 0
    while i * d["ser"] < end - 1e-15:
        a = i * d["ser"]
        bars.append((1, a * us, min(a + d["ser"], end) * us, SEND_A if i % 2 == 0 else SEND_B, str(i + 1)))
        i += 1
    return timeline(2, bars), d


def numbers(t):
    d = times()
    return {
        "msg": t.num(MSG, "si unit=KiB digits=0", name="rdma_msg"),
        "ser": t.num(d["ser"], "si unit=μs digits=2", name="rdma_ser"),
        "rtt": t.num(d["rtt"], "si unit=ns digits=0", name="rdma_rtt"),
        "bdp": t.num(d["bdp"], "si unit=KB digits=1", name="rdma_bdp"),
        "util": t.num(d["util"], "pct digits=0", name="rdma_util_one"),
        "k": t.num(d["inflight"], "int", name="rdma_inflight_msgs"),
    }


def draw(fig, t):
    tl, _ = step()
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["one"].format(**v), t["many"].format(**v)],
                  {SEND_A: t["k_send"].format(**v), SEND_B: t["k_send2"], WAIT: t["k_wait"].format(**v)},
                  t["time_axis"], bar_height=0.55)
    old = ax.get_legend()       # long labels: the vocabulary's one-row legend, laid out in two rows
    ax.legend(handles=old.legend_handles, labels=[x.get_text() for x in old.get_texts()],
              fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=2, frameon=False)
    ax.set_title(t["title"].format(**v), fontsize=8.5)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
