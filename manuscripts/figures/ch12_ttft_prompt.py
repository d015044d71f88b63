"""Time to first token against prompt length: Qwen3-8B at 4 bits on three devices (compute-bound
prefill + one decode step) and Qwen3-8B in BF16 on a cloud H100 behind a 50 ms round trip and a
5 Mbit/s uplink (4 bytes of text per token)."""
from calculations import device, formulas, hardware, models

SIZE = (6.4, 3.8)
RTT = 0.050
UPLINK = 5e6
BYTES_PER_TOKEN = 4
PROMPTS = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768]
LOCAL = (("a17-pro", "A17 Pro", "#DD8452"), ("m4-max", "M4 Max", "#4C72B0"), ("rtx-4090", "RTX 4090", "#55A868"))


def draw(fig, t):
    m = models.get("qwen3-8b")
    h = hardware.get("h100")
    ax = fig.add_subplot()
    for did, label, color in LOCAL:
        d = device.get(did)
        ys = []
        for n in PROMPTS:
            pre = device.prefill_time_s(formulas.prefill_flops(m, n), d.prefill_peak)
            ys.append(pre + 1 / device.decode_tokens_per_s(d.bandwidth, device.decode_bytes_per_token(m, n)["total"]))
        ax.plot(PROMPTS, ys, marker="o", ms=3, color=color, label=label)
    cloud = []
    for n in PROMPTS:
        pre = formulas.forward(m, n, hw=h, dtype="bf16").totals.roofline_time_s
        first = formulas.decode_step(m, 1, n, h, dtype="bf16").time_s
        cloud.append(device.cloud_ttft_s(RTT, pre, 0.0, n * BYTES_PER_TOKEN, UPLINK, first))
    ax.plot(PROMPTS, cloud, marker="s", ms=3, color="#C44E52", label=t["cloud"])
    ax.axhline(RTT, color="0.5", ls=":", lw=1)
    ax.text(PROMPTS[-1], RTT * 0.8, t["rtt"], fontsize=7, color="0.4", ha="right", va="top")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="upper left")
