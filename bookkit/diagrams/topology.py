"""Topologies: nodes with positions and links with labels, and the ring all-reduce's steps.

Every shape here has a closed-form layout (a circle, a grid, layers), so positions are computed
directly instead of by a graph-layout engine: the same inputs always give the same picture, and
no extra dependency is needed. Coordinates are in abstract units; `draw` scales them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Node:
    id: str
    x: float
    y: float
    kind: str = "gpu"     # gpu, switch, host, ... (the caller's styles)
    label: str = ""


@dataclass(frozen=True)
class Link:
    a: str
    b: str
    label: str = ""       # e.g. a bandwidth, formatted by the caller
    kind: str = "link"    # nvlink, network, ... (drawn with different line styles)
    directed: bool = False


@dataclass(frozen=True)
class Group:
    """Nodes drawn inside one box (a server, a scale-up domain), its label under it."""
    label: str
    members: tuple[str, ...]
    kind: str = "server"


@dataclass(frozen=True)
class Topology:
    nodes: tuple[Node, ...]
    links: tuple[Link, ...]
    groups: tuple[Group, ...] = ()

    def neighbours(self, node_id: str) -> list[str]:
        return [l.b if l.a == node_id else l.a for l in self.links if node_id in (l.a, l.b)]

    def node(self, node_id: str) -> Node:
        return next(n for n in self.nodes if n.id == node_id)

    def count(self, kind: str) -> int:
        return sum(1 for n in self.nodes if n.kind == kind)

    def degree(self, node_id: str) -> int:
        return sum(1 for l in self.links if node_id in (l.a, l.b))


def ring(n: int, label: str = "", kind: str = "gpu", directed: bool = True,
         link_kind: str = "link") -> Topology:
    """n nodes on a circle (node 0 at the top, clockwise), each linked to the next."""
    if n < 2:
        raise ValueError(f"a ring needs at least 2 nodes (got {n})")
    nodes = tuple(Node(f"{kind}{i}", math.sin(2 * math.pi * i / n), math.cos(2 * math.pi * i / n),
                       kind, str(i)) for i in range(n))
    links = tuple(Link(f"{kind}{i}", f"{kind}{(i + 1) % n}", label, link_kind, directed)
                  for i in range(n))
    return Topology(nodes, links)


def torus2d(a: int, b: int, label: str = "") -> Topology:
    """An a x b torus: a grid whose rows and columns wrap around (wrap links marked `wrap`)."""
    if a < 2 or b < 2:
        raise ValueError(f"a torus needs at least 2 x 2 nodes (got {a} x {b})")
    nodes = tuple(Node(f"n{r}_{c}", c, -r, "gpu", f"{r},{c}") for r in range(a) for c in range(b))
    links = []
    for r in range(a):
        for c in range(b):
            right, down = (c + 1) % b, (r + 1) % a
            if not (b == 2 and c == 1):
                links.append(Link(f"n{r}_{c}", f"n{r}_{right}", label,
                                  "wrap" if right == 0 else "link"))
            if not (a == 2 and r == 1):
                links.append(Link(f"n{r}_{c}", f"n{down}_{c}", label,
                                  "wrap" if down == 0 else "link"))
    return Topology(nodes, tuple(links))


def torus3d(a: int, b: int, c: int, label: str = "", depth: tuple[float, float] = (0.45, 0.32)
            ) -> Topology:
    """An a x b x c torus (a TPU v4/v5p cube is 4 x 4 x 4): every chip linked to its two
    neighbours along each axis, the last of each row, column and pillar back to the first
    (kind `wrap`); drawn in an oblique projection, layer z shifted by `depth` per layer. A
    side of 2 has one link between its two chips, not two."""
    if min(a, b, c) < 2:
        raise ValueError(f"a 3D torus needs at least 2 chips along each axis (got {a}x{b}x{c})")
    dx, dy = depth
    nodes = tuple(Node(f"n{x}_{y}_{z}", x + dx * z, -y + dy * z, "gpu", "")
                  for z in range(c) for y in range(b) for x in range(a))
    links = []
    for z in range(c):
        for y in range(b):
            for x in range(a):
                here = f"n{x}_{y}_{z}"
                for size, nxt, there in ((a, (x + 1) % a, lambda v: f"n{v}_{y}_{z}"),
                                         (b, (y + 1) % b, lambda v: f"n{x}_{v}_{z}"),
                                         (c, (z + 1) % c, lambda v: f"n{x}_{y}_{v}")):
                    if size == 2 and nxt == 0:
                        continue
                    links.append(Link(here, there(nxt), label, "wrap" if nxt == 0 else "link"))
    return Topology(nodes, tuple(links))


def rail_optimised(servers: int, gpus: int, spines: int = 0, nvlink_label: str = "",
                   rail_label: str = "", leaf_label: str = "{i}") -> Topology:
    """Rail-optimised fabric: GPU i of every server on leaf switch i ("rail i"), so the
    same-numbered GPUs of all servers are one switch apart; each server's GPUs share its
    NVLink switch (kind `nvlink`); `spines` switches, if any, join every leaf (kind `spine`)."""
    if servers < 1 or gpus < 1 or spines < 0:
        raise ValueError(f"servers and gpus must be >= 1, spines >= 0 "
                         f"(got {servers}, {gpus}, {spines})")
    width = servers * (gpus + 1) - 1          # a GPU a unit, a gap between servers
    nodes, links, groups = [], [], []
    for s in range(servers):
        x0 = s * (gpus + 1)
        members = []
        nv = f"nv{s}"
        nodes.append(Node(nv, x0 + (gpus - 1) / 2, -0.08 * width, "switch"))
        for i in range(gpus):
            gid = f"g{s}_{i}"
            nodes.append(Node(gid, x0 + i, 0, "gpu", str(i)))
            links.append(Link(gid, nv, nvlink_label, "nvlink"))
            links.append(Link(gid, f"rail{i}", rail_label, "network"))
            members += [gid]
        groups.append(Group(str(s), tuple(members + [nv])))
    for i in range(gpus):
        nodes.append(Node(f"rail{i}", (i + 0.5) * width / gpus - 0.5, 0.3 * width, "edge",
                          leaf_label.format(i=i)))
    for j in range(spines):    # heights in proportion to the width: the picture is not flat
        nodes.append(Node(f"spine{j}", (j + 0.5) * width / spines - 0.5, 0.45 * width, "core"))
        links += [Link(f"rail{i}", f"spine{j}", "", "spine") for i in range(gpus)]
    return Topology(tuple(nodes), tuple(links), tuple(groups))


def scale_up_domains(domains: int, gpus: int, fabric_switches: int = 2, nvlink_label: str = "",
                     network_label: str = "") -> Topology:
    """Scale-up domains joined by a scale-out fabric: each domain's GPUs all linked to the
    domain's switch (NVLink, kind `nvlink`: memory semantics, hundreds of GB/s), and each GPU's
    NIC to one of the fabric's switches (kind `network`, GPU i to switch i mod
    `fabric_switches`): between two domains every byte takes the slower path."""
    if domains < 1 or gpus < 1 or fabric_switches < 1:
        raise ValueError(f"domains, gpus and fabric_switches must be >= 1 "
                         f"(got {domains}, {gpus}, {fabric_switches})")
    width = domains * (gpus + 1) - 1
    nodes, links, groups = [], [], []
    for d in range(domains):
        x0 = d * (gpus + 1)
        sw = f"dom{d}"
        nodes.append(Node(sw, x0 + (gpus - 1) / 2, -1.3, "switch"))
        members = [sw]
        for i in range(gpus):
            gid = f"g{d}_{i}"
            nodes.append(Node(gid, x0 + i, 0, "gpu", str(i)))
            links.append(Link(gid, sw, nvlink_label, "nvlink"))
            links.append(Link(gid, f"fab{i % fabric_switches}", network_label, "network"))
            members.append(gid)
        groups.append(Group(str(d), tuple(members), "domain"))
    for j in range(fabric_switches):
        nodes.append(Node(f"fab{j}", (j + 0.5) * width / fabric_switches - 0.5, 3.5, "core"))
    return Topology(tuple(nodes), tuple(links), tuple(groups))


def tree(depth: int, fanout: int) -> Topology:
    """A `fanout`-ary tree of `depth` levels below the root, leaves evenly spaced."""
    if depth < 1 or fanout < 1:
        raise ValueError("a tree needs depth >= 1 and fanout >= 1")
    leaves = fanout ** depth
    nodes, links = [], []
    for level in range(depth + 1):
        count = fanout ** level
        span = leaves / count
        for i in range(count):
            nodes.append(Node(f"t{level}_{i}", (i + 0.5) * span, -level,
                              "gpu" if level == depth else "switch"))
            if level:
                links.append(Link(f"t{level - 1}_{i // fanout}", f"t{level}_{i}"))
    return Topology(tuple(nodes), tuple(links))


def fat_tree(k: int, up_label: str = "", down_label: str = "", hosts: bool = True) -> Topology:
    """The three-tier k-ary fat tree (Clos) of Al-Fares et al.: (k/2)^2 core switches, k pods of
    k/2 aggregation and k/2 edge switches, k/2 hosts per edge switch: k^3/4 hosts at full
    bisection bandwidth."""
    if k < 2 or k % 2:
        raise ValueError(f"a fat tree needs an even k >= 2 (got {k})")
    h = k // 2
    width = k * h    # edge/aggregation switches in a row
    nodes, links = [], []
    core = h * h
    for c in range(core):
        nodes.append(Node(f"core{c}", (c + 0.5) * width / core, 3, "core"))
    for pod in range(k):
        for j in range(h):
            x = pod * h + j + 0.5
            nodes.append(Node(f"agg{pod}_{j}", x, 2, "agg"))
            nodes.append(Node(f"edge{pod}_{j}", x, 1, "edge"))
            for c in range(h):      # aggregation switch j reaches core switches j*h .. j*h+h-1
                links.append(Link(f"agg{pod}_{j}", f"core{j * h + c}", up_label, "core"))
            for e in range(h):
                links.append(Link(f"edge{pod}_{e}", f"agg{pod}_{j}", down_label, "pod"))
            if hosts:
                for t in range(h):
                    hid = f"host{pod}_{j}_{t}"
                    nodes.append(Node(hid, x - 0.5 + (t + 0.5) / h, 0, "host"))
                    links.append(Link(f"edge{pod}_{j}", hid, "", "host"))
    return Topology(tuple(nodes), tuple(links))


@dataclass(frozen=True)
class RingStep:
    phase: str                                  # "reduce-scatter" or "all-gather"
    index: int                                  # 0-based within the phase
    sends: tuple[tuple[int, int, int], ...]     # (from rank, to rank, chunk)


def ring_allreduce_steps(n: int) -> tuple[RingStep, ...]:
    """The 2(n-1) steps of a ring all-reduce over n ranks, the buffer cut into n chunks. In
    reduce-scatter step k, rank r sends chunk (r - k) mod n to rank r+1, which adds it to its
    own; after n-1 steps rank r holds the full sum of chunk (r + 1) mod n. All-gather step k
    then passes the finished chunk (r + 1 - k) mod n on. Each rank sends 2(n-1)/n of the
    buffer in all."""
    if n < 2:
        raise ValueError(f"a ring all-reduce needs at least 2 ranks (got {n})")
    steps = []
    for k in range(n - 1):
        steps.append(RingStep("reduce-scatter", k,
                              tuple((r, (r + 1) % n, (r - k) % n) for r in range(n))))
    for k in range(n - 1):
        steps.append(RingStep("all-gather", k,
                              tuple((r, (r + 1) % n, (r + 1 - k) % n) for r in range(n))))
    return tuple(steps)
