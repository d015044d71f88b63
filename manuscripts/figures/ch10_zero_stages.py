"""What one data-parallel rank holds of Llama-3.1-70B's training state under ZeRO-0 to ZeRO-3
(@sec-training-systems-zero): a row per stage, each of the three parts (BF16 weights, BF16
gradients, the optimizer's FP32 master weights and two moments) drawn to scale in bytes per
parameter; a sharded part keeps only its 1/d slice on this rank (filled), the rest lives on the
other ranks (dashed outline). The per-rank totals are the chapter's `z0_state`..`z3_state`,
computed by `tr.state_bytes_per_param` with the chapter's `dp_z` (`INPUTS`)."""
from bookkit.diagrams.draw import fill_of, text_on
from calculations import models, training as tr

SIZE = (6.4, 2.9)
INPUTS = ("dp_z",)          # the chapter's data-parallel degree this diagram draws
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('dp_z', 'bytes_opt', 'bytes_w', 'bytes_g', 'z0_state', 'z1_state', 'z2_state', 'z3_state')
PARTS = ("weights", "grads", "optimizer")


def numbers(t):
    d = t.inputs.get("dp_z", 64)          # drawn alone: the book's
    params = models.get("llama-3.1-70b").params_total
    full = tr.state_bytes_per_param(0, 1)
    per = [tr.state_bytes_per_param(s, d) for s in range(4)]
    names = {0: "si unit=TB digits=2", 1: "si unit=GB digits=0", 2: "si unit=GB digits=0",
             3: "si unit=GB digits=1"}
    v = {"d": t.num(d, "int", name="dp_z"),
         "opt": t.num(full["optimizer"], "int", name="bytes_opt"),
         "w": t.num(full["weights"], "int", name="bytes_w"),
         "g": t.num(full["grads"], "int", name="bytes_g")}
    for s in range(4):
        v[f"z{s}"] = t.num(params * per[s]["total"], names[s], name=f"z{s}_state",
                           expr=f"llama70_params * tr.state_bytes_per_param({s}, dp_z)['total']")
    return (d, full, per), v


def draw(fig, t):
    from matplotlib.patches import Rectangle
    (d, full, per), v = numbers(t)
    ax = fig.add_subplot()
    ax.set_axis_off()
    total = sum(full[p] for p in PARTS)             # 16 bytes per parameter
    labels = {"weights": t["weights"].format(**v), "grads": t["grads"].format(**v),
              "optimizer": t["optimizer"].format(**v)}
    for s in range(4):
        y = 3 - s
        ax.text(-0.4, y + 0.35, f"ZeRO-{s}", ha="right", va="center", fontsize=8)
        x = 0.0
        for k, part in enumerate(PARTS):
            width = full[part]
            kept = per[s][part] / full[part]        # 1 or 1/d
            fill, hatch = fill_of(k)
            if kept < 1:                            # the other ranks' slices: outline only
                ax.add_patch(Rectangle((x, y), width, 0.7, facecolor="none",
                                       edgecolor="#777777", lw=0.6, ls="--"))
            # the slice this rank keeps; a 1/d slice is drawn at least 0.12 wide to stay visible
            ax.add_patch(Rectangle((x, y), max(width * kept, 0.12), 0.7, facecolor=fill,
                                   hatch=hatch, edgecolor="#333333", lw=0.6))
            if s == 0:
                text_on(ax, x + width / 2, y + 0.35, labels[part], fill, ha="center",
                        va="center", fontsize=6.5, fit=(width * 0.94, 0.65))
            elif kept < 1:
                ax.text(x + width / 2 + 0.1, y + 0.35, t["slice"].format(**v), ha="center",
                        va="center", fontsize=6.5)
            x += width
        ax.text(total + 0.3, y + 0.35, t["per_rank"].format(state=v[f"z{s}"]), ha="left",
                va="center", fontsize=7.5)
    ax.text(0, -0.25, t["legend"].format(**v), ha="left", va="center", fontsize=6.5)
    ax.set_xlim(-2.2, total + 5.2)
    ax.set_ylim(-0.6, 4.0)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
