"""Two failures of the same job, drawn to scale in minutes (@sec-datacenter-networks-job-failures):
the chapter's 1,024-GPU Llama-3.1-70B data-parallel example. Top: a link goes down, the job is
interrupted halfway through a checkpoint interval (jf_tau_small, Young's interval for the 70B
checkpoint and the job's MTBF), the work since the last checkpoint is lost, the job restarts
(jf_restart) and redoes it. Bottom: a NIC degrades to half rate, the job runs on, every step
jf_slow slower; the time lost to the slowdown grows with the time until the NIC is found."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import collectives as cl, formulas, hardware, models, training as tr

SIZE = (7.0, 2.6)
CELLS = ("jf_tau_small", "jf_restart", "jf_slow", "jf_breakeven_h", "jf_fail_small_gpuh")
N_GPUS, GPN, TOKENS, MFU, RESTART = 1024, 8, 4096, 0.4, 600.0    # the chapter's cells
WORK, LOST, RESTART_K, SLOW = 0, 5, 2, 1


def values():
    h100, m = hardware.get("h100"), models.get("llama-3.1-70b")
    run = tr.LLAMA3_405B_RUN
    nodes = N_GPUS // GPN
    ring_lat = cl.topology_ring_latency(N_GPUS, GPN)     # the chapter's node_ring_lat
    nic = cl.measured_nic_busbw()                        # the chapter's nic_meas_mid
    grad = formulas.nbytes(m.params_total, "bf16")
    extra = 2 * (nodes - 1) / nodes * grad / (GPN * nic)             # the chapter's jf_extra
    compute = formulas.train_flops(m.params_active, TOKENS * N_GPUS) / (
        N_GPUS * h100.peak_flops("bf16") * MFU)
    slow = extra / (compute + extra + ring_lat)
    mtbf = tr.mtbf_seconds(run["days"] * 86400, run["unexpected"]) * run["gpus"] / N_GPUS
    tau = tr.young_interval(tr.checkpoint_write_seconds(tr.checkpoint_bytes(m),
                                                        run["storage_sustained_bytes_s"]), mtbf)
    fail_gpuh = (RESTART + tau / 2) * N_GPUS / 3600
    return {"tau": tau, "slow": slow, "fail": fail_gpuh,
            "be": fail_gpuh / (slow * N_GPUS)}


def numbers(t):
    v = values()
    return {"tau": t.num(v["tau"], "num digits=0", name="jf_tau_small"),
            "restart": t.num(RESTART, "num digits=0", name="jf_restart"),
            "slow": t.num(v["slow"], "pct digits=0", name="jf_slow"),
            "be": t.num(v["be"], "num digits=2", name="jf_breakeven_h"),
            "fail": t.num(v["fail"], "num digits=0", name="jf_fail_small_gpuh")}


def schedule():
    v = values()
    tau, r = v["tau"] / 60, RESTART / 60                  # minutes
    fail_at = 2 * tau + tau / 2
    end = fail_at + r + tau / 2 + tau
    bars = [(0, 0, 2 * tau, WORK, ""), (0, 2 * tau, fail_at, LOST, ""),
            (0, fail_at, fail_at + r, RESTART_K, ""),
            (0, fail_at + r, fail_at + r + tau / 2, LOST, ""),
            (0, fail_at + r + tau / 2, end, WORK, "")]
    useful = end / (1 + v["slow"])
    bars += [(1, 0, useful, WORK, ""), (1, useful, end, SLOW, "")]
    return timeline(2, bars)


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, schedule(), [t["row_fail"], t["row_degrade"]],
                  {WORK: t["k_work"], LOST: t["k_lost"].format(**v),
                   RESTART_K: t["k_restart"].format(**v), SLOW: t["k_slow"].format(**v)},
                  t["time_axis"], bar_height=0.55)
    old = ax.get_legend()
    ax.legend(handles=old.legend_handles, labels=[x.get_text() for x in old.get_texts()],
              fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2, frameon=False)
    ax.set_title(t["title"].format(**v), fontsize=8.5)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
