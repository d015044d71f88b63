"""Double buffering (@sec-accelerators, the double-buffering paragraph): the copy of tile k+1
from HBM into shared memory overlaps the compute on tile k. Top: copy then compute, one after
the other; bottom: overlapped, span (n+1) instead of 2n slots when copy and compute take as
long (L = C), tending to the chapter's `db_speedup_max`; times from
`kernels.overlap_time`."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import kernels

SIZE = (6.4, 2.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('tile_bytes', 'stages_fit', 'db_speedup_max')
N = 6                      # tiles drawn: few enough to read each bar
TILE_BYTES = 128 * 64 * 2  # the chapter's tile_bytes: one 128x64 BF16 operand tile


def schedule():
    serial = [(0, 2 * k, 2 * k + 1, "W", str(k + 1)) for k in range(N)]
    serial += [(1, 2 * k + 1, 2 * k + 2, "F", str(k + 1)) for k in range(N)]
    over = [(2, k, k + 1, "W", str(k + 1)) for k in range(N)]
    over += [(3, k + 1, k + 2, "F", str(k + 1)) for k in range(N)]
    tl = timeline(4, serial + over)
    model = kernels.overlap_time(N, N, N)    # copy and compute of N tiles in N pieces
    assert max(b.end for b in tl.bars if b.row < 2) == model["serial_s"]
    assert max(b.end for b in tl.bars if b.row >= 2) == model["overlapped_s"]
    return tl, model


def numbers(t):
    _, model = schedule()
    return {
        "n": t.num(N, "int", name="tile_demo_n"),
        "tile": t.num(TILE_BYTES, "si unit=KiB digits=0", name="tile_bytes"),
        "stages": t.num(kernels.H100_SMEM_PER_SM // TILE_BYTES, "int", name="stages_fit",
                        expr="smem_per_sm // tile_bytes"),
        "serial": t.num(model["serial_s"], "int", name="tile_demo_serial"),
        "over": t.num(model["overlapped_s"], "int", name="tile_demo_overlapped",
                      expr="kernels.overlap_time(n, n, n)['overlapped_s'] = n + 1"),
        "speedup": t.num(model["serial_s"] / model["overlapped_s"], "num digits=2",
                         name="tile_demo_speedup"),
        "max": t.num(2, "int", name="db_speedup_max"),
    }


def draw(fig, t):
    tl, _ = schedule()
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["serial_copy"], t["serial_compute"], t["over_copy"],
                           t["over_compute"]],
                  {"W": t["copy"].format(**v), "F": t["compute"]}, t["time"], fontsize=7)
    ax.axhline(1.5, color="#888888", lw=0.6, ls=":")
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
