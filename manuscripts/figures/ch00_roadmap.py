"""The book's roadmap (@sec-preface-reading): the `chapter_count` chapters in three rows, demand
(what a model and its workload ask for), supply (chips, supernodes, networks) and the systems
that match the two, with an arrow where a chapter builds on another's derivations (the
reading order the preface recommends; the arrows follow the chapters' own cross-references)."""
from bookkit.diagrams.flow import Box
from bookkit.diagrams.extra import clear_under_text

SIZE = (6.4, 3.1)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("chapter_count",)

ROWS = ((1, 2, 3), (4, 5, 6, 7), (8, 9, 10, 11, 12))
# (from, to): a chapter that the later one's derivations start from
EDGES = ((1, 2), (2, 3), (1, 4), (3, 4), (4, 5), (4, 6), (6, 7), (3, 8), (5, 8),
         (8, 9), (6, 9), (9, 10), (7, 10), (10, 11), (3, 11), (8, 12))
W, H, DX, DY = 2.3, 1.0, 2.6, 1.8
MARGIN = 2.6      # room on the left for the rows' names


def boxes(t):
    out = {}
    for r, row in enumerate(ROWS):
        x0 = (max(len(x) for x in ROWS) - len(row)) * DX / 2
        for k, n in enumerate(row):
            out[n] = Box(f"c{n}", x0 + k * DX, -r * DY, W, H,
                         t["chapter"].format(n=t.num(n, "int")), t[f"c{n}"])
    return out


def _edge_point(b, tx, ty):
    """Where the line from the box's centre towards (tx, ty) leaves the box."""
    cx, cy = b.x + b.w / 2, b.y + b.h / 2
    dx, dy = tx - cx, ty - cy
    s = min((b.w / 2) / abs(dx) if dx else float("inf"), (b.h / 2) / abs(dy) if dy else float("inf"))
    return cx + dx * s, cy + dy * s


def draw(fig, t):
    # boxes drawn here rather than by draw_flow, which fills by position in the stack: here
    # the fill (and its hatch) says which row, demand, supply or systems, a chapter is in
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    from bookkit.diagrams.draw import fill_of, text_on
    bx = boxes(t)
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_aspect("equal")
    for r, row in enumerate(ROWS):
        fill, hatch = fill_of(r)
        for n in row:
            b = bx[n]
            ax.add_patch(FancyBboxPatch((b.x, b.y), b.w, b.h, boxstyle="round,pad=0.02",
                                        facecolor=fill, hatch=hatch, edgecolor="#333333", lw=0.8))
            text_on(ax, b.x + b.w / 2, b.y + b.h * 0.66, b.label, fill, ha="center",
                    va="center", fontsize=7)
            text_on(ax, b.x + b.w / 2, b.y + b.h * 0.3, b.note, fill, ha="center",
                    va="center", fontsize=5.5)
        text_on(ax, -0.35, -r * DY + H / 2, t[f"row{r}"], None, ha="right", va="center",
                fontsize=6.5, style="italic")
    for a, b in EDGES:
        A, B = bx[a], bx[b]
        ac, bc = (A.x + A.w / 2, A.y + A.h / 2), (B.x + B.w / 2, B.y + B.h / 2)
        skip = A.y == B.y and abs(B.x - A.x) > DX * 1.5
        start, end = _edge_point(A, *bc), _edge_point(B, *ac)
        if skip:    # over the box between them: leave and enter through the top edge
            start, end = (ac[0], A.y + A.h), (bc[0], B.y + B.h)
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=8,
                                     color="#333333", lw=0.8, zorder=0.5,
                                     connectionstyle=f"arc3,rad={-0.3 if skip else 0}"))
    width = max(len(x) for x in ROWS) * DX - (DX - W)
    ax.set_xlim(-MARGIN, width + 0.2)
    ax.set_ylim(-(len(ROWS) - 1) * DY - 0.2, H + 0.2)
    ax.set_title(t["title"].format(n=t.num(len(bx), "int", name="chapter_count")), fontsize=9)
    clear_under_text(ax)


def describe(t):
    bx = boxes(t)
    v = {"n": t.num(len(bx), "int", name="chapter_count"),
         "edges": t["and"].join(f"{bx[a].label} → {bx[b].label}" for a, b in EDGES)}
    for r, row in enumerate(ROWS):
        v[f"row{r}"] = t[f"row{r}"].replace("\n", t["joiner"])
        v[f"c{r}"] = t["and"].join(t["item"].format(chapter=bx[n].label, topic=bx[n].note)
                                   for n in row)
    return t["alt"].format(**v)
