"""Chance that an answer of OUT tokens meets at least one stall, against the loss rate
(@sec-device-edge-cloud-loss): one segment per token, tokens coalesced over 50 ms, every
segment sent twice (a stall only when both copies are lost), and FEC blocks (10 + 2 and
5 + 1 segments, the same 20 % overhead) that fail when more than r segments of a block are lost."""
import math

from calculations import transport
from calculations.edge_example import OUT, example

SIZE = (6.4, 3.4)
FLUSH = 0.05                                 # the chapter's tp_flush
BOOK_LOSS = 0.01                             # the chapter's tp_loss
COLORS = ("#C44E52", "#DD8452", "#8172B3", "#4C72B0", "#55A868")


def block_fail(p, k, r):
    n = k + r
    return sum(math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(r + 1, n + 1))


def draw(fig, t):
    rate = example()["h100_b64_seq_tps"]
    coalesced = math.ceil(OUT / (rate * FLUSH))
    ps = [10 ** (k / 20) for k in range(-80, -19)]           # 0.01 % .. 10 %
    curves = [
        ("per_token", lambda p: transport.p_any_loss(p, OUT), "-"),
        ("coalesced", lambda p: transport.p_any_loss(p, coalesced), "-"),
        ("dup", lambda p: transport.p_any_loss(p * p, OUT), "--"),
        ("fec10", lambda p: 1 - (1 - block_fail(p, 10, 2)) ** math.ceil(OUT / 10), "-."),
        ("fec5", lambda p: 1 - (1 - block_fail(p, 5, 1)) ** math.ceil(OUT / 5), ":"),
    ]
    ax = fig.add_subplot()
    for (key, f, ls), color in zip(curves, COLORS):
        ax.plot([100 * p for p in ps], [max(f(p), 1e-12) for p in ps], color=color, lw=1.8, ls=ls,
                label=t[key].format(ms=t.num(FLUSH, "si unit=ms digits=0")))
    ax.axvline(100 * BOOK_LOSS, color="0.5", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(1e-6, 2)
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7.5, loc="lower right", frameon=False)
    ax.set_title(t["title"].format(n=t.num(OUT, "int")), fontsize=10)
