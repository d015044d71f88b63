"""Self-hosting break-even price for the chapter's agent task (@sec-scheduling-environments-api-cost)
against the decode batch: the task's GPU-seconds at batch b (agents.agent_task) at the H100
rental price, divided by the API bill in base-input-token units (prefix caching), in USD per
million tokens; solid with the GPU always busy, dashed at 50 % utilization. The curve stops at
the largest batch whose end-of-task KV fits beside the weights in 80 GiB."""
from calculations import agents, device, formulas, hardware, models, queueing

SIZE = (6.4, 3.4)
TURNS, FIRST, GEN, TOOL_OUT, TOOL_S, BATCH = 20, 4000, 300, 1200, 8, 8   # the chapter's agt_*
UTIL = 0.5                                                              # the chapter's agt_util
COLORS = ("#4C72B0", "#DD8452")


def draw(fig, t):
    qwen, h100 = models.get("qwen3-8b"), hardware.get("h100")
    eff = queueing.h100_prefill_eff()
    price = device.cloud_price()["h100_usd_per_gpu_hour"]

    def task(b):
        return agents.agent_task(qwen, h100, TURNS, FIRST, GEN, TOOL_OUT, TOOL_S, batch=b,
                                 compute_eff=eff)
    bill = agents.billed_units(task(BATCH), True)
    free = h100.hbm_bytes - formulas.nbytes(qwen.params_total, "bf16")
    bmax = int(free // task(BATCH).kv_peak_bytes)
    bs = list(range(1, bmax + 1))
    be = [task(b).gpu_s * price / 3600 / bill * 1e6 for b in bs]
    ax = fig.add_subplot()
    ax.plot(bs, be, color=COLORS[0], lw=1.8, marker="o", ms=3, label=t["busy"])
    ax.plot(bs, [v / UTIL for v in be], color=COLORS[1], lw=1.8, ls="--",
            label=t["half"].format(u=t.num(UTIL, "pct digits=0")))
    k = bs.index(BATCH)
    ax.annotate(t["book"].format(b=t.num(BATCH, "int")), xy=(BATCH, be[k]),
                xytext=(BATCH + 1.5, be[k] * 2.2), fontsize=8,
                arrowprops=dict(arrowstyle="-", color="0.4", lw=0.8))
    ax.axvline(bmax, color="0.5", lw=0.8, ls=":")
    ax.text(bmax - 0.3, be[0] * 1.2, t["kv_full"].format(b=t.num(bmax, "int")), fontsize=8,
            ha="right", va="top")
    ax.set_yscale("log")
    ax.set_xlim(0.5, bmax + 0.8)
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower left", frameon=False)
    ax.set_title(t["title"], fontsize=10)
