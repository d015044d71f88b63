"""A local-first cascade: Qwen3-8B (4-bit) on an M4 Max answers, and a fraction of requests is
deferred (after the prefill and 16 probe tokens) to Qwen3-32B in FP8 on a cloud H100 at batch 64.
Expected latency per request and cloud cost per 1,000 requests against the deferral rate."""
from calculations import device, formulas, hardware, models

SIZE = (6.4, 3.4)
PROMPT = 2048
OUT = 256
PROBE = 16
BATCH = 64
RTT = 0.050
UPLINK = 5e6


def draw(fig, t):
    m, big, h = models.get("qwen3-8b"), models.get("qwen3-32b"), hardware.get("h100")
    mac = device.get("m4-max")
    tps = device.decode_tokens_per_s(mac.bandwidth, device.decode_bytes_per_token(m, PROMPT)["total"])
    pre = device.prefill_time_s(formulas.prefill_flops(m, PROMPT), mac.prefill_peak)
    local = pre + OUT / tps
    after = pre + PROBE / tps
    step = formulas.decode_step(big, BATCH, PROMPT, h, dtype="fp8").time_s
    bpre = formulas.forward(big, PROMPT, hw=h, dtype="fp8").totals.roofline_time_s
    cloud_lat = device.cloud_ttft_s(RTT, bpre, 0.0, PROMPT * 4, UPLINK, step) + (OUT - 1) * step
    price = device.cloud_price()["h100_usd_per_gpu_hour"]
    cloud_cost = (bpre + OUT * step / BATCH) * price / 3600 * 1000
    ds = [i / 20 for i in range(21)]
    cs = [device.cascade(d, 0.0, cloud_cost, local, cloud_lat, defer_after_s=after) for d in ds]
    ax = fig.add_subplot(1, 2, 1)
    ax.plot(ds, [c.latency_s for c in cs], color="#4C72B0", label=t["casc"])
    ax.axhline(cloud_lat, color="#C44E52", ls="--", label=t["cloud"])
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["lat"], fontsize=9)
    ax.set_ylim(0, max(c.latency_s for c in cs) * 1.25)
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(True, alpha=0.3)
    ax.tick_params(labelsize=8)
    ax2 = fig.add_subplot(1, 2, 2)
    ax2.plot(ds, [c.cost for c in cs], color="#4C72B0", label=t["casc"])
    ax2.axhline(cloud_cost, color="#C44E52", ls="--", label=t["cloud"])
    ax2.set_xlabel(t["x"], fontsize=9)
    ax2.set_ylabel(t["cost"], fontsize=9)
    ax2.set_ylim(0, cloud_cost * 1.3)
    ax2.legend(fontsize=7, loc="upper left")
    ax2.grid(True, alpha=0.3)
    ax2.tick_params(labelsize=8)
