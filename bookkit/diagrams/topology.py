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
class Topology:
    nodes: tuple[Node, ...]
    links: tuple[Link, ...]

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
