"""Device, edge and cloud (@sec-device-edge-cloud-network): where Qwen3-8B can run for one user,
what each tier's memory bandwidth gives, and what the links between them cost: the speed-of-light
floor of the round trip to an edge site and to a far data centre, and the chapter's assumed
round trip and uplink. Values with the inputs of the chapter's cells (a test holds them equal).
"""
from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text, widen
from bookkit.diagrams.flow import Flow
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


SIZE = (6.4, 3.6)


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
