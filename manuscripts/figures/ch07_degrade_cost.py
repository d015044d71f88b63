"""Degraded or down (@sec-datacenter-networks-job-failures): GPU-hours lost by the chapter's
1,024-GPU Llama-3.1-70B job against the hours until a half-rate NIC is found (a straight line,
jf_deg_gpuh_per_h per hour, communication not overlapped), for NICs at 1/2 and 3/4 of their rate,
against the fixed cost of one interruption and restart (jf_fail_small_gpuh)."""
from calculations import collectives as cl, formulas, hardware, models, training as tr

SIZE = (6.4, 3.3)
N_GPUS, GPN, TOKENS, MFU, RESTART = 1024, 8, 4096, 0.4, 600.0     # the chapter's cells
FRACS = ((0.5, "#4C72B0"), (0.75, "#55A868"))
HOURS = 6


def model():
    h100, m = hardware.get("h100"), models.get("llama-3.1-70b")
    run = tr.LLAMA3_405B_RUN
    nodes = N_GPUS // GPN
    ring_lat = cl.topology_ring_latency(N_GPUS, GPN)     # the chapter's node_ring_lat
    nic = cl.measured_nic_busbw()                        # the chapter's nic_meas_mid
    bw_term = 2 * (nodes - 1) / nodes * formulas.nbytes(m.params_total, "bf16") / (GPN * nic)
    compute = formulas.train_flops(m.params_active, TOKENS * N_GPUS) / (
        N_GPUS * h100.peak_flops("bf16") * MFU)
    step = compute + bw_term + ring_lat
    mtbf = tr.mtbf_seconds(run["days"] * 86400, run["unexpected"]) * run["gpus"] / N_GPUS
    tau = tr.young_interval(tr.checkpoint_write_seconds(tr.checkpoint_bytes(m),
                                                        run["storage_sustained_bytes_s"]), mtbf)
    return step, bw_term, (RESTART + tau / 2) * N_GPUS / 3600


def draw(fig, t):
    step, bw_term, fail = model()
    xs = [HOURS * i / 40 for i in range(41)]
    ax = fig.add_subplot()
    for frac, col in FRACS:
        slow = bw_term * (1 / frac - 1) / step
        ax.plot(xs, [slow * N_GPUS * x for x in xs], color=col, lw=1.6,
                label=t["deg"].format(p=round(frac * 100)))
    ax.axhline(fail, color="#C44E52", ls="--", lw=1.2, label=t["fail"])
    ax.set_xlabel(t["x"], fontsize=8)
    ax.set_ylabel(t["y"], fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(t["title"], fontsize=9)
