"""Ring all-reduce over 8 GPUs, step by step (@sec-datacenter-networks-ring): left the ring with
its links' bandwidth (the chapter's NIC, `nic_bw`), right every step's sends, the chunk each GPU
passes on; reduce-scatter then all-gather, 2(n-1) steps (`calculations.collectives`)."""
from bookkit.diagrams import ring, ring_allreduce_steps
from bookkit.diagrams.draw import draw_ring_steps, draw_topology
from calculations import collectives as cl

SIZE = (6.4, 3.9)
N = 8     # one server's GPUs: a ring small enough to follow chunk by chunk


def numbers(t):
    nic_bw = cl.gbps_to_bytes(cl.nic("cx7")["line_rate_gbps"])
    steps = cl.ring_allreduce(1.0, N, nic_bw).steps
    return {
        "n": t.num(N, "int", name="ring_demo_n"),
        "k": t.num(steps // 2, "int", name="ring_demo_phase_steps"),
        "steps": t.num(steps, "int", name="ring_demo_steps",
                       expr="cl.ring_allreduce(S, 8, nic_bw).steps = 2(n-1)"),
        "bw": t.num(nic_bw, "si unit=GB/s digits=0", name="nic_bw",
                    expr="cl.gbps_to_bytes(cl.nic('cx7')['line_rate_gbps'])"),
        "frac": t.num(2 * (N - 1) / N, "num digits=2", name="ring_demo_sent"),
    }, steps


def draw(fig, t):
    v, _ = numbers(t)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": (1, 1.2)})
    draw_topology(left, ring(N, label=v["bw"]), node_size=0.2, label_links="first")
    left.set_title(t["ring"].format(**v), fontsize=8.5)
    draw_ring_steps(right, ring_allreduce_steps(N), N,
                    {"reduce-scatter": t["rs"].format(**v), "all-gather": t["ag"].format(**v)},
                    t["step"], t["rank"], legend_ax=left)
    right.set_title(t["steps"].format(**v), fontsize=8.5)


def describe(t):
    v, _ = numbers(t)
    return t["alt"].format(**v)
