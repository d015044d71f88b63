"""The training FLOPs of one token, item by item (@sec-workloads-backward): Llama-3.1-8B at a
sequence of 8192; the three matmuls of a linear layer (forward, gradient of the input,
gradient of the weights) each 2 FLOPs per matmul parameter, attention (forward and backward,
`training.attention_train_flops`), and the forward pass again under full recomputation. Drawn to
scale against 6N, as the chapter's cell computes them."""
from bookkit.diagrams.draw import fill_of, text_on
from calculations import models, training as tr

SIZE = (6.4, 2.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("bw_fwd", "bw_dx", "bw_dw", "bw_attn", "bw_6n", "bw_ratio", "bw_ratio_recompute",
         "bw_seq")
SEQ = 8192          # the chapter's bw_seq


def items():
    lm = models.get("llama-3.1-8b")
    mm = lm.params_non_embedding + lm.params_lm_head
    attn = tr.attention_train_flops(lm, SEQ) / SEQ
    return lm, 2 * mm, attn, 6 * lm.params_active


def numbers(t):
    lm, two, attn, six = items()
    g = "si unit=GFLOP digits=1"
    total = 3 * two + attn
    return {"fwd": t.num(two, g, name="bw_fwd"), "dx": t.num(two, g, name="bw_dx"),
            "dw": t.num(two, g, name="bw_dw"), "attn": t.num(attn, g, name="bw_attn"),
            "six": t.num(six, g, name="bw_6n"),
            "ratio": t.num(total / six, "num digits=2", name="bw_ratio"),
            "ratio_rc": t.num((total + two + attn / 3) / six, "num digits=2",
                              name="bw_ratio_recompute"),
            "seq": t.num(SEQ, "int", name="bw_seq"),
            "rc": t.num(two + attn / 3, g)}


def draw(fig, t):
    from matplotlib.patches import Rectangle
    lm, two, attn, six = items()
    v = numbers(t)
    ax = fig.add_subplot()
    ax.set_axis_off()
    unit = 1e9
    parts = [("fwd", two, 0), ("dx", two, 1), ("dw", two, 2), ("attn", attn, 3),
             ("rc", two + attn / 3, 5)]
    x = 0.0
    for key, flops, kind in parts:
        w = flops / unit
        fill, hatch = fill_of(kind)
        dashed = key == "rc"
        ax.add_patch(Rectangle((x, 1.0), w, 1.0, facecolor=fill, hatch=hatch,
                               edgecolor="#333333", lw=0.6, ls="--" if dashed else "-"))
        text_on(ax, x + w / 2, 1.5, t[key].format(**v), fill, ha="center", va="center",
                fontsize=6.5)
        x += w
    ax.add_patch(Rectangle((0, 0.2), six / unit, 0.45, facecolor="none", edgecolor="#333333",
                           lw=0.8))
    ax.text(six / unit / 2, 0.42, t["six_label"].format(**v), ha="center", va="center",
            fontsize=7)
    ax.text(0, 2.25, t["note"].format(**v), ha="left", va="bottom", fontsize=7)
    ax.set_xlim(-1, x + 1)
    ax.set_ylim(0, 2.8)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
