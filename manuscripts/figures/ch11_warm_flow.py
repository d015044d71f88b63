"""The prewarmed pool's loop (@sec-scheduling-environments-snapshot): a prepared snapshot
(`guest_mib` MiB on local NVMe) is restored into sandboxes (`snap_restore` each) that wait in a
pool of `warm_snap`; a session arriving (`session_rate` per second) takes one at once, and the
pool restores a replacement from the snapshot. The pool covers the arrivals during one refill
(`warm_mean_snap` on average). Numbers from the chapter's inputs (a test holds them equal)."""

from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from calculations import hot_spares

SIZE = (6.4, 2.5)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('guest_mib', 'snap_restore', 'warm_snap', 'session_rate', 'warm_mean_snap')
RATE, TARGET = 5, 0.001                          # the chapter's session_rate, warm_target
GUEST_MIB, STORAGE_BW = 512, 5e9                 # the chapter's guest_mib, storage_bw


def pool(mean):
    return hot_spares.poisson_quantile(mean, 1 - TARGET)   # as the chapter's cell


def numbers(t):
    restore = GUEST_MIB * 2**20 / STORAGE_BW
    return {
        "mib": t.num(GUEST_MIB, "int", name="guest_mib"),
        "restore": t.num(restore, "si unit=ms digits=0", name="snap_restore",
                         expr="guest_mib * 2**20 / storage_bw"),
        "pool": t.num(pool(RATE * restore), "int", name="warm_snap"),
        "rate": t.num(RATE, "int", name="session_rate"),
        "mean": t.num(RATE * restore, "num digits=2", name="warm_mean_snap",
                      expr="session_rate * snap_restore"),
    }


def draw(fig, t):
    v = numbers(t)
    w, gap = 2.6, 1.9
    items = [("snap", t["snap"], t["snap_note"].format(**v)),
             ("pool", t["pool"], t["pool_note"].format(**v)),
             ("sess", t["sess"], t["sess_note"].format(**v))]
    arrows = [("snap", "pool", ""), ("pool", "sess", "")]
    ax = fig.add_subplot()
    draw_flow(ax, stack_flow(items, arrows, horizontal=True, gap=gap, width=w), fontsize=7)
    ax.text(w + gap / 2, 0.62, t["restore"].format(**v), ha="center", va="bottom", fontsize=7)
    ax.text(2 * w + 1.5 * gap, 0.62, t["take"], ha="center", va="bottom", fontsize=7)
    # the refill: each sandbox taken triggers one restore from the snapshot
    right = 3 * w + 2 * gap
    ax.annotate("", xy=(w / 2, -0.05), xytext=(right - w / 2, -0.05),
                arrowprops=dict(arrowstyle="-|>", color="#333333", lw=1.0,
                                connectionstyle="bar,fraction=-0.08"))
    ax.text(right / 2, -0.95, t["refill"].format(**v), ha="center", va="top", fontsize=7)
    ax.set_xlim(-0.2, 3 * w + 2 * gap + 0.2)
    ax.set_ylim(-1.4, 1.5)
    ax.set_title(t["title"], fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
