"""Sizing the prefill and decode pools from traffic (@sec-distributed-inference-pool-sizing):
DeepSeek's published day (`pub_input` input and `pub_output` output tokens) as average rates
(`in_rate`, `out_rate`), divided by a node's prefill and decode throughput
(`pub_prefill_node_tps`, `pub_node_tps`), gives the average nodes per pool (`pool_prefill`,
`pool_decode`; together `pool_total`, against the published 226.75); with H200s in the decode
pool, scaled by memory bandwidth, `pool_decode_h200`. The chapter's inputs."""
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from bookkit.diagrams.flow import Box, Flow
from calculations import hardware

SIZE = (6.4, 3.0)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("in_rate", "out_rate", "pub_prefill_node_tps", "pub_node_tps", "pool_prefill",
         "pool_decode", "pool_total", "pub_avg_nodes", "pool_decode_h200")
INPUT, OUTPUT, PRE_TPS, DEC_TPS, AVG = 608e9, 168e9, 73.7e3, 14.8e3, 226.75   # DeepSeek's day


def numbers(t):
    day = 24 * 3600
    pre, dec = INPUT / day / PRE_TPS, OUTPUT / day / DEC_TPS
    gain = hardware.get("h200").hbm_bandwidth / hardware.get("h100").hbm_bandwidth
    return {
        "in": t.num(INPUT / day, "count sig=3", name="in_rate"),
        "out": t.num(OUTPUT / day, "count sig=3", name="out_rate"),
        "pre_tps": t.num(PRE_TPS, "num digits=0", name="pub_prefill_node_tps"),
        "dec_tps": t.num(DEC_TPS, "num digits=0", name="pub_node_tps"),
        "pre": t.num(pre, "num digits=1", name="pool_prefill", expr="in_rate / pub_prefill_node_tps"),
        "dec": t.num(dec, "num digits=1", name="pool_decode", expr="out_rate / pub_node_tps"),
        "total": t.num(pre + dec, "num digits=1", name="pool_total"),
        "avg": t.num(AVG, "num digits=2", name="pub_avg_nodes"),
        "dec_h200": t.num(dec / gain, "num digits=1", name="pool_decode_h200",
                          expr="pool_decode / (H200 / H100 memory bandwidth)"),
    }


def draw(fig, t):
    from matplotlib.patches import FancyArrowPatch
    v = numbers(t)
    boxes = (Box("traffic", 0, 0.9, 3.2, 1.4, t["traffic"], t["traffic_note"].format(**v)),
             Box("pre", 6.0, 1.9, 3.6, 1.2, t["pre"], t["pre_note"].format(**v)),
             Box("dec", 6.0, 0.1, 3.6, 1.2, t["dec"], t["dec_note"].format(**v)))
    ax = fig.add_subplot()
    draw_flow(ax, Flow(boxes, ()), fontsize=7.5)
    # the two arrows drawn here, each with its own label (draw_flow would stack both labels)
    for (y0, y1, key) in ((1.9, 2.5, "in_label"), (1.3, 0.7, "out_label")):
        ax.add_patch(FancyArrowPatch((3.2, y0), (6.0, y1), arrowstyle="-|>", mutation_scale=10,
                                     color="#333333", lw=1.0))
        ax.text(4.6, (y0 + y1) / 2 + (0.22 if y1 > y0 else -0.22), t[key].format(**v),
                ha="center", va="center", fontsize=7)
    ax.text(4.8, -0.45, t["total_note"].format(**v), ha="center", va="center", fontsize=7)
    ax.set_xlim(-0.2, 9.8)
    ax.set_ylim(-0.9, 3.4)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
