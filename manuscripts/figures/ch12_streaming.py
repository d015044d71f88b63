"""One answer streamed to the reader (@sec-device-edge-cloud-example-laptop): the chapter's
2048-token prompt and 256-token answer on a laptop (M4 Max, 4-bit Qwen3-8B) and from an H100 in
the cloud, alone (batch 1) or sharing its steps with 64 sequences: the round trip and upload,
the prefill, then the tokens arriving. Times to scale with the inputs of the chapter's cells
(a test holds them equal)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import device, formulas, hardware, models

PROMPT = CTX = 2048
BITS, GROUP, SCALE_BITS = 4, 128, 16
RTT, UPLINK = 0.050, 5e6
BYTES_PER_TOKEN = 4
OUT = 256
BIG_BATCH = 64
EDGE_BATCH = 8
FIBER, DIST_FAR, DIST_EDGE = 2e8, 2_000_000, 50_000


def example() -> dict:
    m, h100 = models.get("qwen3-8b"), hardware.get("h100")
    mac, agx = device.get("m4-max"), device.get("orin-agx-64")
    read = device.decode_bytes_per_token(m, CTX, BITS, GROUP)["total"]
    mac_tps = device.decode_tokens_per_s(mac.bandwidth, read)
    mac_pre = device.prefill_time_s(formulas.prefill_flops(m, PROMPT), mac.prefill_peak)
    h100_pre = formulas.forward(m, PROMPT, hw=h100, dtype="bf16").totals.roofline_time_s
    b1 = formulas.decode_step(m, 1, CTX, h100, dtype="bf16")
    b64 = formulas.decode_step(m, BIG_BATCH, CTX, h100, dtype="bf16")
    prompt_bytes = PROMPT * BYTES_PER_TOKEN
    up = device.upload_time_s(prompt_bytes, UPLINK)
    cloud_ttft = device.cloud_ttft_s(RTT, h100_pre, 0.0, prompt_bytes, UPLINK, b1.time_s)
    edge_bytes = device.decode_bytes_per_token(m, CTX, BITS, GROUP, batch=EDGE_BATCH)["total"]
    edge_step = edge_bytes / agx.bandwidth
    mac_ttft = mac_pre + 1 / mac_tps
    return {
        "mac_bw": mac.bandwidth, "agx_bw": agx.bandwidth, "h100_bw": h100.hbm_bandwidth,
        "mac_tps": mac_tps, "mac_pre": mac_pre, "mac_ttft": mac_ttft,
        "mac_total_demo": mac_ttft + (OUT - 1) / mac_tps,
        "h100_pre": h100_pre, "h100_first": b1.time_s, "h100_b1_tps": b1.tokens_per_s,
        "h100_b64_seq_tps": b64.tokens_per_s_per_sequence,
        "up_prompt": up, "cloud_ttft": cloud_ttft,
        "cloud_total_b1": cloud_ttft + (OUT - 1) / b1.tokens_per_s,
        "cloud_total_b64": cloud_ttft + (OUT - 1) / b64.tokens_per_s_per_sequence,
        "edge_tps_total": EDGE_BATCH / edge_step, "edge_tps_seq": 1 / edge_step,
        "rtt_floor_far": 2 * DIST_FAR / FIBER, "rtt_floor_edge": 2 * DIST_EDGE / FIBER,
    }


SIZE = (6.4, 2.8)


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
