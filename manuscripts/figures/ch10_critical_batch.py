"""The batch-size trade-off (@sec-training-systems-critical-batch): steps S / S_min and tokens
E / E_min to reach a given loss as the batch B grows relative to the critical batch B_crit
(McCandlish et al., 2018: S = S_min (1 + B_crit / B), E = E_min (1 + B / B_crit)), from
`calculations.training_extras.batch_tradeoff`; the chapter's three points (`cb_small`, 1,
`cb_big`) marked."""
from calculations import training_extras as tx

SIZE = (6.4, 2.8)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("cb_small", "cb_big", "cb_lo_steps", "cb_lo_tokens", "cb_hi_steps", "cb_hi_tokens")
POINTS = (0.25, 1.0, 4.0)                   # the chapter's cb_small, the critical batch, cb_big


def draw(fig, t):
    ax = fig.add_subplot()
    xs = [2 ** (k / 20) for k in range(-80, 81)]          # B / B_crit from 1/16 to 16
    ax.plot(xs, [tx.batch_tradeoff(x)["steps"] for x in xs], color="#1f77b4", lw=1.6,
            label=t["steps"])
    ax.plot(xs, [tx.batch_tradeoff(x)["examples"] for x in xs], color="#d62728", lw=1.6,
            ls="--", label=t["tokens"])
    names = {0.25: ("cb_lo_steps", "cb_lo_tokens"), 4.0: ("cb_hi_steps", "cb_hi_tokens")}
    for x in POINTS:
        r = tx.batch_tradeoff(x)
        ax.plot([x, x], [r["steps"], r["examples"]], "o", color="#333333", ms=3.5)
        if x in names:
            s_name, e_name = names[x]
            ax.annotate(t["point"].format(
                x=t.num(x, "num digits=2" if x < 1 else "num digits=0",
                        name="cb_small" if x < 1 else "cb_big"),
                s=t.num(r["steps"], "num digits=2", name=s_name),
                e=t.num(r["examples"], "num digits=2", name=e_name)),
                (x, max(r["steps"], r["examples"])), textcoords="offset points",
                xytext=(0, 6), ha="center", fontsize=7)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel(t["x"], fontsize=8)
    ax.set_ylabel(t["y"], fontsize=8)
    ax.tick_params(labelsize=7)
    ax.axvline(1.0, color="#777777", lw=0.8, ls=":")
    ax.legend(fontsize=7, frameon=False, loc="upper center")
    ax.set_title(t["title"], fontsize=9)


def describe(t):
    lo, hi = tx.batch_tradeoff(POINTS[0]), tx.batch_tradeoff(POINTS[2])
    return t["alt"].format(
        small=t.num(POINTS[0], "num digits=2", name="cb_small"),
        big=t.num(POINTS[2], "num digits=0", name="cb_big"),
        lo_s=t.num(lo["steps"], "num digits=2", name="cb_lo_steps"),
        lo_e=t.num(lo["examples"], "num digits=2", name="cb_lo_tokens"),
        hi_s=t.num(hi["steps"], "num digits=2", name="cb_hi_steps"),
        hi_e=t.num(hi["examples"], "num digits=2", name="cb_hi_tokens"))
