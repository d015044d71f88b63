"""Wavelength of each RoPE pair of Qwen3-8B (@sec-model-architecture-rope-scaling), as trained
and under the three ways of extending its context by the model card's factor: position
interpolation (every pair slowed by the factor), NTK-aware base change (the slowest pair slowed
by the factor, the fastest untouched) and YaRN (pairs that turn at least 32 times within the
native context untouched, those that turn less than once interpolated, a ramp between)."""
import math

from calculations import models, rope

SIZE = (6.4, 3.4)
FACTOR = 4.0                    # the chapter's yarn_factor
LO, HI = 1, 32                  # YaRN's bounds in turns (the chapter's yarn_lo, yarn_hi)
NATIVE = 32768                  # the model card's native context (the chapter's yarn_native)
BASE = 1_000_000               # rope_theta of Qwen3-8B's config.json (the chapter's rope_theta)


def draw(fig, t):
    m = models.get("qwen3-8b")
    base, ctx, d = BASE, NATIVE, m.head_dim
    pairs = range(d // 2)
    wl = lambda rates: [2 * math.pi / r for r in rates]         # noqa: E731
    plain = rope.rope_rates(d, base)
    curves = [
        (t["orig"], wl(plain), "-", "C0"),
        (t["pi"], wl([r / FACTOR for r in plain]), "--", "C1"),
        (t["ntk"], wl(rope.rope_rates(d, rope.ntk_base(base, FACTOR, d))), "-.", "C2"),
        (t["yarn"], wl(rope.yarn_rates(d, base, FACTOR, ctx, LO, HI)), ":", "C3"),
    ]
    ax = fig.add_subplot()
    for name, ys, style, colour in curves:
        ax.plot(list(pairs), ys, style, color=colour, lw=1.6, label=name)
    for y, key in ((ctx / HI, "hi"), (ctx, "native"), (ctx * FACTOR, "extended")):
        ax.axhline(y, color="#777777", lw=0.8, ls=(0, (2, 2)))
        ax.text(0.5, y * 1.15, t[key].format(n=t.num(y, "int")), fontsize=7, color="#444444",
                va="bottom")
    ax.set_yscale("log")
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"].format(s=t.num(FACTOR, "num digits=0")), fontsize=9)
    ax.legend(fontsize=7.5, loc="lower right")
    ax.grid(True, which="major", alpha=0.3)
