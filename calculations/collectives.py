"""Collectives and datacenter networks (chapter 7): alpha-beta time of ring, tree and hierarchical collectives; fat-tree sizing.

Standard library only. `add_commands` registers this module's `calc.py` subcommands.

Units: sizes in bytes, bandwidths in bytes/s (one direction, per rank), latencies in seconds,
link rates in Gb/s (10^9 bit/s of data) where the name says ``gbps``.

- Link rates: :func:`gbps_to_bytes`, :func:`lane_signal_rate` (PAM4 lanes with 256b/257b
  transcoding and RS(544,514) FEC), :func:`pcie_bytes_per_s`, :func:`packet_efficiency`.
- Collectives (alpha-beta model, ``T = steps * alpha + bytes_on_the_busiest_link / bw``):
  :func:`ring_allreduce`, :func:`ring_allgather`, :func:`ring_reduce_scatter`,
  :func:`tree_allreduce`, :func:`hierarchical_allreduce`, :func:`all_to_all`;
  :func:`busbw_factor`, :func:`bus_bandwidth` as nccl-tests define them.
- Topology: :func:`fat_tree_full` (k^2/2 and k^3/4 hosts), :func:`fat_tree` (a fabric for N
  endpoints with radix-k switches, oversubscription, links and optics), :func:`rail_only`.
- Congestion: :func:`ecmp_max_load` (exact distribution of the busiest path when F flows are
  hashed onto P paths), :func:`ecmp_used_paths`, :func:`incast_fill_time`.
- Distance: :func:`fiber_delay`, :func:`bdp_bytes`, :func:`lossless_headroom`.
- Registry: :func:`nic`, :func:`switch`, :func:`link`, :func:`nics`, :func:`switches`, :func:`links`,
  :func:`data` (the whole of ``data/networks.json``).
"""
from __future__ import annotations

from calculations import cliargs

import json
import math
import os
from dataclasses import asdict, dataclass, field
from typing import Optional

from .errors import CalcError

__all__ = [
    "NetworkError", "DATA_FILE", "topology_ring_latency", "measured_nic_busbw", "C_VACUUM", "data", "nic", "switch", "link", "nics", "switches", "links",
    "gbps_to_bytes", "bytes_to_gbps", "lane_signal_rate", "pcie_bytes_per_s", "packet_efficiency",
    "CollectiveTime", "busbw_factor", "bus_bandwidth", "alg_bandwidth",
    "ring_allreduce", "ring_allgather", "ring_reduce_scatter", "tree_allreduce", "hierarchical_allreduce",
    "all_to_all", "collective",
    "FatTree", "fat_tree_full", "fat_tree", "leaf_split", "rail_only",
    "ecmp_max_load", "ecmp_used_paths", "ecmp_no_collision", "incast_fill_time",
    "fiber_delay", "bdp_bytes", "lossless_headroom", "add_commands",
]

DATA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "networks.json")
C_VACUUM = 299_792_458.0  # m/s, exact by definition of the metre


class NetworkError(CalcError):
    """A user-facing problem: unknown part, impossible topology, bad number."""


# ------------------------------------------------------------------ registry
_DATA = None


def data() -> dict:
    """The parsed ``data/networks.json`` (cached)."""
    global _DATA
    if _DATA is None:
        with open(DATA_FILE, encoding="utf-8") as f:
            _DATA = json.load(f)
    return _DATA


def _find(kind: str, name: str) -> dict:
    key = str(name).strip().lower()
    items = data()[kind]
    for d in items:
        if key == d["id"] or key == d["name"].lower() or key in [a.lower() for a in d.get("aliases", [])]:
            return d
    known = ", ".join(d["id"] for d in items)
    raise NetworkError(f"unknown {kind[:-1]} {name!r}; known: {known}")


def nic(name: str) -> dict:
    """A NIC entry (``cx7``, ``cx8``, ``bf3``) with ``line_rate_gbps``, ``host`` and ``sources``."""
    return _find("nics", name)


def switch(name: str) -> dict:
    """A switch entry (``qm9700``, ``q3400``, ``sn5600``, ``tomahawk5``) with ``radix`` and ``port_gbps``."""
    return _find("switches", name)


def link(name: str) -> dict:
    """A link generation (``ib-ndr``, ``ib-xdr``, ``400gbe``, ``800gbe``)."""
    return _find("links", name)


def nics() -> list:
    return list(data()["nics"])


def switches() -> list:
    return list(data()["switches"])


def links() -> list:
    return list(data()["links"])


# ---------------------------------------------------------------- link rates
def _pos(x, name, zero_ok=False):
    if isinstance(x, bool) or not isinstance(x, (int, float)) or x != x or x in (float("inf"),):
        raise NetworkError(f"{name} must be a number, got {x!r}")
    if x < 0 or (x == 0 and not zero_ok):
        raise NetworkError(f"{name} must be {'non-negative' if zero_ok else 'positive'}, got {x!r}")
    return x


def _int(x, name, minimum=1):
    if isinstance(x, bool) or not isinstance(x, int) or x < minimum:
        raise NetworkError(f"{name} must be an integer >= {minimum}, got {x!r}")
    return x


def gbps_to_bytes(gbps: float) -> float:
    """Data rate in Gb/s (10^9 bit/s) -> bytes/s. 400 Gb/s -> 5e10 B/s (50 GB/s)."""
    return _pos(gbps, "rate", zero_ok=True) * 1e9 / 8


def bytes_to_gbps(bytes_per_s: float) -> float:
    return _pos(bytes_per_s, "rate", zero_ok=True) * 8 / 1e9


def lane_signal_rate(lane_data_gbps: float, transcode=(257, 256), fec=(544, 514)) -> float:
    """Bits per second on the wire of one PAM4 lane carrying ``lane_data_gbps`` of data:
    data x 257/256 (256b/257b transcoding) x 544/514 (RS(544,514) FEC). 100 -> 106.25 Gb/s,
    i.e. 53.125 GBd in PAM4 (2 bits per symbol)."""
    return _pos(lane_data_gbps, "lane rate") * transcode[0] / transcode[1] * fec[0] / fec[1]


def pcie_bytes_per_s(gt_s_per_lane: float, lanes: int, encoding=(128, 130)) -> float:
    """One direction of a PCIe link in bytes/s after line coding (128b/130b from Gen3 to Gen5):
    32 GT/s x 16 lanes -> 63.0 GB/s. Transaction-layer packet headers are not subtracted."""
    return _pos(gt_s_per_lane, "GT/s") * 1e9 * _int(lanes, "lanes") * encoding[0] / encoding[1] / 8


def packet_efficiency(payload: int = 4096, headers: int = 44, frame: int = 38) -> float:
    """Fraction of link data rate that is message payload: payload / (payload + headers + frame).
    Defaults: 4096-byte MTU, RoCEv2 headers (44 B) in an Ethernet frame with preamble, FCS and
    inter-frame gap (38 B). For native InfiniBand use headers=26, frame=0."""
    _int(payload, "payload")
    return payload / (payload + _pos(headers, "headers", True) + _pos(frame, "frame", True))


# --------------------------------------------------------------- collectives
OPS = ("allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce")


def busbw_factor(op: str, n: int) -> float:
    """nccl-tests' correction from algorithm bandwidth (size / time) to bus bandwidth."""
    _int(n, "ranks")
    op = op.replace("_", "").replace("-", "").lower()
    if op == "allreduce":
        return 2 * (n - 1) / n
    if op in ("allgather", "reducescatter", "alltoall"):
        return (n - 1) / n
    if op in ("broadcast", "reduce"):
        return 1.0
    raise NetworkError(f"unknown collective {op!r}; known: {', '.join(OPS)}")


def alg_bandwidth(size_bytes: float, time_s: float) -> float:
    return _pos(size_bytes, "size", True) / _pos(time_s, "time")


def bus_bandwidth(op: str, n: int, size_bytes: float, time_s: float) -> float:
    """busbw = algbw x factor(op, n): comparable with the per-rank link bandwidth."""
    return alg_bandwidth(size_bytes, time_s) * busbw_factor(op, n)


@dataclass(frozen=True)
class CollectiveTime:
    """Alpha-beta time of one collective. ``size_bytes`` is what nccl-tests calls S: the full
    buffer (all-reduce), the whole gathered output (all-gather), the whole input
    (reduce-scatter) or one rank's send buffer (all-to-all)."""
    op: str
    algorithm: str
    ranks: int
    size_bytes: float
    latency_s: float
    bandwidth_s: float
    steps: int
    parts: tuple = field(default=(), compare=False)

    @property
    def time_s(self) -> float:
        return self.latency_s + self.bandwidth_s

    @property
    def dominant(self) -> str:
        return "bandwidth" if self.bandwidth_s >= self.latency_s else "latency"

    @property
    def algbw(self) -> float:
        return self.size_bytes / self.time_s if self.time_s > 0 else float("inf")

    @property
    def busbw(self) -> float:
        return self.algbw * busbw_factor(self.op, self.ranks)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["parts"] = [p.to_dict() if isinstance(p, CollectiveTime) else p for p in self.parts]
        d.update(time_s=self.time_s, dominant=self.dominant, algbw=self.algbw, busbw=self.busbw)
        return d


def _check(size, n, bw, alpha):
    return _pos(size, "size", True), _int(n, "ranks"), _pos(bw, "bandwidth"), _pos(alpha, "alpha", True)


def ring_allreduce(size_bytes: float, n: int, bw: float, alpha: float = 0.0) -> CollectiveTime:
    """Ring all-reduce: a reduce-scatter then an all-gather, 2(n-1) steps; each rank sends
    2(n-1)/n x S over its link. T = 2(n-1) alpha + 2(n-1)/n x S / bw."""
    size_bytes, n, bw, alpha = _check(size_bytes, n, bw, alpha)
    steps = 2 * (n - 1)
    return CollectiveTime("allreduce", "ring", n, size_bytes, steps * alpha, 2 * (n - 1) / n * size_bytes / bw, steps)


def topology_ring_latency(n_gpus: int, gpus_per_node: int) -> float:
    """The latency term (seconds) of NCCL's ring all-reduce ordered by node, from its tuning
    table (`data()["nccl"]["latency_model_us"]`, the version in `latency_version`): one base
    cost per call, 2(n-1) steps of which 2(n/g-1) cross the network and the rest stay on
    NVLink (chapter 7, the hierarchical ring)."""
    n_gpus, gpus_per_node = _int(n_gpus, "n_gpus"), _int(gpus_per_node, "gpus_per_node")
    if n_gpus % gpus_per_node:
        raise NetworkError(f"{n_gpus} GPUs do not fill nodes of {gpus_per_node}")
    lat = data()["nccl"]["latency_model_us"]
    nodes = n_gpus // gpus_per_node
    net_steps = 2 * (nodes - 1)
    return 1e-6 * (lat["ring_simple_base"]
                   + (2 * (n_gpus - 1) - net_steps) * lat["ring_simple_nvlink_step"]
                   + net_steps * lat["ring_simple_net_step"])


def measured_nic_busbw() -> float:
    """Bus bandwidth per 400G NDR NIC that nccl-tests measure across nodes, bytes/s: the middle
    of the measured range (`data()["nccl"]["measured"]["ndr_per_nic_busbw_gb_s"]`)."""
    lo, hi = data()["nccl"]["measured"]["ndr_per_nic_busbw_gb_s"]
    return (lo + hi) / 2 * 1e9


def ring_allgather(size_bytes: float, n: int, bw: float, alpha: float = 0.0) -> CollectiveTime:
    """Ring all-gather of a total output of S bytes (S/n from each rank): (n-1) steps,
    T = (n-1) alpha + (n-1)/n x S / bw."""
    size_bytes, n, bw, alpha = _check(size_bytes, n, bw, alpha)
    return CollectiveTime("allgather", "ring", n, size_bytes, (n - 1) * alpha, (n - 1) / n * size_bytes / bw, n - 1)


def ring_reduce_scatter(size_bytes: float, n: int, bw: float, alpha: float = 0.0) -> CollectiveTime:
    """Ring reduce-scatter of an S-byte input on every rank: same cost as the all-gather."""
    size_bytes, n, bw, alpha = _check(size_bytes, n, bw, alpha)
    return CollectiveTime("reducescatter", "ring", n, size_bytes, (n - 1) * alpha, (n - 1) / n * size_bytes / bw,
                          n - 1)


def tree_allreduce(size_bytes: float, n: int, bw: float, alpha: float = 0.0) -> CollectiveTime:
    """Pipelined double binary tree (NCCL's 'tree'): a reduce up and a broadcast down two
    complementary trees, each carrying half the data. Every rank sends S in the reduce phase
    and at most S in the broadcast phase, so the bandwidth term is 2 S / bw (the ring's
    2(n-1)/n S / bw for large n); the latency term is 2 ceil(log2 n) alpha instead of 2(n-1) alpha."""
    size_bytes, n, bw, alpha = _check(size_bytes, n, bw, alpha)
    depth = math.ceil(math.log2(n)) if n > 1 else 0
    bw_term = 2 * size_bytes / bw if n > 1 else 0.0
    return CollectiveTime("allreduce", "tree", n, size_bytes, 2 * depth * alpha, bw_term, 2 * depth)


def hierarchical_allreduce(size_bytes: float, nodes: int, per_node: int, bw_intra: float, bw_inter: float,
                           alpha_intra: float = 0.0, alpha_inter: float = 0.0, inter: str = "ring") -> CollectiveTime:
    """Two-level all-reduce over ``nodes x per_node`` ranks: (1) reduce-scatter inside each node
    (every GPU ends with a reduced 1/per_node shard), (2) all-reduce of that shard across nodes,
    each GPU talking to the same-index GPU of every other node over its own NIC (one rail per
    index, all rails in parallel), (3) all-gather inside the node. Phases run one after another
    (no overlap)."""
    size_bytes = _pos(size_bytes, "size", True)
    nodes, per_node = _int(nodes, "nodes"), _int(per_node, "per-node ranks")
    rs = ring_reduce_scatter(size_bytes, per_node, bw_intra, alpha_intra)
    shard = size_bytes / per_node
    if inter == "ring":
        mid = ring_allreduce(shard, nodes, bw_inter, alpha_inter)
    elif inter == "tree":
        mid = tree_allreduce(shard, nodes, bw_inter, alpha_inter)
    else:
        raise NetworkError(f"inter-node algorithm must be ring or tree, got {inter!r}")
    ag = ring_allgather(size_bytes, per_node, bw_intra, alpha_intra)
    parts = (rs, mid, ag)
    return CollectiveTime("allreduce", f"hierarchical ({inter} across nodes)", nodes * per_node, size_bytes,
                          sum(p.latency_s for p in parts), sum(p.bandwidth_s for p in parts),
                          sum(p.steps for p in parts), parts)


def all_to_all(size_bytes: float, n: int, bw: float, alpha: float = 0.0, per_node: int = 1,
               bw_intra: Optional[float] = None) -> CollectiveTime:
    """All-to-all where every rank sends S bytes split evenly over the n ranks (S/n to each,
    its own share stays). With ``per_node`` > 1 the (per_node - 1)/n of S for node-mates goes
    over ``bw_intra`` and the (n - per_node)/n for other nodes over the rank's own NIC ``bw``;
    the two proceed in parallel and the slower sets the time. Latency: (n-1) alpha (pairwise
    exchange). NCCL cannot spread one rank's all-to-all over several NICs."""
    size_bytes, n, bw, alpha = _check(size_bytes, n, bw, alpha)
    per_node = _int(per_node, "per-node ranks")
    if per_node > n or n % per_node:
        raise NetworkError(f"{n} ranks are not a whole number of {per_node}-rank nodes")
    remote = (n - per_node) / n * size_bytes / bw
    local = 0.0
    if per_node > 1:
        local = (per_node - 1) / n * size_bytes / _pos(bw_intra if bw_intra is not None else bw, "intra bandwidth")
    return CollectiveTime("alltoall", "pairwise", n, size_bytes, (n - 1) * alpha, max(remote, local), n - 1)


def collective(op: str, algorithm: str, size_bytes: float, n: int, bw: float, alpha: float = 0.0,
               per_node: int = 1, bw_intra: Optional[float] = None, alpha_intra: float = 0.0) -> CollectiveTime:
    """Dispatch by name (used by the CLI)."""
    op = op.replace("_", "").replace("-", "").lower()
    if op == "allreduce":
        if algorithm == "ring":
            return ring_allreduce(size_bytes, n, bw, alpha)
        if algorithm == "tree":
            return tree_allreduce(size_bytes, n, bw, alpha)
        if algorithm == "hierarchical":
            if per_node < 2 or n % per_node:
                raise NetworkError("hierarchical needs --gpus-per-node >= 2 dividing --ranks")
            return hierarchical_allreduce(size_bytes, n // per_node, per_node, bw_intra or bw, bw, alpha_intra, alpha)
        raise NetworkError(f"all-reduce algorithm must be ring, tree or hierarchical, got {algorithm!r}")
    if op == "allgather":
        return ring_allgather(size_bytes, n, bw, alpha)
    if op == "reducescatter":
        return ring_reduce_scatter(size_bytes, n, bw, alpha)
    if op == "alltoall":
        return all_to_all(size_bytes, n, bw, alpha, per_node, bw_intra)
    raise NetworkError(f"unknown collective {op!r}; known: allreduce, allgather, reducescatter, alltoall")


# ------------------------------------------------------------------ topology
@dataclass(frozen=True)
class FatTree:
    """A folded-Clos fabric. Counts are switches and cables; an optical link has a transceiver at
    each end. ``switch_ports_used`` counts the switch ports that carry a cable."""
    endpoints: int
    radix: int
    tiers: int
    leaf_down: int
    leaf_up: int
    leaves: int
    spines: int
    cores: int
    pods: int
    host_links: int
    leaf_spine_links: int
    spine_core_links: int
    capacity: int

    @property
    def switches(self) -> int:
        return self.leaves + self.spines + self.cores

    @property
    def links(self) -> int:
        return self.host_links + self.leaf_spine_links + self.spine_core_links

    @property
    def switch_links(self) -> int:
        return self.leaf_spine_links + self.spine_core_links

    @property
    def oversubscription(self) -> float:
        return self.leaf_down / self.leaf_up

    @property
    def switch_ports_used(self) -> int:
        return self.host_links + 2 * self.switch_links

    def transceivers(self, host_links_optical: bool = True) -> int:
        """Transceiver ends: 2 per optical cable (switch-to-switch always optical here)."""
        return 2 * self.switch_links + (2 * self.host_links if host_links_optical else 0)

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(switches=self.switches, links=self.links, switch_links=self.switch_links,
                 oversubscription=self.oversubscription, transceivers=self.transceivers())
        return d


def fat_tree_full(k: int, tiers: int) -> FatTree:
    """The largest non-blocking fat tree of radix-k switches: 2 tiers: k leaves (k/2 down,
    k/2 up), k/2 spines, k^2/2 hosts; 3 tiers (Al-Fares et al.): k pods of k/2 edge + k/2
    aggregation switches, (k/2)^2 cores, k^3/4 hosts, 5k^2/4 switches."""
    _int(k, "radix", 2)
    if k % 2:
        raise NetworkError(f"radix must be even, got {k}")
    hosts = k * k // 2 if tiers == 2 else k ** 3 // 4 if tiers == 3 else None
    if hosts is None:
        raise NetworkError(f"tiers must be 2 or 3, got {tiers}")
    return fat_tree(hosts, k, tiers=tiers)


def leaf_split(k: int, oversubscription: float = 1.0) -> tuple:
    """Ports of a radix-k leaf split into (down, up) so that down/up is as close as possible to
    the requested oversubscription without exceeding it."""
    _int(k, "radix", 2)
    r = _pos(oversubscription, "oversubscription")
    if r < 1:
        raise NetworkError("oversubscription is down:up and must be >= 1")
    down = int(k * r / (1 + r) + 1e-9)
    while down > 1 and down / (k - down) > r + 1e-9:
        down -= 1
    return down, k - down


def fat_tree(endpoints: int, k: int, oversubscription: float = 1.0, tiers: Optional[int] = None) -> FatTree:
    """Switches, links and optics of a fat tree of radix-k switches for ``endpoints`` NIC ports.
    Oversubscription (down:up) is applied at the leaves; the upper tiers are non-blocking.
    With ``tiers=None`` the fewest tiers that fit are used. Three-tier fabrics are built from
    pods of k/2 leaves and k/2 spines (a pod serves k/2 x leaf_down endpoints)."""
    _int(endpoints, "endpoints")
    _int(k, "radix", 4)
    if k % 2:
        raise NetworkError(f"radix must be even, got {k}")
    down, up = leaf_split(k, oversubscription)
    leaves = -(-endpoints // down)
    cap2 = k * down                      # each spine has one port per leaf: at most k leaves
    cap3 = k * (k // 2) * down            # k pods of k/2 leaves
    if tiers is None:
        tiers = 2 if endpoints <= cap2 else 3
    if tiers == 2:
        if endpoints > cap2:
            raise NetworkError(f"{endpoints} endpoints exceed a 2-tier fabric of radix {k} ({cap2}); use 3 tiers")
        spines = -(-leaves * up // k)
        return FatTree(endpoints, k, 2, down, up, leaves, spines, 0, 1, endpoints, leaves * up, 0, cap2)
    if tiers == 3:
        if endpoints > cap3:
            raise NetworkError(f"{endpoints} endpoints exceed a 3-tier fabric of radix {k} ({cap3})")
        half = k // 2
        pods = -(-leaves // half)
        # each leaf sends `up` links into its pod; a pod's spines (k/2 ports down) absorb them
        spines = 0
        remaining = leaves
        for _ in range(pods):
            in_pod = min(half, remaining)
            remaining -= in_pod
            spines += -(-in_pod * up // half)
        spine_up = spines * half
        cores = -(-spine_up // k)
        return FatTree(endpoints, k, 3, down, up, leaves, spines, cores, pods, endpoints, leaves * up, spine_up, cap3)
    raise NetworkError(f"tiers must be 2 or 3, got {tiers}")


def rail_only(nodes: int, rails: int, k: int) -> dict:
    """A rail-only fabric: NIC i of every node joins rail i, and each rail is its own fat tree
    with no links between rails (traffic between rails crosses NVLink inside a node first).
    Returns the per-rail FatTree and the totals."""
    _int(nodes, "nodes")
    _int(rails, "rails")
    per_rail = fat_tree(nodes, k)
    return {"rails": rails, "per_rail": per_rail, "switches": rails * per_rail.switches,
            "links": rails * per_rail.links, "switch_links": rails * per_rail.switch_links,
            "transceivers": rails * per_rail.transceivers(), "tiers": per_rail.tiers}


# ---------------------------------------------------------------- congestion
def ecmp_max_load(flows: int, paths: int) -> dict:
    """Distribution of the busiest path when ``flows`` equal flows are hashed uniformly and
    independently onto ``paths`` equal paths. Returns {"p": {c: P(max load = c)}, "mean": E[max],
    "rate": E[1/max], "p_no_collision": P(max <= 1)}. A synchronous step that waits for its
    slowest flow runs at 1/max of the link rate, so "rate" is the expected fraction of line rate.

    Exact recursion over paths: the first of b remaining paths receives j of i remaining flows
    with probability C(i, j) (1/b)^j (1 - 1/b)^(i-j), and every path must stay <= c."""
    _int(flows, "flows")
    _int(paths, "paths")

    # Tables shared by every bound c (the loop below asks for c = 1, 2, ...): binomial
    # coefficients and the powers of 1/b and 1 - 1/b, so each term is three multiplications
    # instead of a comb() and two powers (the figure of chapter 7 calls this for 64 flows).
    choose = [[math.comb(i, j) for j in range(i + 1)] for i in range(flows + 1)]
    powers = {b: ([(1.0 / b) ** j for j in range(flows + 1)],
                  [(1.0 - 1.0 / b) ** k for k in range(flows + 1)]) for b in range(1, paths + 1)}

    def p_le(c):
        f = [1.0] + [0.0] * flows          # f[i]: P(i flows on 0 paths all <= c) for b = 0
        for b in range(1, paths + 1):
            qj, rk = powers[b]
            g = [0.0] * (flows + 1)
            for i in range(flows + 1):
                row = choose[i]
                acc = 0.0
                for j in range(0, min(c, i) + 1):
                    if f[i - j]:
                        acc += row[j] * qj[j] * rk[i - j] * f[i - j]
                g[i] = acc
            f = g
        return f[flows]

    def tail_bound(c):
        """P(busiest path > c) <= paths x P(Binomial(flows, 1/paths) > c): the union bound."""
        if paths == 1:
            return 0.0 if c >= flows else 1.0
        log_q, log_r = math.log(1.0 / paths), math.log1p(-1.0 / paths)
        head = math.lgamma(flows + 1)
        return paths * sum(math.exp(head - math.lgamma(k + 1) - math.lgamma(flows - k + 1)
                                    + k * log_q + (flows - k) * log_r)
                           for k in range(c + 1, flows + 1))

    # Stop once the mass left above c is provably below 1e-16. Waiting for the computed
    # P(max <= c) to reach 1 - 1e-15 alone is not enough: rounding can hold it just below
    # (64 flows on 64 paths stalls at 1 - 1.1e-14), and the loop then ran to c = flows and
    # booked that rounding residue as P(max = flows).
    cdf = {0: 0.0}
    c = 0
    while cdf[c] < 1.0 - 1e-15 and c < flows and (c == 0 or tail_bound(c) >= 1e-16):
        c += 1
        cdf[c] = 1.0 if c >= flows else min(1.0, p_le(c))
    p = {k: cdf[k] - cdf[k - 1] for k in range(1, c + 1) if cdf[k] - cdf[k - 1] > 0}
    total = sum(p.values())
    p = {k: v / total for k, v in p.items()}
    return {"p": p, "mean": sum(k * v for k, v in p.items()), "rate": sum(v / k for k, v in p.items()),
            "p_no_collision": cdf.get(1, 0.0)}


def ecmp_no_collision(flows: int, paths: int) -> float:
    """P(no two flows share a path) = P!/(P-F)! / P^F (the birthday problem)."""
    _int(flows, "flows")
    _int(paths, "paths")
    if flows > paths:
        return 0.0
    p = 1.0
    for i in range(flows):
        p *= (paths - i) / paths
    return p


def ecmp_used_paths(flows: int, paths: int) -> float:
    """Expected number of distinct paths carrying at least one of ``flows`` hashed flows:
    P (1 - (1 - 1/P)^F). With F = P large, the fraction used tends to 1 - 1/e."""
    _int(flows, "flows")
    _int(paths, "paths")
    return paths * (1 - (1 - 1 / paths) ** flows)


def incast_fill_time(senders: int, rate: float, buffer_bytes: float, drain_rate: Optional[float] = None) -> float:
    """Seconds until ``buffer_bytes`` of queue fills when ``senders`` each send at ``rate`` bytes/s
    into one port draining at ``drain_rate`` (default ``rate``): buffer / (senders x rate - drain)."""
    _int(senders, "senders")
    rate = _pos(rate, "rate")
    drain = rate if drain_rate is None else _pos(drain_rate, "drain rate")
    excess = senders * rate - drain
    return float("inf") if excess <= 0 else _pos(buffer_bytes, "buffer", True) / excess


# ------------------------------------------------------------------ distance
def fiber_delay(km: float, group_index: Optional[float] = None) -> float:
    """One-way propagation delay in seconds over ``km`` of fibre: km x 1000 x n / c.
    The round trip is twice this."""
    n = data()["fiber"]["group_index"] if group_index is None else _pos(group_index, "group index")
    return _pos(km, "distance", True) * 1000 * n / C_VACUUM


def bdp_bytes(rate: float, rtt_s: float) -> float:
    """Bandwidth-delay product: bytes in flight needed to keep a link of ``rate`` bytes/s busy."""
    return _pos(rate, "rate", True) * _pos(rtt_s, "RTT", True)


def lossless_headroom(rate: float, one_way_s: float, mtu: int = 4096, response_s: float = 0.0) -> float:
    """Bytes a receiver must still be able to absorb after it asks the sender to stop (PFC pause)
    or, equivalently, the credit a credit-based link needs to run at full rate: the data in flight
    during one round trip plus the reaction time, plus one maximum-size packet on each end."""
    return _pos(rate, "rate", True) * (2 * _pos(one_way_s, "delay", True) + _pos(response_s, "response", True)) \
        + 2 * _int(mtu, "mtu")


# ------------------------------------------------ transport state and stragglers (chapter 7)
def rc_queue_pairs(ranks: int, per_node: int, qps_per_connection: int = 1,
                   transport: str = "rc") -> int:
    """Queue pairs one rank opens for an all-to-all over the network among ``ranks`` ranks,
    ``per_node`` of them on each node (peers on its own node are reached over the scale-up
    link, not the NIC). ``"rc"``: one reliable connection per remote rank (times
    ``qps_per_connection``); ``"xrc"``: one send QP per remote node, the receive side shared
    by the ranks of that node (XRC, IBTA annex A14)."""
    ranks, per_node = _int(ranks, "ranks"), _int(per_node, "ranks per node")
    q = _int(qps_per_connection, "QPs per connection")
    if ranks % per_node:
        raise NetworkError(f"{ranks} ranks do not fill nodes of {per_node}")
    if transport == "rc":
        return (ranks - per_node) * q
    if transport == "xrc":
        return (ranks // per_node - 1) * q
    raise NetworkError(f"unknown transport {transport!r} (rc or xrc)")


def expected_max_normal(n: int, steps: int = 8000) -> float:
    """E[max of n independent standard normal draws], by integrating
    x * n * phi(x) * Phi(x)^(n-1) over [-10, 10] (Simpson's rule). 0 for n = 1;
    about 1.42 for n = 8; it grows like sqrt(2 ln n), more slowly than that bound."""
    n = _int(n, "n")
    lo, hi = -10.0, 10.0
    h = (hi - lo) / steps

    def f(x):
        phi = math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
        big_phi = 0.5 * (1 + math.erf(x / math.sqrt(2)))
        return x * n * phi * big_phi ** (n - 1)

    total = f(lo) + f(hi)
    for i in range(1, steps):
        total += (4 if i % 2 else 2) * f(lo + i * h)
    return total * h / 3


def expected_max_exponential(n: int, mean: float = 1.0) -> float:
    """E[max of n independent exponential draws of the given mean] = mean * H_n
    (the n-th harmonic number): it grows like ln n."""
    n = _int(n, "n")
    return _pos(mean, "mean") * sum(1.0 / i for i in range(1, n + 1))


__all__ += ["rc_queue_pairs", "expected_max_normal", "expected_max_exponential"]


# ----------------------------------------------------------------------- CLI
_size_arg = cliargs.size


_pos_arg = cliargs.positive_number


_nonneg_arg = cliargs.nonneg_number


_int_arg = cliargs.positive


_DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1}


def _cmd_collective(args):
    from calculations import tables
    size = args.size
    note = ""
    if size is None:
        if not (getattr(args, "model", None) or getattr(args, "config", None)):
            raise NetworkError("give --size BYTES, or --model ID to all-reduce its gradients")
        from calculations import calc
        m = calc._model(args)
        size = m.params_total * _DTYPE_BYTES[args.dtype]
        note = f"{m.id}: {m.params_total:,} parameters x {_DTYPE_BYTES[args.dtype]} B ({args.dtype})"
    if args.nic:
        bw = gbps_to_bytes(nic(args.nic)["line_rate_gbps"])
    else:
        bw = gbps_to_bytes(args.nic_gbps)
    bw *= args.efficiency
    bw_intra = None
    if args.intra_gb_s:
        bw_intra = args.intra_gb_s * 1e9
    elif getattr(args, "hardware", None) or getattr(args, "hardware_config", None):
        from calculations import calc
        bw_intra = calc._hw(args).link_unidirectional
    if bw_intra is None and args.gpus_per_node > 1:
        from calculations import hardware
        bw_intra = hardware.get("h100").link_unidirectional
        note = (note + "; " if note else "") + "intra-node bandwidth: H100 NVLink one-way (use --hardware or --intra-gb-s)"
    algos = ["ring", "tree", "hierarchical"] if args.algo == "all" else [args.algo]
    op = args.op
    if op != "allreduce":
        algos = [algos[0] if algos[0] != "hierarchical" else "ring"]
    rows, raw = [], []
    for a in algos:
        if a == "hierarchical" and args.gpus_per_node < 2:
            continue
        r = collective(op, a, size, args.ranks, bw, args.alpha_us * 1e-6, args.gpus_per_node, bw_intra,
                       args.alpha_intra_us * 1e-6)
        raw.append(r.to_dict())
        rows.append({"op": r.op, "algorithm": r.algorithm, "ranks": r.ranks, "size": r.size_bytes, "steps": r.steps,
                     "latency_s": r.latency_s, "bandwidth_s": r.bandwidth_s, "time_s": r.time_s,
                     "dominant": r.dominant, "algbw": r.algbw, "busbw": r.busbw})
    cols = [("op", "op", "str"), ("algorithm", "algorithm", "str"), ("ranks", "ranks", "int"),
            ("size", "bytes", "bytes"), ("steps", "steps", "int"), ("latency_s", "alpha term", "sec"),
            ("bandwidth_s", "beta term", "sec"), ("time_s", "time", "sec"), ("dominant", "dominant", "str"),
            ("algbw", "algbw B/s", "si"), ("busbw", "busbw B/s", "si")]
    if args.format == "json":
        return tables.dumps({"note": note, "nic_bytes_per_s": bw, "intra_bytes_per_s": bw_intra, "results": raw})
    out = tables.render(rows, cols, args.format)
    if note and args.format in ("text", "md"):
        out = note + "\n" + out
    return out


def _cmd_fat_tree(args):
    from calculations import tables
    if args.rails:
        if args.endpoints % args.rails:
            raise NetworkError(f"{args.endpoints} endpoints do not split into {args.rails} rails")
        ro = rail_only(args.endpoints // args.rails, args.rails, args.radix)
        ft = ro["per_rail"]
        items = [("rails", "rails", args.rails, "int"), ("per_rail_endpoints", "endpoints per rail", ft.endpoints, "int"),
                 ("tiers", "tiers per rail", ft.tiers, "int"), ("switches", "switches", ro["switches"], "int"),
                 ("links", "links", ro["links"], "int"), ("switch_links", "switch-to-switch links", ro["switch_links"], "int"),
                 ("transceivers", "transceivers (all links optical)", ro["transceivers"], "int")]
        raw = {"rails": args.rails, "per_rail": ft.to_dict(), "switches": ro["switches"], "links": ro["links"],
               "switch_links": ro["switch_links"], "transceivers": ro["transceivers"]}
        return tables.render_kv(items, args.format, raw=raw, title=f"rail-only fabric, radix {args.radix}")
    ft = fat_tree(args.endpoints, args.radix, args.oversubscription, args.tiers)
    items = [("endpoints", "endpoints", ft.endpoints, "int"), ("capacity", "capacity at this shape", ft.capacity, "int"),
             ("tiers", "tiers", ft.tiers, "int"), ("leaf_down", "leaf ports down", ft.leaf_down, "int"),
             ("leaf_up", "leaf ports up", ft.leaf_up, "int"), ("oversubscription", "oversubscription", ft.oversubscription, "float"),
             ("leaves", "leaf switches", ft.leaves, "int"), ("spines", "spine switches", ft.spines, "int"),
             ("cores", "core switches", ft.cores, "int"), ("switches", "switches", ft.switches, "int"),
             ("host_links", "host links", ft.host_links, "int"), ("switch_links", "switch-to-switch links", ft.switch_links, "int"),
             ("links", "links", ft.links, "int"),
             ("transceivers", "transceivers (all links optical)", ft.transceivers(), "int"),
             ("transceivers_dac_hosts", "transceivers (copper host links)", ft.transceivers(False), "int")]
    raw = ft.to_dict()
    raw["transceivers_dac_hosts"] = ft.transceivers(False)
    return tables.render_kv(items, args.format, raw=raw, title=f"fat tree, radix {args.radix}")


def _cmd_networks(args):
    from calculations import tables
    rows = []
    for n in nics():
        h = n["host"]
        rows.append({"kind": "NIC", "id": n["id"], "name": n["name"], "gbps": n["line_rate_gbps"],
                     "gb_s": gbps_to_bytes(n["line_rate_gbps"]) / 1e9, "ports": "",
                     "host_gb_s": pcie_bytes_per_s(h["gt_s_per_lane"], h["lanes"], tuple(h["encoding"])) / 1e9,
                     "source": n["sources"][0]["url"]})
    for s in switches():
        rows.append({"kind": "switch", "id": s["id"], "name": s["name"], "gbps": s["port_gbps"],
                     "gb_s": gbps_to_bytes(s["port_gbps"]) / 1e9, "ports": s["radix"], "host_gb_s": None,
                     "source": s["sources"][0]["url"]})
    for lk in links():
        rows.append({"kind": "link", "id": lk["id"], "name": lk["name"], "gbps": lk["data_gbps"],
                     "gb_s": gbps_to_bytes(lk["data_gbps"]) / 1e9, "ports": "", "host_gb_s": None,
                     "source": lk["sources"][0]["url"]})
    if args.format == "json":
        return tables.dumps({"nics": nics(), "switches": switches(), "links": links()})
    cols = [("kind", "kind", "str"), ("id", "id", "str"), ("name", "name", "str"), ("gbps", "Gb/s per port", "float"),
            ("gb_s", "GB/s per port", "float"), ("ports", "ports", "str"), ("host_gb_s", "PCIe GB/s one-way", "float")]
    if args.format == "csv":
        cols.append(("source", "source", "str"))
    return tables.render(rows, cols, args.format)


def _cmd_link(args):
    from calculations import tables
    g = args.gbps
    items = [("gbps", "data rate Gb/s", g, "float"), ("bytes_per_s", "data rate B/s", gbps_to_bytes(g), "si"),
             ("lane_signal_gbps", f"wire rate per {args.lane_gbps:g}G PAM4 lane, Gb/s",
              lane_signal_rate(args.lane_gbps), "float"),
             ("packet_efficiency", f"payload fraction ({args.mtu} B MTU, {args.transport})",
              packet_efficiency(args.mtu, *((44, 38) if args.transport == "rocev2" else (26, 0))), "float"),
             ("goodput_bytes_per_s", "payload B/s",
              gbps_to_bytes(g) * packet_efficiency(args.mtu, *((44, 38) if args.transport == "rocev2" else (26, 0))), "si")]
    if args.km is not None:
        rtt = 2 * fiber_delay(args.km)
        items += [("rtt_s", f"fibre RTT over {args.km:g} km", rtt, "sec"),
                  ("bdp_bytes", "bandwidth-delay product B", bdp_bytes(gbps_to_bytes(g), rtt), "bytes")]
    return tables.render_kv(items, args.format, title=f"{g:g} Gb/s link")


def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
    s = sub.add_parser("collective", help="alpha-beta time of a collective (ring, tree, hierarchical)")
    common(s, model=True, hw=True)
    s.add_argument("--op", choices=("allreduce", "allgather", "reducescatter", "alltoall"), default="allreduce")
    s.add_argument("--algo", choices=("ring", "tree", "hierarchical", "all"), default="all")
    s.add_argument("--size", type=_size_arg, help="bytes (default: --model's parameters x --dtype bytes)")
    s.add_argument("--dtype", choices=tuple(_DTYPE_BYTES), default="bf16", help="gradient dtype with --model")
    s.add_argument("--ranks", "-n", type=_int_arg, required=True, help="total ranks (GPUs)")
    s.add_argument("--gpus-per-node", type=_int_arg, default=8)
    s.add_argument("--nic", help="NIC id from `networks` (sets the per-GPU network rate)")
    s.add_argument("--nic-gbps", type=_pos_arg, default=400.0, help="per-GPU network rate in Gb/s (default 400)")
    s.add_argument("--efficiency", type=_pos_arg, default=1.0, help="achievable fraction of the NIC rate")
    s.add_argument("--intra-gb-s", type=_pos_arg, help="intra-node one-way GB/s (default: --hardware link)")
    # defaults from NCCL's tuning table in data/networks.json, so the CLI and the book agree
    lat = data()["nccl"]["latency_model_us"]
    s.add_argument("--alpha-us", type=_nonneg_arg, default=lat["ring_simple_net_step"],
                   help=f"per-step network latency, us (default {lat['ring_simple_net_step']:g}, NCCL's ring/Simple)")
    s.add_argument("--alpha-intra-us", type=_nonneg_arg, default=lat["ring_simple_nvlink_step"],
                   help="per-step NVLink latency, us")
    s.set_defaults(func=_cmd_collective)

    s = sub.add_parser("fat-tree", help="switches, links and optics of a fat tree for N endpoints")
    common(s, model=False)
    s.add_argument("--endpoints", "-n", type=_int_arg, required=True, help="NIC ports to connect")
    s.add_argument("--radix", "-k", type=_int_arg, default=64)
    s.add_argument("--oversubscription", type=_pos_arg, default=1.0, help="leaf down:up ratio (default 1)")
    s.add_argument("--tiers", type=int, choices=(2, 3))
    s.add_argument("--rails", type=_int_arg, help="build a rail-only fabric with this many rails")
    s.set_defaults(func=_cmd_fat_tree)

    s = sub.add_parser("networks", help="NIC, switch and link registry (data/networks.json)")
    common(s, model=False)
    s.set_defaults(func=_cmd_networks)

    s = sub.add_parser("link", help="Gb/s to GB/s, PAM4 lane rate, packet efficiency, fibre RTT and BDP")
    common(s, model=False)
    s.add_argument("--gbps", type=_pos_arg, default=400.0)
    s.add_argument("--lane-gbps", type=_pos_arg, default=100.0)
    s.add_argument("--mtu", type=_int_arg, default=4096)
    s.add_argument("--transport", choices=("rocev2", "ib"), default="rocev2")
    s.add_argument("--km", type=_nonneg_arg, help="fibre distance for RTT and bandwidth-delay product")
    s.set_defaults(func=_cmd_link)
