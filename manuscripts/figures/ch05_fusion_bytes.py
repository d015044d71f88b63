"""Fusion saves HBM round trips (@sec-operators-runtime-fusion, the SwiGLU example): the HBM
reads and writes of one token's SwiGLU in Qwen3-8B, laid end to end in the order the kernels
issue them. Unfused, SiLU writes a temporary that the multiply reads back; fused, the
temporary stays on chip. Bytes from `kernels.fused_chain_bytes`."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import kernels, models

SIZE = (6.4, 2.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("inter", "swiglu_tok_unfused", "swiglu_tok_fused", "swiglu_tok_saved_share")
READ, WRITE, TRIP = 0, 1, 3      # the vocabulary's fills: read, write, the round trip fusion removes


def ledger():
    inter = models.get("qwen3-8b").intermediate_size
    c = kernels.fused_chain_bytes(inter, [0, 1])
    e = c["tensor_bytes"] / 1e3                      # one tensor, kB
    # (row, tensor, kind): the order each kernel reads and writes its tensors
    trips = [(0, "g", READ), (0, "tmp", TRIP), (1, "tmp", TRIP), (1, "u", READ), (1, "out", WRITE),
             (2, "g", READ), (2, "u", READ), (2, "out", WRITE)]
    bars, pos = [], {0: 0.0, 1: None, 2: 0.0}
    for row, name, kind in trips:
        if pos[row] is None:                          # the second kernel starts where the first ended
            pos[row] = pos[0]
        bars.append((row, pos[row], pos[row] + e, kind, name))
        pos[row] += e
    assert abs(pos[1] * 1e3 - c["unfused_bytes"]) < 1e-6 and abs(pos[2] * 1e3 - c["fused_bytes"]) < 1e-6
    return timeline(3, bars), c


def numbers(t):
    _, c = ledger()
    return {"inter": t.num(c["elements"], "int", name="inter"),
            "unfused": t.num(c["unfused_bytes"], "int", name="swiglu_tok_unfused"),
            "fused": t.num(c["fused_bytes"], "int", name="swiglu_tok_fused"),
            "saved": t.num(c["saved_bytes"] / c["unfused_bytes"], "pct digits=0",
                           name="swiglu_tok_saved_share")}


def draw(fig, t):
    tl, _ = ledger()
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["silu"], t["mul"], t["fused"]],
                  {READ: t["read"], WRITE: t["write"], TRIP: t["trip"]}, t["x"], fontsize=7)
    ax.axhline(0.5, color="#888888", lw=0.6, ls=":")
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
