"""An 8-to-1 incast under DCQCN alone (@sec-datacenter-networks-dcqcn): the senders' total rate
(in port rates) halves at each CNP, one every 50 us, from 8 down to 1; the queue at the congested
port grows by (total rate - port rate) meanwhile (fluid model, the chapter's dcqcn_queue); the
1 MB of buffer of the chapter's incast example drawn for scale."""
from calculations import collectives as cl

SIZE = (6.6, 3.3)
SENDERS, GAP, BUFFER, CUTS = 8, 50e-6, 1e6, 3       # the chapter's cells


def series():
    nic = cl.gbps_to_bytes(cl.nic("cx7")["line_rate_gbps"])
    ts, rates, queues = [], [], []
    rate, q, dt = float(SENDERS), 0.0, 1e-6
    steps = int((CUTS + 1) * GAP / dt)
    for i in range(steps + 1):
        t = i * dt
        ts.append(t * 1e6)
        rates.append(rate)
        queues.append(q / 1e6)
        q += max(0.0, rate - 1) * nic * dt
        if i and i % int(GAP / dt) == 0 and rate > 1:
            rate /= 2
    return ts, rates, queues


def draw(fig, t):
    ts, rates, queues = series()
    ax = fig.add_subplot()
    ax.step(ts, rates, where="post", color="#4C72B0", lw=1.6, label=t["rate"])
    ax.axhline(1, color="#4C72B0", ls=":", lw=0.9)
    ax.set_ylim(0, SENDERS + 0.5)
    ax.set_xlabel(t["x"], fontsize=8)
    ax.set_ylabel(t["y"], fontsize=8)
    ax2 = ax.twinx()
    ax2.plot(ts, queues, color="#DD8452", lw=1.6, label=t["queue"])
    ax2.axhline(BUFFER / 1e6, color="#C44E52", ls="--", lw=1.0, label=t["buffer"])
    ax2.set_ylabel(t["y2"], fontsize=8)
    ax2.set_ylim(0, max(queues) * 1.1)
    for a in (ax, ax2):
        a.tick_params(labelsize=7)
    ax.grid(True, alpha=0.3)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="center right")
    ax.set_title(t["title"], fontsize=9)
