"""Draw the vocabulary's data with matplotlib: the one rendering path of the book's figures.

Conventions, so that every diagram reads in both site themes and without colour:
- Shapes that carry meaning have a light, coloured fill (`FILLS`, not grey, so the site's theme
  leaves them as drawn) *and* a hatch or line style of their own, and a label or legend says
  what each is: colour never carries meaning alone.
- Text on such a shape uses `INK_ON_FILL`, a near-black that is not a pure grey, so the theme
  does not lighten it: its contrast with the fill is the same on both themes (>= 4.5:1).
- Everything else (outlines, axes, text on the page) is black or grey and follows the theme.
- Each text drawn on a fill gets a `gid` naming that fill (`bkt<n>-on-<rrggbb>`), so the
  contrast test can read, from the SVG alone, which background each text sits on.
"""
from __future__ import annotations

import math

# Imported here, unlike the drawing functions' own imports: `Labels` is an `Artist`, and only
# figure scripts (drawn with matplotlib) import this module.
from matplotlib.artist import Artist
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from bookkit.diagrams.blocks import BlockTable, MemoryMap
from bookkit.diagrams.flow import Flow
from bookkit.diagrams.timeline import Timeline
from bookkit.diagrams.topology import RingStep, Topology

INK_ON_FILL = "#111114"
#: the smallest font a label is drawn at to fit its room (`text_on(fit=...)`), in points
MIN_FONT = 5.0
#: kind -> (fill, hatch); fills are light tints of the book's mid-tone data colours
FILLS = {
    "F": ("#a6c8ea", ""), "B": ("#f6b98a", "//"), "W": ("#a9dba3", ".."),
    "reduce-scatter": ("#a6c8ea", ""), "all-gather": ("#f6b98a", "//"),
    "gpu": ("#a6c8ea", ""), "switch": ("#d7c3e8", ""), "core": ("#d7c3e8", ""),
    "agg": ("#f6b98a", ""), "edge": ("#a9dba3", ""), "host": ("#a6c8ea", ""),
    0: ("#a6c8ea", ""), 1: ("#f6b98a", "//"), 2: ("#a9dba3", ".."), 3: ("#f2a7b5", "x"),
    4: ("#d7c3e8", "\\\\"), 5: ("#e8d8a0", "--"),
    "free": ("#ffffff", ""),
}
LINE_STYLES = {"link": "-", "nvlink": "-", "network": "--", "wrap": ":", "core": "-", "spine": "-.",
               "pod": "--", "host": ":"}


def fill_of(kind) -> tuple[str, str]:
    return FILLS.get(kind, FILLS[hash(kind) % 6 if not isinstance(kind, int) else kind % 6])


def text_on(ax, x, y, s, fill: str | None = None, hatch: str | None = None,
            fit: float | tuple[float, float] | None = None, **kw) -> None:
    """A text; on a fill, in the fill's ink and tagged with the fill for the contrast test.
    `fit`: the width, or (width, height), in data units, the text must stay within (a box's
    inside, the gap between two boxes): drawn smaller when it would not (`Labels`), never
    under `MIN_FONT`.
    `hatch`: the fill's hatch, when the caller knows it; on a plain fill ("") the label gets
    no background patch of its own (it would be the fill on the fill: an artist to lay out
    and write for nothing, ~100 of them in a grid). Drawn as `ax.text(x, y, s, **kw)` draws
    it, by the Axes' `Labels` (one artist for all its labels)."""
    gid = None
    bbox = kw.pop("bbox", None)
    if fill is not None and fill != "#ffffff":
        kw.setdefault("color", INK_ON_FILL)
        # numbered per figure, not per process: a worker draws many figures, in an order that
        # depends on scheduling, and the SVG must be the same bytes whichever it drew first
        fig = ax.figure
        n = getattr(fig, "_bookkit_text_ids", 0)
        fig._bookkit_text_ids = n + 1
        gid = f"bkt{n}-on-{fill.lstrip('#')}"
        # a plain patch of the fill behind the label: the hatch never runs through the text
        if hatch != "" and bbox is None:
            bbox = {"facecolor": fill, "edgecolor": "none", "pad": 1.0}
    Labels.of(ax, kw.get("zorder", 3)).add(x, y, s, gid, kw, bbox, fit)


class Labels(Artist):
    """The texts `text_on` puts on one Axes (at one z-order), drawn by one `Text` per style
    moved from label to label, instead of a `Text` artist each.

    A diagram's grid carries ~100 labels; as artists each was created (with its callback
    registry and transforms), laid out and drawn on its own: ~40 % of drawing the ring
    all-reduce. Drawing through a reused `Text` writes the same SVG and PDF for each label
    (`Text.draw`: the same layout, glyphs, bbox patch and group id); only the order among the
    Axes' other texts can differ (all labels are drawn where the first was added).
    `text_list()` gives their strings to the figure's texts."""

    def __init__(self, ax, zorder: float) -> None:
        super().__init__()
        self._ax = ax
        self.set_zorder(zorder)
        self._items: list[tuple] = []     # (x, y, text, gid, colour, style, bbox props, fit)
        self._styles: dict[str, dict] = {}      # style -> the Text's keywords
        self._texts: dict[str, Text] = {}       # style -> its Text
        self._bboxes: dict[tuple, object] = {}  # (style, bbox props but colour) -> patch

    @classmethod
    def of(cls, ax, zorder: float = 3) -> "Labels":
        """The Axes' labels artist at `zorder`, added to it on first use."""
        by_zorder = ax.__dict__.setdefault("_bookkit_labels", {})
        found = by_zorder.get(zorder)
        if found is None:
            found = by_zorder[zorder] = cls(ax, zorder)
            ax.add_artist(found)
            found.set_clip_on(False)     # as `ax.text` makes its texts
        return found

    @staticmethod
    def on(ax) -> list["Labels"]:
        """The Axes' labels artists."""
        return list(ax.__dict__.get("_bookkit_labels", {}).values())

    def add(self, x, y, s, gid, kw: dict, bbox: dict | None,
            fit: float | tuple[float, float] | None = None) -> None:
        style = repr(sorted((k, v) for k, v in kw.items() if k != "color"))
        self._styles.setdefault(style, {k: v for k, v in kw.items() if k != "color"})
        self._items.append((x, y, s, gid, kw.get("color"), style, bbox, fit))
        self.stale = True

    def _text(self, style: str) -> Text:
        text = self._texts.get(style)
        if text is None:    # made as `ax.text` makes one
            ax = self._ax
            text = Text(0, 0, "", **{"verticalalignment": "baseline",
                                      "horizontalalignment": "left",
                                      "transform": ax.transData, "clip_on": False,
                                      **self._styles[style]})
            if text.get_clip_path() is None:
                text.set_clip_path(ax.patch)
            ax._set_artist_props(text)
            self._texts[style] = text
        return text

    def each(self, renderer=None):
        """Each label as its `Text` (the same object, moved: use it before the next).

        A label with a `fit` width is measured where it is drawn, at the Axes' final size
        (after the figure's layout, which can scale the data units), and its font made
        smaller in proportion when it is wider than `fit`: a box's label stays inside the box
        and an arrow's between its boxes in every language, however long the translation."""
        for x, y, s, gid, color, style, bbox, fit in self._items:
            text = self._text(style)
            text.set_position((x, y))
            text.set_text(s)
            text.set_gid(gid)
            text.set_color(color if color is not None else "black")
            size = self._styles[style].get("fontsize")
            if size is not None:
                text.set_fontsize(size)
            if fit is not None and renderer is not None and str(s).strip():
                width, height = fit if isinstance(fit, tuple) else (fit, None)
                to_px = self._ax.transData.transform
                origin = to_px((0, 0))
                extent = text.get_window_extent(renderer)
                scale = abs(to_px((width, 0))[0] - origin[0]) / max(extent.width, 1e-9)
                if height is not None:
                    scale = min(scale, abs(to_px((0, height))[1] - origin[1])
                                / max(extent.height, 1e-9))
                if scale < 1:
                    text.set_fontsize(max(MIN_FONT, text.get_fontsize() * scale))
            if bbox is None:
                text._bbox_patch = None
            else:
                rest = repr(sorted((k, v) for k, v in bbox.items() if k != "facecolor"))
                patch = self._bboxes.get((style, rest))
                if patch is None:
                    text.set_bbox(bbox)
                    patch = self._bboxes[(style, rest)] = text._bbox_patch
                patch.set_facecolor(bbox.get("facecolor"))
                text._bbox_patch = patch
            yield text

    def text_list(self) -> list[str]:
        return [str(s) for _x, _y, s, *_ in self._items]

    def draw(self, renderer) -> None:
        if not self.get_visible():
            return
        for text in self.each(renderer):
            text.draw(renderer)
        self.stale = False

    def get_window_extent(self, renderer=None):
        boxes = [text.get_window_extent(renderer) for text in self.each(renderer)
                 if text.get_text()]
        return Bbox.union(boxes) if boxes else Bbox.null()


def add_cells(ax, cells: dict, lw: float = 0.5) -> None:
    """Rectangles grouped by (fill, hatch), {(fill, hatch): [(x, y, w, h), ...]}: one
    collection per group, not an artist per cell (a grid has ~100 cells; each patch is
    created, laid out and written on its own, ~1 ms each). The axes' limits are the caller's."""
    from matplotlib.collections import PolyCollection
    for (fill, hatch), boxes in cells.items():
        # the corners given directly: what a `PatchCollection` of `Rectangle`s draws (the same
        # closed paths), without building a patch and its transform per cell first
        corners = [((x, y), (x + w, y), (x + w, y + h), (x, y + h)) for x, y, w, h in boxes]
        ax.add_collection(PolyCollection(corners, closed=True, facecolor=fill, hatch=hatch,
                                         edgecolor="#333333", linewidth=lw), autolim=False)


def _bare(ax) -> None:
    ax.set_axis_off()
    ax.set_aspect("equal")


def draw_timeline(ax, tl: Timeline, row_names: list[str], kind_names: dict, time_label: str = "",
                  bar_height: float = 0.7, fontsize: float = 7) -> None:
    """Gantt rows, row 0 at the top; bars labelled (micro-batch number), filled and hatched by
    kind; a legend naming each kind."""
    from matplotlib.patches import Patch
    cells: dict = {}
    for bar in tl.bars:
        fill, hatch = fill_of(bar.kind if not bar.chunk else f"{bar.kind}{bar.chunk}")
        if bar.chunk:
            fill, hatch = fill_of(bar.chunk * 2 + (bar.kind == "B"))
        y = tl.rows - 1 - bar.row
        cells.setdefault((fill, hatch), []).append(
            (bar.start, y - bar_height / 2, bar.end - bar.start, bar_height))
        if bar.label:
            text_on(ax, (bar.start + bar.end) / 2, y, bar.label, fill, hatch, ha="center",
                    va="center", fontsize=fontsize)
    add_cells(ax, cells, lw=0.6)
    start = min(b.start for b in tl.bars)
    ax.set_xlim(start, start + tl.span)
    ax.set_ylim(-0.6, tl.rows - 0.4)
    ax.set_yticks(range(tl.rows))
    ax.set_yticklabels(list(reversed(row_names)), fontsize=8)
    ax.tick_params(axis="x", labelsize=8)
    if time_label:
        ax.set_xlabel(time_label, fontsize=9)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.tick_params(axis="y", length=0)
    handles = [Patch(facecolor=fill_of(k)[0], hatch=fill_of(k)[1], edgecolor="#333333", label=name)
               for k, name in kind_names.items()]
    ax.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.25),
              ncol=len(handles), frameon=False)


def draw_topology(ax, topo: Topology, node_size: float = 0.16, label_links: str = "first",
                  fontsize: float = 8, link_kinds: dict | None = None, wrap_bend: float = 0.0,
                  group_label: str = "{label}", legend_cols: int = 0) -> None:
    """Nodes as filled circles (GPUs, hosts) or squares (switches) with their label inside;
    links as lines whose style follows their kind, directed ones with an arrow head; link
    labels on `all` links, the `first` of each kind, or `none`. `wrap_bend` != 0 draws the
    wraparound links of a torus as arcs bent that much (a straight one would run over its
    row); each group (a server, a domain) is a box around its nodes, labelled
    `group_label.format(label=...)` under it."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch, Rectangle
    _bare(ax)
    where = {n.id: n for n in topo.nodes}
    for group in topo.groups:
        xs = [where[m].x for m in group.members]
        ys = [where[m].y for m in group.members]
        pad = node_size * 1.8
        ax.add_patch(FancyBboxPatch((min(xs) - pad, min(ys) - pad), max(xs) - min(xs) + 2 * pad,
                                    max(ys) - min(ys) + 2 * pad, boxstyle="round,pad=0,rounding_size=0.15",
                                    facecolor="none", edgecolor="#777777", lw=0.8, ls="--",
                                    zorder=0.5))
        ax.text((min(xs) + max(xs)) / 2, min(ys) - pad - 0.1, group_label.format(label=group.label),
                ha="center", va="top", fontsize=fontsize)
    labelled: set[str] = set()
    for link in topo.links:
        a, b = where[link.a], where[link.b]
        ls = LINE_STYLES.get(link.kind, "-")
        if link.kind == "wrap" and wrap_bend and not link.directed:
            ax.add_patch(FancyArrowPatch((a.x, a.y), (b.x, b.y), arrowstyle="-",
                                         connectionstyle=f"arc3,rad={wrap_bend}",
                                         color="#555555", lw=0.7, ls=ls, zorder=1))
        elif link.directed:
            dx, dy = b.x - a.x, b.y - a.y
            d = math.hypot(dx, dy) or 1
            sx, sy = a.x + dx / d * node_size * 1.15, a.y + dy / d * node_size * 1.15
            ex, ey = b.x - dx / d * node_size * 1.15, b.y - dy / d * node_size * 1.15
            ax.add_patch(FancyArrowPatch((sx, sy), (ex, ey), arrowstyle="-|>", mutation_scale=9,
                                         color="#333333", lw=1.0, ls=ls))
        else:
            ax.plot([a.x, b.x], [a.y, b.y], color="#555555", lw=0.8, ls=ls, zorder=1)
        if link.label and (label_links == "all" or (label_links == "first"
                                                    and link.kind not in labelled)):
            labelled.add(link.kind)
            mx, my = (a.x + b.x) / 2, (a.y + b.y) / 2
            r = math.hypot(mx, my) or 1
            ax.text(mx + mx / r * 0.12, my + my / r * 0.12, link.label,
                    ha="left" if mx > 0.05 else "right" if mx < -0.05 else "center",
                    va="bottom" if my > 0.05 else "top" if my < -0.05 else "center",
                    fontsize=fontsize - 1)
    for node in topo.nodes:
        fill, hatch = fill_of(node.kind)
        if node.kind in ("gpu", "host"):
            ax.add_patch(Circle((node.x, node.y), node_size, facecolor=fill, hatch=hatch,
                                edgecolor="#333333", lw=0.8, zorder=2))
        else:
            ax.add_patch(Rectangle((node.x - node_size, node.y - node_size * 0.7), 2 * node_size,
                                   1.4 * node_size, facecolor=fill, hatch=hatch,
                                   edgecolor="#333333", lw=0.8, zorder=2))
        if node.label:
            text_on(ax, node.x, node.y, node.label, fill, hatch, ha="center", va="center",
                    fontsize=fontsize, zorder=3)
    xs, ys = [n.x for n in topo.nodes], [n.y for n in topo.nodes]
    pad = 0.5 + (abs(wrap_bend) if wrap_bend else 0)
    ax.set_xlim(min(xs) - pad, max(xs) + pad)
    # room under the lowest group for its label
    ax.set_ylim(min(ys) - pad - (node_size * 1.8 + 0.45 if topo.groups else 0), max(ys) + pad)
    if link_kinds:
        ax.legend(handles=[Line2D([], [], color="#555555", ls=LINE_STYLES.get(k, "-"), label=v)
                           for k, v in link_kinds.items()],
                  fontsize=fontsize, loc="upper center" if topo.groups else "lower center",
                  bbox_to_anchor=(0.5, 0.0) if topo.groups else (0.5, -0.12),
                  ncol=legend_cols or len(link_kinds), frameon=False)


def draw_ring_steps(ax, steps: tuple[RingStep, ...], n: int, phase_names: dict,
                    step_label: str, rank_label: str, fontsize: float = 7,
                    legend_ax=None) -> None:
    """The ring all-reduce as a grid: one row per step, one column per rank, the cell naming the
    chunk that rank sends in that step; the two phases filled and hatched differently."""
    from matplotlib.patches import Patch
    cells: dict = {}
    for row, step in enumerate(steps):
        fill, hatch = fill_of(step.phase)
        y = len(steps) - 1 - row
        for src, _dst, chunk in step.sends:
            cells.setdefault((fill, hatch), []).append((src, y, 1, 1))
            text_on(ax, src + 0.5, y + 0.5, f"c{chunk}", fill, hatch, ha="center", va="center",
                    fontsize=fontsize)
    add_cells(ax, cells)
    ax.set_xlim(0, n)
    ax.set_ylim(0, len(steps))
    ax.set_xticks([i + 0.5 for i in range(n)])
    ax.set_xticklabels([str(i) for i in range(n)], fontsize=8)
    ax.set_yticks([len(steps) - 0.5 - i for i in range(len(steps))])
    ax.set_yticklabels([str(i + 1) for i in range(len(steps))], fontsize=7)
    ax.set_xlabel(rank_label, fontsize=9)
    ax.set_ylabel(step_label, fontsize=9)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    (legend_ax or ax).legend(
        handles=[Patch(facecolor=fill_of(k)[0], hatch=fill_of(k)[1], edgecolor="#333333",
                       label=v) for k, v in phase_names.items()],
        fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 0.02) if legend_ax else (0.5, -0.1),
        ncol=1 if legend_ax else 2, frameon=False)


def draw_block_table(ax, bt: BlockTable, seq_names: list[str], pool_label: str,
                     table_label: str, columns: int = 8, fontsize: float = 7) -> None:
    """Left: each sequence's block table (logical page -> physical page); right: the page pool,
    each used page filled and hatched by its sequence and labelled `s.j` (sequence, page)."""
    _bare(ax)
    cells: dict = {}
    owners = bt.owner()
    where = {page: (s, j) for s, table in enumerate(bt.tables) for j, page in enumerate(table)}
    x0 = max(len(t) for t in bt.tables) + 3.5
    for s, table in enumerate(bt.tables):
        fill, hatch = fill_of(s)
        y = -s * 1.2
        ax.text(-0.2, y + 0.5, seq_names[s], ha="right", va="center", fontsize=fontsize + 1)
        for j, page in enumerate(table):
            cells.setdefault((fill, hatch), []).append((j, y, 1, 1))
            text_on(ax, j + 0.5, y + 0.5, str(page), fill, hatch, ha="center", va="center",
                    fontsize=fontsize)
    ax.text(0, 1.4, table_label, ha="left", va="center", fontsize=fontsize + 1)
    rows = math.ceil(bt.pool_pages / columns)
    for page in range(bt.pool_pages):
        r, c = divmod(page, columns)
        x, y = x0 + c, -r * 1.0 - 0.0
        s = owners[page]
        fill, hatch = fill_of("free" if s is None else s)
        cells.setdefault((fill, hatch), []).append((x, y, 1, 1))
        text_on(ax, x + 0.5, y + 0.62, str(page), fill, hatch, ha="center", va="center",
                fontsize=fontsize - 1.5)
        if s is not None:
            text_on(ax, x + 0.5, y + 0.25, f"{where[page][0] + 1}.{where[page][1]}", fill,
                    hatch, ha="center", va="center", fontsize=fontsize - 1.5)
    add_cells(ax, cells)
    ax.text(x0, 1.4, pool_label, ha="left", va="center", fontsize=fontsize + 1)
    ax.set_xlim(-2.2, x0 + columns + 0.3)
    ax.set_ylim(min(-rows + 0.0, -(len(bt.tables) - 1) * 1.2) - 0.3, 2.0)


def draw_memory_map(ax, mm: MemoryMap, labels: list[str], free_label: str, width: float = 1.0,
                    fontsize: float = 8) -> None:
    """One column to scale: segments from the bottom, each filled and hatched, its label at
    its side (a thin segment's label would not fit inside)."""
    from matplotlib.patches import Rectangle
    ax.set_axis_off()
    for k, (seg, label) in enumerate(zip(mm.segments, labels)):
        fill, hatch = fill_of(k)
        ax.add_patch(Rectangle((0, seg.start), width, seg.size, facecolor=fill, hatch=hatch,
                               edgecolor="#333333", lw=0.6))
        ax.text(width * 1.08, seg.start + seg.size / 2, label, va="center", fontsize=fontsize)
    used = sum(s.size for s in mm.segments)
    ax.add_patch(Rectangle((0, used), width, mm.free, facecolor="#ffffff", edgecolor="#333333",
                           lw=0.6, ls="--"))
    ax.text(width * 1.08, used + mm.free / 2, free_label, va="center", fontsize=fontsize)
    ax.set_xlim(-0.1, width * 3.2)
    ax.set_ylim(0, mm.capacity)


def draw_flow(ax, flow: Flow, fontsize: float = 8) -> None:
    """Boxes (label, and a note under it) and arrows between box edges, labelled beside."""
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    _bare(ax)
    for k, box in enumerate(flow.boxes):
        fill, hatch = fill_of(k)
        ax.add_patch(FancyBboxPatch((box.x, box.y), box.w, box.h, boxstyle="round,pad=0.02",
                                    facecolor=fill, hatch=hatch, edgecolor="#333333", lw=0.8))
        # inside the box, whatever the language's words (`fit`: drawn smaller if need be)
        inside = box.w * 0.92
        if box.note:    # the label above the middle, the note (of any number of lines) below
            text_on(ax, box.x + box.w / 2, box.y + box.h * 0.54, box.label, fill, hatch,
                    fit=(inside, box.h * 0.4), ha="center", va="bottom",
                    fontsize=fontsize + 1)
            text_on(ax, box.x + box.w / 2, box.y + box.h * 0.46, box.note, fill, hatch,
                    fit=(inside, box.h * 0.4), ha="center", va="top", fontsize=fontsize - 1)
        else:
            text_on(ax, box.x + box.w / 2, box.y + box.h * 0.5, box.label, fill, hatch,
                    fit=(inside, box.h * 0.85), ha="center", va="center",
                    fontsize=fontsize + 1)
    for arrow in flow.arrows:
        a, b = flow.box(arrow.a), flow.box(arrow.b)
        if abs(a.y - b.y) > abs(a.x - b.x):   # vertical
            top, bottom = (a, b) if a.y > b.y else (b, a)
            x = a.x + a.w * (0.35 if a.y > b.y else 0.65)
            start = (x, a.y if a is top else a.y + a.h)
            end = (x, b.y + b.h if b is bottom else b.y)
            lx, ly, ha = x + 0.08, (start[1] + end[1]) / 2, "left"
            if a.y < b.y:
                lx, ha = x - 0.08, "right"
        else:
            start = (a.x + a.w, a.y + a.h / 2) if a.x < b.x else (a.x, a.y + a.h / 2)
            end = (b.x, b.y + b.h / 2) if a.x < b.x else (b.x + b.w, b.y + b.h / 2)
            lx, ly, ha = (start[0] + end[0]) / 2, start[1] + 0.25, "center"
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=10,
                                     color="#333333", lw=1.0))
        if arrow.label:
            # a label over a horizontal arrow stays between the two boxes, beside their labels
            gap = abs(end[0] - start[0]) * 0.92 if ha == "center" else None
            text_on(ax, lx, ly, arrow.label, fit=gap, ha=ha, va="center",
                    fontsize=fontsize - 0.5)
    xs = [b.x for b in flow.boxes] + [b.x + b.w for b in flow.boxes]
    ys = [b.y for b in flow.boxes] + [b.y + b.h for b in flow.boxes]
    ax.set_xlim(min(xs) - 1.6, max(xs) + 1.6)
    ax.set_ylim(min(ys) - 0.2, max(ys) + 0.2)
