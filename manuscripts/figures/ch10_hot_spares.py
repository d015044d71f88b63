"""Hot spares (@sec-training-systems-hot-spares): the nodes out for repair in a synchronous job
are Poisson distributed (mean nodes x per-node rate x repair time); the spares that cover them
99.9 % of the time (`hot_spares.spares_needed`) against the repair time, for the Llama 3 405B
job's 2,048 nodes (`sp_nodes`) and for 100,000 GPUs (`sp_big_nodes`), as a share of the job.
The per-node rate is 8 GPUs times the per-GPU rate from Llama 3's 419 unexpected interruptions
(`gpu_fail_rate`). A plot."""
from calculations import hot_spares as HS, training as tr

SIZE = (6.4, 3.0)
PER_NODE, AVAIL, BIG = 8, 0.999, 100_000   # the chapter's gpus_per_node, sp_avail, big_cluster


def draw(fig, t):
    run = tr.LLAMA3_405B_RUN
    rate = PER_NODE * run["unexpected"] / (run["gpus"] * run["days"] * 24)
    hours = list(range(4, 169, 4))
    ax = fig.add_subplot()
    for gpus, ls in ((run["gpus"], "-"), (BIG, "--")):
        nodes = gpus // PER_NODE
        ax.plot(hours, [100 * HS.spares_needed(nodes, rate, h, AVAIL) / nodes for h in hours],
                ls=ls, lw=1.6, label=t["series"].format(gpus=t.num(gpus, "int"),
                                                        nodes=t.num(nodes, "int")))
    for h in (24, 72):
        ax.axvline(h, color="#999999", lw=0.7, ls=":")
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.set_ylim(0, None)
    ax.legend(fontsize=8, frameon=False)
    ax.set_title(t["title"].format(p=t.num(AVAIL, "pct digits=1")), fontsize=9)
