"""One answer streamed to the reader (@sec-device-edge-cloud-example-laptop): the chapter's
2048-token prompt and 256-token answer on a laptop (M4 Max, 4-bit Qwen3-8B) and from an H100 in
the cloud, alone (batch 1) or sharing its steps with 64 sequences: the round trip and upload,
the prefill, then the tokens arriving. Times to scale with the inputs of the chapter's cells
(a test holds them equal)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations.edge_example import PROMPT, RTT, OUT, BIG_BATCH, example

SIZE = (6.4, 2.8)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('prompt', 'out_demo', 'big_batch', 'mac_pre', 'mac_ttft', 'mac_tps', 'mac_total_demo',
         'cloud_ttft', 'h100_b1_tps', 'h100_b64_seq_tps', 'cloud_total_b1', 'cloud_total_b64',
         'rtt')


def schedule():
    e = example()
    net = RTT + e["up_prompt"]
    pre_end = net + e["h100_pre"]
    return timeline(3, [
        (0, 0, e["mac_pre"], 0, ""), (0, e["mac_pre"], e["mac_total_demo"], 2, ""),
        (1, 0, net, 5, ""), (1, net, pre_end, 0, ""), (1, pre_end, e["cloud_total_b1"], 2, ""),
        (2, 0, net, 5, ""), (2, net, pre_end, 0, ""), (2, pre_end, e["cloud_total_b64"], 2, ""),
    ]), e


def numbers(t):
    _, e = schedule()
    s2 = "si unit=s digits=2"
    return {
        "prompt": t.num(PROMPT, "int", name="prompt"), "out": t.num(OUT, "int", name="out_demo"),
        "batch": t.num(BIG_BATCH, "int", name="big_batch"),
        "mac_pre": t.num(e["mac_pre"], s2, name="mac_pre"),
        "mac_ttft": t.num(e["mac_ttft"], s2, name="mac_ttft"),
        "mac_tps": t.num(e["mac_tps"], "num digits=0", name="mac_tps"),
        "mac_total": t.num(e["mac_total_demo"], s2, name="mac_total_demo"),
        "cloud_ttft": t.num(e["cloud_ttft"], "si unit=ms digits=0", name="cloud_ttft"),
        "b1_tps": t.num(e["h100_b1_tps"], "num digits=0", name="h100_b1_tps"),
        "b64_tps": t.num(e["h100_b64_seq_tps"], "num digits=0", name="h100_b64_seq_tps"),
        "b1_total": t.num(e["cloud_total_b1"], s2, name="cloud_total_b1"),
        "b64_total": t.num(e["cloud_total_b64"], s2, name="cloud_total_b64"),
        "rtt": t.num(RTT, "si unit=ms digits=0", name="rtt"),
    }


def draw(fig, t):
    tl, _ = schedule()
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["laptop"], t["cloud1"].format(**v), t["cloud64"].format(**v)],
                  {5: t["net"].format(**v), 0: t["prefill"], 2: t["tokens"].format(**v)},
                  t["time"], bar_height=0.6)
    # each row's end: when the whole answer has arrived
    for bar in tl.bars:
        if bar.kind == 2:
            y = tl.rows - 1 - bar.row
            ax.text(bar.end + 0.05, y, {0: v["mac_total"], 1: v["b1_total"],
                                        2: v["b64_total"]}[bar.row], va="center", fontsize=7)
    ax.set_xlim(0, tl.span * 1.12)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
