"""Useful fraction of a dense matmul's work when the token dimension M is padded up to whole
128-row tiles (@sec-accelerators-padding): M / (128 * ceil(M / 128)) for M from 1 to 2,100,
with the chapter's 300- and 2,000-token prefill chunks marked."""
from calculations import kernels

SIZE = (6.4, 3.2)
TILE = 128
MARKED = (300, 2000)


def useful(m):
    return kernels.padded_rows([m], TILE)["useful"]


def draw(fig, t):
    ax = fig.add_subplot()
    ms = list(range(1, 2101))
    ax.plot(ms, [100 * useful(m) for m in ms], color="tab:blue", lw=0.9)
    for m in MARKED:
        u = useful(m)
        ax.plot([m], [100 * u], "o", color="tab:orange", ms=6)
        ax.annotate(t["mark"].format(m=t.num(m, "int"), u=t.num(u, "pct digits=1")), (m, 100 * u),
                    textcoords="offset points", xytext=(6, -14), fontsize=7.5)
    ax.set_xlabel(t["x"].format(tile=t.num(TILE, "int")))
    ax.set_ylabel(t["y"])
    ax.set_ylim(0, 105)
    ax.set_xlim(0, 2100)
    ax.grid(True, color="#cccccc", lw=0.5)
