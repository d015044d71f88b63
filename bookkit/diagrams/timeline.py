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


def pipeline_zero_bubble(stages: int, micro_batches: int, fwd: float = 1.0, bwd_input: float = 1.0,
                         bwd_weight: float = 1.0) -> Timeline:
    """ZB-H1 (Qi et al. 2023, "Zero Bubble Pipeline Parallelism"): the backward split into B,
    the input gradient the previous stage waits for, and W, the weight gradient nobody waits
    for. Each stage runs F and B in 1F1B's order (p-s-1 warm-up forwards), and a W, which
    needs only its own B, wherever the next F or B is not ready yet; stage s keeps at most s W
    waiting (none on the first stage: its peak memory is 1F1B's). The W fill the bubbles of
    the warm-up and the drain. The times are computed from the dependencies (F after the
    previous stage's F, B after its own F and the next stage's B, W after its own B), event
    by event. With m >= p and equal times the idle time per stage is the paper's
    (p-1)(F+B-W) (`zero_bubble_formula`), against 1F1B's (p-1)(F+B+W): a third of it."""
    _check(stages, micro_batches)
    p, m = stages, micro_batches
    orders = []
    for s in range(p):
        warm = min(p - s - 1, m)
        order = [("F", s, i, 0) for i in range(warm)]
        f = warm
        for b in range(m):
            if f < m:
                order.append(("F", s, f, 0))
                f += 1
            order.append(("B", s, b, 0))
        orders.append(order)
    times = {"F": fwd, "B": bwd_input, "W": bwd_weight}
    end: dict[tuple, float] = {}
    pos, free = [0] * p, [0.0] * p
    pending: list[list[int]] = [[] for _ in range(p)]    # micro-batches whose W is due
    bars = []

    def deps(op):
        kind, s, i, _c = op
        if kind == "F":
            return [("F", s - 1, i, 0)] if s > 0 else []
        return [("F", s, i, 0)] + ([("B", s + 1, i, 0)] if s < p - 1 else [])

    def run(d, op, start):
        end[op] = free[d] = start + times[op[0]]
        bars.append(Bar(d, start, end[op], op[0], str(op[2] + 1)))

    # Event by event: of the devices free first, the first that can act does. Its next F/B
    # is ready when every dependency has ended by then; a dependency not yet run ends later
    # (the other devices are free no earlier), so the device fills the wait with a due W, or
    # waits until a dependency ends or another device's next event. Written by hand: no
    # scheduling library states ZB-H1's rule.
    def step(d) -> bool:
        t = free[d]
        if pos[d] < len(orders[d]):
            op = orders[d][pos[d]]
            need = deps(op)
            # Stage d puts off at most d W: the last stages, whose B are on the critical path,
            # send them back first; the first stage, which holds the most activations (p
            # micro-batches, as in 1F1B), puts off none, so the peak memory stays 1F1B's.
            if len(pending[d]) > d:
                run(d, ("W", d, pending[d].pop(0), 0), t)
                return True
            if all(x in end and end[x] <= t + 1e-12 for x in need):
                run(d, op, t)
                pos[d] += 1
                if op[0] == "B":
                    pending[d].append(op[2])
                return True
        if pending[d]:
            run(d, ("W", d, pending[d].pop(0), 0), t)
            return True
        known = [end[x] for x in need if x in end and end[x] > t + 1e-12]
        later = [free[x] for x in range(p) if x != d and free[x] > t + 1e-12]
        if known or later:
            free[d] = min(known + later)
            return True
        return False       # its dependency runs on a device free at the same time

    while True:
        busy = sorted((x for x in range(p) if pos[x] < len(orders[x]) or pending[x]),
                      key=lambda x: (free[x], x))
        if not busy:
            break
        if not any(step(d) for d in busy):
            raise ValueError("schedule deadlocks: an operation waits for one ordered after it")
    return Timeline(p, tuple(sorted(bars, key=lambda b: (b.row, b.start))))

def zero_bubble_formula(stages: int, micro_batches: int, fwd: float = 1.0,
                        bwd_input: float = 1.0, bwd_weight: float = 1.0) -> float:
    """The paper's bubble fraction of ZB-H1: (p-1)(F+B-W) idle per stage over a span of
    m(F+B+W) + (p-1)(F+B-W)."""
    idle = (stages - 1) * (fwd + bwd_input - bwd_weight)
    return idle / (micro_batches * (fwd + bwd_input + bwd_weight) + idle)
