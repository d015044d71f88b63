"""A scaling-law fit (@sec-workloads-scaling-fit): the nine compute-optimal projections of the
Chinchilla paper's Table 3 (parameters against training FLOPs, log-log), the least-squares line
ln N = a ln C + b through them, and where Qwen3-8B (36T tokens) and Llama-3.1-8B (15T tokens)
actually sit (6ND of their active parameters)."""
import math

from calculations import formulas, models

SIZE = (6.4, 3.6)
TABLE = [(400e6, 1.92e19), (1e9, 1.21e20), (10e9, 1.23e22), (67e9, 5.76e23), (175e9, 3.85e24),
         (280e9, 9.90e24), (520e9, 3.43e25), (1e12, 1.27e26), (10e12, 1.30e28)]
TOKENS = {"qwen3-8b": 36e12, "llama-3.1-8b": 15e12}


def fit():
    xs = [math.log(c) for _, c in TABLE]
    ys = [math.log(n) for n, _ in TABLE]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    a = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return a, my - a * mx


def draw(fig, t):
    a, b = fit()
    ax = fig.add_subplot()
    ax.loglog([c for _, c in TABLE], [n for n, _ in TABLE], "o", color="tab:blue",
              label=t["points"])
    lo, hi = 1e19, 3e28
    ax.loglog([lo, hi], [math.exp(b) * lo ** a, math.exp(b) * hi ** a], "-", color="tab:blue",
              lw=1, label=t["fit"].format(a=t.num(a, "num digits=3", name="fit_a")))
    for (mid, tokens), marker, color in zip(TOKENS.items(), ("s", "^"), ("tab:orange", "tab:green")):
        m = models.get(mid)
        c = formulas.train_flops(m.params_active, tokens)
        ax.loglog([c], [m.params_total], marker, color=color, ms=7, label=m.name)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.grid(True, which="major", color="#cccccc", lw=0.5)
    ax.legend(fontsize=8, frameon=False)
