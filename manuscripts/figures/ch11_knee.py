"""p99 queueing delay of M/M/c, in units of the mean service time, against utilization, for
pools of 1, 8 and 64 servers (Erlang C tail)."""
from calculations import queueing

SIZE = (6.4, 3.6)
POOLS = (1, 8, 64)
COLORS = {1: "#C44E52", 8: "#4C72B0", 64: "#55A868"}


def draw(fig, t):
    ax = fig.add_subplot()
    rhos = [i / 1000 for i in range(300, 996)]
    for c in POOLS:
        xs, ys = [], []
        for r in rhos:
            w = queueing.wait_percentile(r * c, 1.0, c, 0.99)
            if w > 0:
                xs.append(r)
                ys.append(w)
        ax.plot(xs, ys, color=COLORS[c], lw=1.8, label=t["label"].format(c=c))
    ax.axhline(1.0, color="0.5", lw=0.8, ls="--")
    ax.set_yscale("log")
    ax.set_xlim(0.3, 1.0)
    ax.set_ylim(0.01, 1000)
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", frameon=False)
    ax.set_title(t["title"], fontsize=10)
