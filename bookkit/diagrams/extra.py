"""Additions to the vocabulary for the chapters' first diagrams (chapters 1, 2, 4, 5, 6, 11,
12), kept apart from the existing functions so that their signatures stay as they are.

- `widen(flow, w)`: a stack's boxes `w` wide, for layers whose label and note are long.
- `clear_under_text(ax)`: a text on a hatched fill gets a small patch of the fill's own colour
  behind it, so the hatch does not run through the letters. The contrast of such a text is
  the one the test suite already checks (ink on the fill), now also where the hatch was.
  Call it at the end of `draw`.
- `arrows_both_ways(ax, x0, x1, out_label, back_label)`: two arrows between two side-by-side
  boxes, one each way, each labelled on its own side (`draw_flow` puts an arrow's label at its
  middle, so two opposite arrows would print their labels on top of each other).
- `timeline(rows, bars)`: a Timeline from explicit bars (row, start, end, kind, label), for
  schedules that are not pipeline orders (a kernel launch stream, an agent's calls, a
  playback buffer); the times come from the caller's arithmetic.
"""
from __future__ import annotations

import dataclasses
import itertools

from bookkit.diagrams.flow import Flow
from bookkit.diagrams.timeline import Bar, Timeline


def widen(flow: Flow, w: float) -> Flow:
    """The same stack with every box `w` wide (its left edge kept)."""
    return Flow(tuple(dataclasses.replace(b, w=w) for b in flow.boxes), flow.arrows)


def arrows_both_ways(ax, x0: float, x1: float, out_label: str, back_label: str,
                     y_out: float = 1.2, y_back: float = 0.6, fontsize: float = 7) -> None:
    """An arrow x0 -> x1 at `y_out` labelled above it and one x1 -> x0 at `y_back` labelled
    below it (what goes out and what comes back between two boxes)."""
    from matplotlib.patches import FancyArrowPatch
    for y, (a, b), label, va in ((y_out, (x0, x1), out_label, "bottom"),
                                 (y_back, (x1, x0), back_label, "top")):
        ax.add_patch(FancyArrowPatch((a, y), (b, y), arrowstyle="-|>", mutation_scale=10,
                                     color="#333333", lw=1.0))
        ax.text((x0 + x1) / 2, y + (0.08 if va == "bottom" else -0.08), label,
                ha="center", va=va, fontsize=fontsize)


def clear_under_text(ax, pad: float = 2.5) -> int:
    """Put a patch of the fill's own colour behind each text drawn on a fill (gid
    `bkt<n>-on-<rrggbb>`, see draw.text_on), `pad` points wider on each side; returns how many
    texts were backed. A separate patch rather than the text's own bbox, so that the SVG's text
    group holds the text alone (the contrast test reads its colour from there). The patch is
    sized in points around the text's anchor (a text's size does not change with the axes'
    scale), so the pipeline's tight layout afterwards keeps it under its text."""
    from matplotlib.patches import Rectangle
    from matplotlib.transforms import ScaledTranslation
    fig = ax.figure
    # The figure's own renderer (the pipeline draws on an SVG canvas, which has no public
    # `get_renderer`): the extents it measures are those of the drawing.
    renderer = fig._get_renderer()
    n = 0
    from bookkit.diagrams.draw import Labels
    # a label of `Labels.each` is one Text moved from label to label: used before the next
    for text in itertools.chain(list(ax.texts),
                                *(labels.each(renderer) for labels in Labels.on(ax))):
        gid = text.get_gid() or ""
        if "-on-" not in gid or not text.get_text().strip():
            continue
        x, y = text.get_position()
        ax_px, ay_px = ax.transData.transform((x, y))
        bb = text.get_window_extent(renderer)
        inch = fig.dpi
        p = pad / 72
        # `add_artist`, not `add_patch`: like the text it backs, the patch does not widen the
        # data limits (matplotlib would work them out through the transform algebra of a
        # points-sized patch, ~1 ms each, to no effect: the diagrams set their limits)
        ax.add_artist(Rectangle(((bb.x0 - ax_px) / inch - p, (bb.y0 - ay_px) / inch - p / 2),
                                bb.width / inch + 2 * p, bb.height / inch + p,
                                transform=fig.dpi_scale_trans + ScaledTranslation(x, y, ax.transData),
                                facecolor="#" + gid.rsplit("-on-", 1)[1], edgecolor="none",
                                lw=0, zorder=max(text.get_zorder() - 0.5, 1.5)))
        n += 1
    return n


def timeline(rows: int, bars: list[tuple[int, float, float, str, str]]) -> Timeline:
    """bars: (row, start, end, kind, label); an end before its start is an error."""
    out = []
    for row, start, end, kind, label in bars:
        if end < start or not 0 <= row < rows:
            raise ValueError(f"bar {label!r} on row {row}: end {end} before start {start} "
                             f"or row outside 0..{rows - 1}")
        out.append(Bar(row, start, end, kind, label))
    return Timeline(rows, tuple(sorted(out, key=lambda b: (b.row, b.start))))


def draw_tiles(ax, tiles: list[tuple[int, int, int, int]], kinds: list, kind_names: dict,
               labels: list[str] | None = None, fontsize: float = 6) -> None:
    """A matrix cut into tiles (`blocks.tiles`: row0, col0, height, width), drawn to scale with
    row 0 at the top; tile i filled and hatched by kinds[i] (the vocabulary's FILLS), labelled
    labels[i] when given; a legend names each kind (colour never alone)."""
    from matplotlib.patches import Patch

    from bookkit.diagrams.draw import add_cells, fill_of, text_on
    if len(kinds) != len(tiles) or (labels is not None and len(labels) != len(tiles)):
        raise ValueError(f"{len(tiles)} tiles, {len(kinds)} kinds, "
                         f"{len(labels) if labels is not None else 0} labels: one each")
    ax.set_axis_off()
    ax.set_aspect("equal")
    # one collection per kind, not a patch per tile (`draw.add_cells`)
    cells: dict = {}
    for (r, c, h, w), kind in zip(tiles, kinds):
        cells.setdefault(fill_of(kind), []).append((c, -r - h, w, h))
    add_cells(ax, cells)
    for i, ((r, c, h, w), kind) in enumerate(zip(tiles, kinds)):
        fill, hatch = fill_of(kind)
        if labels and labels[i]:
            text_on(ax, c + w / 2, -r - h / 2, labels[i], fill, hatch, ha="center", va="center",
                    fontsize=fontsize)
    rows = max(r + h for r, _, h, _ in tiles)
    cols = max(c + w for _, c, _, w in tiles)
    ax.set_xlim(-cols * 0.02, cols * 1.02)
    ax.set_ylim(-rows * 1.02, rows * 0.02)
    if kind_names:      # several panels of one figure share one legend
        ax.legend(handles=[Patch(facecolor=fill_of(k)[0], hatch=fill_of(k)[1],
                                 edgecolor="#333333", label=v) for k, v in kind_names.items()],
                  fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                  ncol=len(kind_names), frameon=False)
