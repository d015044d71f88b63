"""Fraction of wall time lost to checkpoint writes and redone work against the checkpoint
interval, for a Llama-3.1-405B checkpoint written at three storage bandwidths, with the job
MTBF of the Llama 3 405B run (419 unexpected interruptions in 54 days); dots mark Young's optimum."""
from calculations import models, training as tr

SIZE = (6.4, 4.8)
BANDWIDTHS = (2e12, 100e9, 10e9)


def _bw(b):
    return f"{b / 1e12:.0f} TB/s" if b >= 1e12 else f"{b / 1e9:.0f} GB/s"


def _dur(s):
    return f"{s:.1f} s" if s < 60 else f"{s / 60:.1f} min"


def draw(fig, t):
    run = tr.LLAMA3_405B_RUN
    mtbf = tr.mtbf_seconds(run["days"] * 86400, run["unexpected"])
    size = tr.checkpoint_bytes(models.get("llama-3.1-405b"))
    ax = fig.add_subplot()
    taus = [60 * 2 ** (k / 4) for k in range(-12, 33)]     # 7.5 s .. 5.5 h
    for b, c in zip(BANDWIDTHS, ("#4C72B0", "#DD8452", "#C44E52")):
        d = tr.checkpoint_write_seconds(size, b)
        ws = [tr.checkpoint_waste(x, d, mtbf)["total"] for x in taus]
        ax.plot([x / 60 for x in taus], ws, color=c, label=t["bw"].format(bw=_bw(b), d=_dur(d)))
        opt = tr.young_interval(d, mtbf)
        ax.plot([opt / 60], [tr.checkpoint_waste(opt, d, mtbf)["total"]], "o", color=c, ms=6)
    ax.plot([], [], "o", color="gray", label=t["opt"])
    ax.set_xscale("log")
    ax.set_ylim(0, 0.6)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"].format(m=mtbf / 3600), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    fig.subplots_adjust(left=0.12, right=0.97, top=0.92, bottom=0.28)
