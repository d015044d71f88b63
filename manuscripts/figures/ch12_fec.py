"""One forward-error-correction block on the token stream (@sec-device-edge-cloud-loss): the
sender sends `fec_k` segments (one token each, every 1/`tp_rate`) and then `fec_r` parity
segments; two data segments are lost. With FEC the receiver rebuilds them as soon as the
block is complete (the held tokens wait up to `fec_wait`); without it the same loss is repaired
by fast retransmit after `tp_fast`. Times from the chapter's inputs (a test holds them equal)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import transport
from calculations.edge_example import RTT, example

SIZE = (6.4, 2.8)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('fec_k', 'fec_r', 'fec_wait', 'tp_fast', 'tp_rate')
K, R = 10, 2                # the chapter's fec_k, fec_r
LOST = (2, 6)               # the data segments lost in the drawing


def numbers(t):
    rate = example()["h100_b64_seq_tps"]
    fast = transport.stall_s(rate, RTT)["stall_s"]
    return rate, fast, {
        "k": t.num(K, "int", name="fec_k"), "r": t.num(R, "int", name="fec_r"),
        "wait": t.num(K / rate, "si unit=ms digits=0", name="fec_wait", expr="fec_k / tp_rate"),
        "fast": t.num(fast, "si unit=ms digits=0", name="tp_fast", expr="3 / tp_rate + tp_rtt"),
        "rate": t.num(rate, "num digits=0", name="tp_rate"),
    }


def draw(fig, t):
    rate, fast, v = numbers(t)
    gap, d = 1 / rate, RTT / 2
    seg = 0.8 * gap
    bars = [(0, i * gap, i * gap + seg, 0, str(i + 1)) for i in range(K)]
    bars += [(0, K * gap + j * seg / 2, K * gap + (j + 1) * seg / 2, 1, "") for j in range(R)]
    block_end = K * gap + R * seg / 2 + d          # the block is complete at the receiver
    first = LOST[0] * gap + d
    # with FEC: delivered up to the first loss, held until the block is complete
    bars.append((1, d, first, 2, ""))
    at = first
    for i in LOST:            # each lost segment, the held tokens between them
        bars += [(1, at, i * gap + d, 5, ""), (1, i * gap + d, i * gap + d + seg, 3, "")]
        at = i * gap + d + seg
    bars.append((1, at, block_end, 5, ""))
    # without FEC: fast retransmit repairs the first loss after tp_fast
    bars += [(2, d, first, 2, ""), (2, first, first + fast, 5, "")]
    end = max(block_end, first + fast) + 2 * gap
    bars += [(1, block_end, end, 2, ""), (2, first + fast, end, 2, "")]
    bars = [b for b in bars if b[2] > b[1]]
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(3, sorted(bars, key=lambda b: (b[0], b[1], b[3]))),
                  [t["sender"], t["with_fec"], t["without"]],
                  {0: t["data"], 1: t["parity"], 3: t["lost"], 2: t["shown"], 5: t["held"]},
                  t["time"], bar_height=0.55)
    handles = ax.get_legend().legend_handles
    ax.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.3),
              ncol=3, frameon=False)
    ax.text(block_end + gap / 2, 1.38, t["rebuilt"], ha="left", va="bottom", fontsize=7)
    ax.text(first + fast / 2, 0.38, v["fast"], ha="center", va="bottom", fontsize=7)
    ax.set_ylim(-0.5, 2.8)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t)[2])
