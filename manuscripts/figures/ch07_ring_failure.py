"""A failed (degraded) link on a ring (@sec-datacenter-networks-stragglers): the cross-node
ring of one rail in the chapter's topology-aware all-reduce, eight of its n_nodes nodes drawn;
one link runs at fail_frac of its rate, and since every step of the ring waits for its slowest
link, the ring, and the all-reduce that waits for every rail, slows by fail_slowdown
(the chapter's fail_ok_t -> fail_aware_t, for the gradients of the model the what-if picks), though the link is only fail_capacity_lost of the
fabric's cross-node bandwidth."""
import dataclasses

from bookkit.diagrams import ring
from bookkit.diagrams.draw import draw_topology
from calculations import collectives as cl, formulas, models

SIZE = (6.4, 3.4)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('n_nodes', 'nic_gbps', 'fail_frac', 'fail_ok_t', 'fail_aware_t',
         'fail_slowdown', 'fail_capacity_lost')
INPUTS = ("fail_model_id",)   # the what-if wi-linkfail: whose gradients are all-reduced
BOOK_MODEL = "llama-3.1-70b"   # the chapter's fail_model_id when drawn alone
SHOWN = 8
N_GPUS, GPN, FAIL = 1024, 8, 0.5             # the chapter's n_gpus, gpus_per_node, fail_frac


def times(model_id):
    net = cl.data()
    lat = net["nccl"]["latency_model_us"]
    nodes = N_GPUS // GPN
    nic_gbps = cl.nic("cx7")["line_rate_gbps"]
    nic = cl.gbps_to_bytes(nic_gbps)
    ring_lat = 1e-6 * (lat["ring_simple_base"]
                       + (2 * (N_GPUS - 1) - 2 * (nodes - 1)) * lat["ring_simple_nvlink_step"]
                       + 2 * (nodes - 1) * lat["ring_simple_net_step"])
    m = models.get(model_id)
    grad = formulas.nbytes(m.params_total, "bf16")
    floor = 2 * (nodes - 1) / nodes * grad / (GPN * nic)        # the chapter's floor_t
    ok, bad = floor + ring_lat, floor / FAIL + ring_lat        # fail_ok_t, fail_aware_t
    return {"model": m.name, "nodes": nodes, "gbps": nic_gbps, "ok": ok, "bad": bad, "slow": bad / ok,
            "lost": (1 - FAIL) / (nodes * GPN)}


def numbers(t):
    d = times(t.inputs.get("fail_model_id", BOOK_MODEL))
    return {
        "nodes": t.num(d["nodes"], "int", name="n_nodes"),
        "gbps": t.num(d["gbps"], "int", name="nic_gbps"),
        "half": t.num(d["gbps"] * FAIL, "int", name="fail_gbps", expr="nic_gbps * fail_frac"),
        "frac": t.num(FAIL, "pct digits=0", name="fail_frac"),
        "ok": t.num(d["ok"], "num digits=2", name="fail_ok_t"),
        "model": d["model"],
        "bad": t.num(d["bad"], "num digits=2", name="fail_aware_t"),
        "slow": t.num(d["slow"], "num digits=2", name="fail_slowdown"),
        "lost": t.num(d["lost"], "pct digits=2", name="fail_capacity_lost"),
        "n": t.num(SHOWN, "int"),
    }


def draw(fig, t):
    v = numbers(t)
    topo = ring(SHOWN, label=t["ok_link"].format(**v), kind="host")
    nodes = tuple(dataclasses.replace(n, label=str(int(n.label) + 1)) for n in topo.nodes)
    links = list(topo.links)
    links[2] = dataclasses.replace(links[2], label=t["bad_link"].format(**v), kind="network")
    topo = dataclasses.replace(topo, nodes=nodes, links=tuple(links))
    ax = fig.add_subplot()
    draw_topology(ax, topo, node_size=0.2, label_links="first", fontsize=8,
                  link_kinds={"link": t["k_ok"], "network": t["k_bad"].format(**v)})
    ax.set_title(t["title"].format(**v), fontsize=8.5)


def describe(t):
    return t["alt"].format(**numbers(t))
