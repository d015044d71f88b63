"""Chapter 12's worked example (@sec-device-edge-cloud-example-laptop): Qwen3-8B for one user on
an M4 Max laptop, an AGX Orin edge box serving a few users, or a cloud H100, with the chapter's
inputs. The chapter's diagrams of tiers and of streaming draw these values; a test holds them
equal to the chapter's cells."""
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
