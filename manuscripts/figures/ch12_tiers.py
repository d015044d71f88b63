"""Device, edge and cloud (@sec-device-edge-cloud-network): where Qwen3-8B can run for one user,
what each tier's memory bandwidth gives, and what the links between them cost: the speed-of-light
floor of the round trip to an edge site and to a far data centre, and the chapter's assumed
round trip and uplink. Values with the inputs of the chapter's cells (a test holds them equal).
"""
from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text, widen
from bookkit.diagrams.flow import Flow
from calculations.edge_example import RTT, UPLINK, EDGE_BATCH, DIST_FAR, DIST_EDGE, example

SIZE = (6.4, 3.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('mac_bw', 'mac_tps', 'mac_ttft', 'agx_bw', 'edge_batch', 'edge_tps_total', 'edge_tps_seq',
         'h100_bw', 'h100_pre', 'cloud_ttft', 'dist_edge_km', 'dist_far_km', 'rtt_floor_edge',
         'rtt_floor_far', 'rtt', 'uplink_slow', 'up_prompt')


def numbers(t):
    e = example()
    ms = "si unit=ms digits=0"
    return {
        "mac_bw": t.num(e["mac_bw"], "si unit=GB/s digits=0", name="mac_bw"),
        "mac_tps": t.num(e["mac_tps"], "num digits=0", name="mac_tps"),
        "mac_ttft": t.num(e["mac_ttft"], "si unit=s digits=2", name="mac_ttft"),
        "agx_bw": t.num(e["agx_bw"], "si unit=GB/s digits=1", name="agx_bw"),
        "batch": t.num(EDGE_BATCH, "int", name="edge_batch"),
        "edge_tps": t.num(e["edge_tps_total"], "num digits=0", name="edge_tps_total"),
        "edge_seq": t.num(e["edge_tps_seq"], "num digits=1", name="edge_tps_seq"),
        "h100_bw": t.num(e["h100_bw"], "si unit=TB/s digits=2", name="h100_bw"),
        "h100_pre": t.num(e["h100_pre"], "si unit=ms digits=1", name="h100_pre"),
        "cloud_ttft": t.num(e["cloud_ttft"], ms, name="cloud_ttft"),
        "edge_km": t.num(DIST_EDGE // 1000, "int", name="dist_edge_km"),
        "far_km": t.num(DIST_FAR // 1000, "int", name="dist_far_km"),
        "floor_edge": t.num(e["rtt_floor_edge"], "si unit=ms digits=1", name="rtt_floor_edge"),
        "floor_far": t.num(e["rtt_floor_far"], ms, name="rtt_floor_far"),
        "rtt": t.num(RTT, ms, name="rtt"),
        "up": t.num(UPLINK, "si unit=Mbit/s digits=0", name="uplink_slow"),
        "up_prompt": t.num(e["up_prompt"], "si unit=ms digits=1", name="up_prompt"),
    }


def flow(t, v) -> Flow:
    tiers = ("device", "edge", "cloud")
    items = [(k, t[k], t[f"{k}_note"].format(**v)) for k in tiers]
    return widen(stack_flow(items, [("device", "edge", t["to_edge"].format(**v)),
                                    ("edge", "cloud", t["to_cloud"].format(**v))], gap=0.7), 5.6)


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    draw_flow(ax, flow(t, v), fontsize=7.5)
    ax.text(2.8, -3.55, t["network"].format(**v), ha="center", va="top", fontsize=7.5)
    ax.set_xlim(-1.4, 7.0)
    ax.set_ylim(-4.1, 1.1)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
