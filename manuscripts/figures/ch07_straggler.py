"""A synchronous training step with one straggler (@sec-datacenter-networks-stragglers): eight
of the 1,024 GPUs of the chapter's Llama-3.1-70B example drawn; each computes for step_compute,
one of them strag_slow times as long; the others wait, and the all-reduce (the chapter's
real_aware, topology-aware at the measured NIC rate) starts only when the slowest is done."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import collectives as cl, formulas, hardware, models

SIZE = (6.4, 3.1)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('step_compute', 'real_aware', 'strag_slow', 'strag_wait', 'strag_step')
SHOWN, SLOW = 8, 4                           # GPUs drawn; the straggler (0-based)
N_GPUS, GPN, TOKENS, MFU, SLOWER = 1024, 8, 4096, 0.4, 1.1   # the chapter's cells
COMPUTE, WAIT, ALLREDUCE = 0, 5, 1


def times():
    h100 = hardware.get("h100")
    m = models.get("llama-3.1-70b")
    compute = formulas.train_flops(m.params_active, TOKENS * N_GPUS) / (
        N_GPUS * h100.peak_flops("bf16") * MFU)
    nodes = N_GPUS // GPN
    ring_lat = cl.topology_ring_latency(N_GPUS, GPN)     # the chapter's node_ring_lat
    nic = cl.measured_nic_busbw()                        # the chapter's nic_meas_mid
    grad = formulas.nbytes(m.params_total, "bf16")
    allreduce = 2 * (nodes - 1) / nodes * grad / (GPN * nic) + ring_lat   # the chapter's real_aware
    return {"compute": compute, "ar": allreduce, "wait": (SLOWER - 1) * compute,
            "step": SLOWER * compute + allreduce}


def step():
    d = times()
    bars = []
    slow_end = SLOWER * d["compute"]
    for g in range(SHOWN):
        end = slow_end if g == SLOW else d["compute"]
        bars.append((g, 0, end, COMPUTE, ""))
        if g != SLOW:
            bars.append((g, end, slow_end, WAIT, ""))
        bars.append((g, slow_end, slow_end + d["ar"], ALLREDUCE, ""))
    return timeline(SHOWN, bars), d


def numbers(t):
    d = times()
    return {
        "compute": t.num(d["compute"], "num digits=2", name="step_compute"),
        "ar": t.num(d["ar"], "num digits=2", name="real_aware"),
        "slow": t.num(SLOWER, "num digits=1", name="strag_slow"),
        "wait": t.num(d["wait"], "si unit=ms digits=0", name="strag_wait"),
        "step": t.num(d["step"], "num digits=2", name="strag_step"),
        "n": t.num(SHOWN, "int"), "i": t.num(SLOW + 1, "int"),
    }


def draw(fig, t):
    tl, _ = step()
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["gpu"].format(i=g + 1) for g in range(SHOWN)],
                  {COMPUTE: t["k_compute"], WAIT: t["k_wait"].format(**v),
                   ALLREDUCE: t["k_ar"].format(**v)}, t["time_axis"], bar_height=0.6)
    old = ax.get_legend()       # long labels: the vocabulary's one-row legend, laid out in two rows
    ax.legend(handles=old.legend_handles, labels=[x.get_text() for x in old.get_texts()],
              fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=2, frameon=False)
    ax.set_title(t["title"].format(**v), fontsize=8.5)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
