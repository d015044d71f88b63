"""Timelines: bars on rows (one row per device or stream), e.g. pipeline-parallel schedules.

A schedule is computed, not typed: each device runs its operations in a given order, and an
operation starts when its device is free and its inputs are ready (a list scheduler). The
orders are those of the published schedules (GPipe, 1F1B, Megatron's interleaved 1F1B); the
times follow from the dependencies, so the bubbles are where the arithmetic puts them.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bar:
    row: int          # device / stream index, 0 = top
    start: float
    end: float
    kind: str         # "F" forward, "B" backward, or any key of the caller's styles
    label: str = ""   # drawn inside the bar (micro-batch number)
    chunk: int = 0    # model chunk (interleaved schedules)


@dataclass(frozen=True)
class Timeline:
    rows: int
    bars: tuple[Bar, ...]

    @property
    def span(self) -> float:
        return max(b.end for b in self.bars) - min(b.start for b in self.bars)

    def busy(self, row: int) -> float:
        return sum(b.end - b.start for b in self.bars if b.row == row)

    @property
    def bubble_fraction(self) -> float:
        """Idle share of the rows' time over the whole span (every row is idle equally long
        in the pipeline schedules)."""
        total = self.rows * self.span
        return 1 - sum(self.busy(r) for r in range(self.rows)) / total


def _simulate(orders: list[list[tuple]], duration, deps) -> Timeline:
    """orders[d]: device d's operations in order, each (kind, virtual_stage, micro, chunk).
    duration(op) -> time; deps(op) -> ops that must end first. Raises on a deadlock (an order
    that waits for itself), which would otherwise loop forever."""
    end: dict[tuple, float] = {}
    pos = [0] * len(orders)
    free = [0.0] * len(orders)
    bars = []
    remaining = sum(len(o) for o in orders)
    while remaining:
        progressed = False
        for d, order in enumerate(orders):
            while pos[d] < len(order):
                op = order[pos[d]]
                need = deps(op)
                if any(x not in end for x in need):
                    break
                start = max([free[d], *(end[x] for x in need)])
                end[op] = free[d] = start + duration(op)
                kind, _vs, micro, chunk = op
                bars.append(Bar(d, start, end[op], kind, str(micro + 1), chunk))
                pos[d] += 1
                remaining -= 1
                progressed = True
        if not progressed:
            raise ValueError("schedule deadlocks: an operation waits for one ordered after it")
    return Timeline(len(orders), tuple(sorted(bars, key=lambda b: (b.row, b.start))))


def _check(stages: int, micro_batches: int) -> None:
    if stages < 1 or micro_batches < 1:
        raise ValueError(f"stages and micro_batches must be >= 1 (got {stages}, {micro_batches})")


def _pipeline(stages, micro_batches, orders, fwd, bwd, virtual=1) -> Timeline:
    last = stages * virtual - 1

    def deps(op):
        kind, vs, i, _c = op
        if kind == "F":
            return [("F", vs - 1, i, (vs - 1) // stages)] if vs > 0 else []
        own = [("F", vs, i, vs // stages)]
        return own if vs == last else own + [("B", vs + 1, i, (vs + 1) // stages)]

    return _simulate(orders, lambda op: (fwd if op[0] == "F" else bwd) / virtual, deps)


def pipeline_gpipe(stages: int, micro_batches: int, fwd: float = 1.0, bwd: float = 2.0) -> Timeline:
    """All forwards, then all backwards (GPipe)."""
    _check(stages, micro_batches)
    orders = [[("F", s, i, 0) for i in range(micro_batches)]
              + [("B", s, i, 0) for i in range(micro_batches)] for s in range(stages)]
    return _pipeline(stages, micro_batches, orders, fwd, bwd)


def pipeline_1f1b(stages: int, micro_batches: int, fwd: float = 1.0, bwd: float = 2.0) -> Timeline:
    """1F1B (PipeDream-flush): stage s runs p-s-1 warm-up forwards, then alternates one forward
    and one backward, then drains the backwards. Same bubble as GPipe, (p-1)/(m+p-1), with at
    most p micro-batches' activations held."""
    _check(stages, micro_batches)
    orders = []
    for s in range(stages):
        warm = min(stages - s - 1, micro_batches)
        order = [("F", s, i, 0) for i in range(warm)]
        f, b = warm, 0
        while b < micro_batches:
            if f < micro_batches:
                order.append(("F", s, f, 0))
                f += 1
            order.append(("B", s, b, 0))
            b += 1
        orders.append(order)
    return _pipeline(stages, micro_batches, orders, fwd, bwd)


def pipeline_interleaved(stages: int, micro_batches: int, chunks: int,
                         fwd: float = 1.0, bwd: float = 2.0) -> Timeline:
    """Megatron's interleaved 1F1B: each device holds `chunks` model chunks (virtual stage
    c*p + d on device d), each 1/v of the work; micro-batches go through in groups of p. The
    bubble shrinks v-fold: ((p-1)/v) / (m + (p-1)/v). Needs m to be a multiple of p."""
    _check(stages, micro_batches)
    if chunks < 1 or micro_batches % stages:
        raise ValueError(f"interleaving needs chunks >= 1 and micro_batches ({micro_batches}) "
                         f"a multiple of stages ({stages})")
    p, v, m = stages, chunks, micro_batches
    total = m * v

    def nth(k: int, forward: bool) -> tuple[int, int]:
        group = k % (p * v)
        chunk = group // p if forward else v - 1 - group // p
        return chunk, (k // (p * v)) * p + group % p

    orders = []
    for d in range(p):
        warm = min((p - d - 1) * 2 + (v - 1) * p, total)
        order = []
        f = b = 0
        for _ in range(warm):
            c, i = nth(f, True)
            order.append(("F", c * p + d, i, c))
            f += 1
        while b < total:
            if f < total:
                c, i = nth(f, True)
                order.append(("F", c * p + d, i, c))
                f += 1
            c, i = nth(b, False)
            order.append(("B", c * p + d, i, c))
            b += 1
        orders.append(order)
    return _pipeline(p, m, orders, fwd, bwd, virtual=v)
