"""An MoE layer's capacity factor (@sec-training-systems-moe-capacity): DeepSeek-V3's
`ds_experts` experts sorted by load, the token copies each receives when `moe_T` tokens pick
`ds_k` experts each under the chapter's mild skew (`moe_skew`); the dashed line is the
capacity at factor `cap_f` (`moe_cap` slots); copies above it are dropped (`drop_125` of all),
slots below it on cold experts stay empty (`slot_use_125` used). Computed by
`calculations.training_extras` with the chapter's inputs."""
from bookkit.diagrams.draw import fill_of
from calculations import distributed as D, models, training_extras as tx

SIZE = (6.4, 2.8)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("moe_T", "ds_k", "ds_experts", "moe_skew", "cap_f", "moe_cap", "moe_mean", "drop_125",
         "slot_use_125", "over_125")
T, SKEW, FACTOR = 16384, 0.2, 1.25       # the chapter's moe_T, moe_skew, cap_f


def arithmetic():
    ds = models.get("deepseek-v3")
    e, k = ds.num_experts, ds.experts_per_token
    loads = D.zipf_loads(e, SKEW)
    counts = tx.routed_counts(T, k, [x / sum(loads) for x in loads])
    cap = tx.capacity(T, e, k, FACTOR)
    return e, k, sorted(counts, reverse=True), cap, tx.dropped_tokens(counts, cap)


def numbers(t):
    e, k, _, cap, d = arithmetic()
    return {
        "T": t.num(T, "int", name="moe_T"), "k": t.num(k, "int", name="ds_k"),
        "E": t.num(e, "int", name="ds_experts"), "skew": t.num(SKEW, "num digits=1", name="moe_skew"),
        "f": t.num(FACTOR, "num digits=2", name="cap_f"),
        "cap": t.num(cap, "int", name="moe_cap", expr="tx.capacity(moe_T, ds_experts, ds_k, cap_f)"),
        "mean": t.num(T * k / e, "num digits=0", name="moe_mean"),
        "drop": t.num(d["dropped_share"], "pct digits=1", name="drop_125"),
        "use": t.num(d["slot_use"], "pct digits=0", name="slot_use_125"),
        "over": t.num(d["overfull_experts"], "int", name="over_125"),
    }


def draw(fig, t):
    from matplotlib.patches import Patch
    e, _, counts, cap, _ = arithmetic()
    v = numbers(t)
    ax = fig.add_subplot()
    kept_fill, kept_hatch = fill_of(0)
    drop_fill, drop_hatch = fill_of(3)
    # one step per expert, hottest first; the overflow drawn as one hatched area, not 256 bars
    xs = list(range(e + 1))
    kept = [min(n, cap) for n in counts] + [min(counts[-1], cap)]
    full = list(counts) + [counts[-1]]
    ax.fill_between(xs, 0, kept, step="post", facecolor=kept_fill, edgecolor="none")
    ax.fill_between(xs, cap, [max(n, cap) for n in full], step="post", facecolor=drop_fill,
                    hatch=drop_hatch, edgecolor="#333333", lw=0.4)
    ax.axhline(cap, color="#333333", lw=1.0, ls="--")
    ax.text(e * 0.98, cap * 1.06, t["cap_line"].format(**v), ha="right", va="bottom", fontsize=7)
    ax.set_xlim(0, e)
    ax.set_ylim(0, counts[0] * 1.08)
    ax.set_xlabel(t["x"].format(**v), fontsize=8)
    ax.set_ylabel(t["y"], fontsize=8)
    ax.tick_params(labelsize=7)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.legend(handles=[Patch(facecolor=kept_fill, hatch=kept_hatch, edgecolor="#333333",
                             label=t["kept"]),
                       Patch(facecolor=drop_fill, hatch=drop_hatch, edgecolor="#333333",
                             label=t["dropped"].format(**v))],
              fontsize=7, loc="upper right", bbox_to_anchor=(1.0, 0.88), frameon=False)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
