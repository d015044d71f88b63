"""All-reduce time against message size on 1,024 H100s (128 nodes x 8, NVLink inside, one
400 Gb/s NIC per GPU) in the alpha-beta model: a ring whose every hop crosses the network,
a double binary tree, and the hierarchical (node-local reduce-scatter / all-reduce across nodes /
node-local all-gather) algorithm. The vertical line is the BF16 gradient of Llama-3.1-70B."""
from calculations import collectives as cl, hardware, models

SIZE = (6.4, 4.4)
NODES, PER_NODE = 128, 8


def draw(fig, t):
    ax = fig.add_subplot()
    nccl = cl.data()["nccl"]["latency_model_us"]
    a_net, a_nvl = nccl["ring_simple_net_step"] * 1e-6, nccl["ring_simple_nvlink_step"] * 1e-6
    nic = cl.gbps_to_bytes(cl.nic("cx7")["line_rate_gbps"])
    nvl = hardware.get("h100").link_unidirectional
    n = NODES * PER_NODE
    sizes = [10 ** (3 + i * 0.1) for i in range(0, 91)]
    ring = [cl.ring_allreduce(s, n, nic, a_net).time_s for s in sizes]
    tree = [cl.tree_allreduce(s, n, nic, a_net).time_s for s in sizes]
    hier = [cl.hierarchical_allreduce(s, NODES, PER_NODE, nvl, nic, a_nvl, a_net).time_s for s in sizes]
    ax.loglog(sizes, ring, color="#C44E52", lw=1.8, label=t["ring"])
    ax.loglog(sizes, tree, color="#4C72B0", lw=1.8, ls="--", label=t["tree"])
    ax.loglog(sizes, hier, color="#55A868", lw=1.8, label=t["hier"])
    grad = models.get("llama-3.1-70b").params_total * 2
    ax.axvline(grad, color="#555555", ls=":", lw=1.2)
    ax.text(grad * 0.8, 2e-4, t["grad"], rotation=90, ha="right", va="bottom", fontsize=8, color="#333333")
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.set_xlim(1e3, 1e12)
    ax.legend(fontsize=8, loc="upper left", frameon=False)
