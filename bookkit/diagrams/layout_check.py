"""Texts of a figure that overlap one another as drawn: a legend over an axis label, an arrow's
label over a box's, a translation longer than the room it was drawn for.

Read from the drawing itself: while a figure is written, every `Text` drawn (tick labels,
titles, legends, the vocabulary's `Labels`) is recorded with its extent on the page, after the
layout; two texts overlap when their extents share more than `SLACK` points both across and
down. Texts rotated by other than a multiple of 90 degrees are left out: their axis-aligned
extents overlap where their glyphs do not (slanted tick labels side by side).

Written by hand: matplotlib lays out texts but never reports one drawn over another.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

#: overlap, in points (the figures are drawn at 72 dpi), below which two texts only touch
SLACK = 1.5


@dataclass(frozen=True)
class DrawnText:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float


@contextmanager
def recording_texts():
    """Within it, every text drawn is appended to the list it yields (`DrawnText`)."""
    from matplotlib.text import Text
    drawn: list[DrawnText] = []
    original = Text.draw

    def draw(self, renderer):
        original(self, renderer)
        if not self.get_visible() or not self.get_text().strip():
            return
        if self.get_rotation() % 90:
            return
        box = self.get_window_extent(renderer)
        if box.width > 0 and box.height > 0:
            drawn.append(DrawnText(self.get_text(), box.x0, box.y0, box.x1, box.y1))
    Text.draw = draw
    try:
        yield drawn
    finally:
        Text.draw = original


def overlaps(drawn: list[DrawnText], slack: float = SLACK) -> list[tuple[str, str]]:
    """The pairs of texts whose extents share more than `slack` both across and down."""
    found = []
    ordered = sorted(drawn, key=lambda d: d.x0)
    for i, a in enumerate(ordered):
        for b in ordered[i + 1:]:
            if b.x0 >= a.x1 - slack:
                break           # sorted by left edge: no later text reaches back into `a`
            if min(a.y1, b.y1) - max(a.y0, b.y0) > slack and min(a.x1, b.x1) - b.x0 > slack:
                found.append((a.text, b.text))
    return found
