"""Rejection sampling at one position (@sec-inference-optimization-spec-rejection), drawn as
areas: for each token of a four-token vocabulary the target's probability p(x) is a column made
of min(p, q) (the draft proposed it and it was kept) and max(0, p - q) (drawn again from the
residual after a rejection); the draft's q(x) is the dashed outline. The two parts add up to p,
which is the proof (`sampling.rejection_step`)."""
from matplotlib.patches import Patch, Rectangle

from bookkit.diagrams.draw import fill_of, text_on
from bookkit.diagrams.extra import clear_under_text
from calculations import sampling

SIZE = (6.4, 3.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('rej_alpha', 'rej_tv', 'rej_keep_b', 'rej_keep_d')
P = [0.5, 0.3, 0.15, 0.05]    # the chapter's rej_p
Q = [0.3, 0.5, 0.1, 0.1]      # the chapter's rej_q
KEPT, REDRAWN = 0, 1


def numbers(t):
    r = sampling.rejection_step(P, Q)
    assert r["max_error"] < 1e-12
    return r, {
        "alpha": t.num(r["alpha"], "num digits=2", name="rej_alpha"),
        "tv": t.num(r["tv_distance"], "num digits=2", name="rej_tv"),
        "kb": t.num(r["keep"][1], "num digits=1", name="rej_keep_b"),
        "kd": t.num(r["keep"][3], "num digits=1", name="rej_keep_d"),
    }


def draw(fig, t):
    r, v = numbers(t)
    ax = fig.add_subplot()
    w = 0.6
    for i, (p, q) in enumerate(zip(P, Q)):
        low, high = min(p, q), max(0.0, p - q)
        for y0, h, kind in ((0, low, KEPT), (low, high, REDRAWN)):
            if h > 0:
                fill, hatch = fill_of(kind)
                ax.add_patch(Rectangle((i - w / 2, y0), w, h, facecolor=fill, hatch=hatch,
                                       edgecolor="#333333", lw=0.6))
        ax.add_patch(Rectangle((i - w / 2 - 0.06, 0), w + 0.12, q, fill=False, ls="--",
                               edgecolor="#555555", lw=1.0))
        fill = fill_of(KEPT)[0]
        text_on(ax, i, low / 2, t.num(r["keep"][i], "num digits=1"), fill, ha="center",
                va="center", fontsize=7)
    ax.set_xticks(range(len(P)))
    ax.set_xticklabels([t["token"].format(i=i + 1) for i in range(len(P))], fontsize=8)
    ax.set_xlim(-0.6, len(P) - 0.4)
    ax.set_ylim(0, 0.62)
    ax.set_ylabel(t["y"], fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    handles = [Patch(facecolor=fill_of(KEPT)[0], hatch=fill_of(KEPT)[1], edgecolor="#333333",
                     label=t["kept"].format(**v)),
               Patch(facecolor=fill_of(REDRAWN)[0], hatch=fill_of(REDRAWN)[1], edgecolor="#333333",
                     label=t["redrawn"].format(**v)),
               Patch(fill=False, ls="--", edgecolor="#555555", label=t["draft"])]
    ax.legend(handles=handles, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12),
              ncol=1, frameon=False)
    ax.set_title(t["title"].format(**v), fontsize=8.5)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t)[1])
