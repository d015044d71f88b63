"""Time to move a session against its context length (@sec-device-edge-cloud-migration), log-log:
upload the token record (4 bytes per token) over 5 Mbit/s plus a round trip plus the H100's
prefill; prefill again on the M4 Max laptop; upload the FP16 KV cache over 5 and 50 Mbit/s."""
from calculations import device, formulas, hardware, models
from calculations.edge_example import BYTES_PER_TOKEN, RTT, UPLINK

SIZE = (6.4, 3.4)
UPLINK_FAST = 50e6                                 # the chapter's uplink_fast
COLORS = ("#4C72B0", "#55A868", "#C44E52", "#DD8452")


def draw(fig, t):
    m, h100, mac = models.get("qwen3-8b"), hardware.get("h100"), device.get("m4-max")
    ctxs = [int(2 ** (k / 4)) for k in range(36, 61)]       # 512 .. 32,768 tokens
    cloud = [device.upload_time_s(c * BYTES_PER_TOKEN, UPLINK) + RTT
             + formulas.forward(m, c, hw=h100, dtype="bf16").totals.roofline_time_s for c in ctxs]
    local = [device.prefill_time_s(formulas.prefill_flops(m, c), mac.prefill_peak) for c in ctxs]
    kv = [formulas.kv_cache_bytes(m, c, 1, "fp16") for c in ctxs]
    up = lambda r: t.num(r, "si unit=Mbit/s digits=0")
    ax = fig.add_subplot()
    ax.plot(ctxs, cloud, color=COLORS[0], lw=1.8, label=t["cloud"])
    ax.plot(ctxs, local, color=COLORS[1], lw=1.8, ls="-.", label=t["local"])
    ax.plot(ctxs, [device.upload_time_s(b, UPLINK) for b in kv], color=COLORS[2], lw=1.8,
            ls="--", label=t["kv"].format(up=up(UPLINK)))
    ax.plot(ctxs, [device.upload_time_s(b, UPLINK_FAST) for b in kv], color=COLORS[3], lw=1.8,
            ls=":", label=t["kv"].format(up=up(UPLINK_FAST)))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", frameon=False)
    ax.set_title(t["title"], fontsize=10)
