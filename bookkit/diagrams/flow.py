"""Stacks and flows: boxes in a column (or a row) with arrows between them labelled with what
moves and how fast (HBM -> DRAM -> SSD -> network, a request's path, a serving stack)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Box:
    id: str
    x: float
    y: float
    w: float
    h: float
    label: str
    note: str = ""     # second line, e.g. a capacity


@dataclass(frozen=True)
class Arrow:
    a: str
    b: str
    label: str = ""


@dataclass(frozen=True)
class Flow:
    boxes: tuple[Box, ...]
    arrows: tuple[Arrow, ...]

    def box(self, box_id: str) -> Box:
        return next(b for b in self.boxes if b.id == box_id)


def stack_flow(items: list[tuple[str, str, str]], arrows: list[tuple[str, str, str]],
               horizontal: bool = False, gap: float = 0.6, width: float = 0.0) -> Flow:
    """items: (id, label, note) from top to bottom (left to right when `horizontal`); arrows:
    (from id, to id, label). Boxes are 1 unit high, `width` wide (default 3 in a column, 2.4
    in a row), with `gap` between them."""
    ids = [i for i, *_ in items]
    for a, b, _ in arrows:
        if a not in ids or b not in ids:
            raise ValueError(f"arrow {a} -> {b} names a box that is not in the stack")
    boxes = []
    for k, (bid, label, note) in enumerate(items):
        if horizontal:
            w = width or 2.4
            boxes.append(Box(bid, k * (w + gap), 0, w, 1, label, note))
        else:
            boxes.append(Box(bid, 0, -k * (1 + gap), width or 3, 1, label, note))
    return Flow(tuple(boxes), tuple(Arrow(*a) for a in arrows))
