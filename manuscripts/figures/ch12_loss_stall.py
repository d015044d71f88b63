"""One lost segment in a token stream over TCP (@sec-device-edge-cloud-loss): the cloud H100 at
batch `big_batch` sends one token every 1/`tp_rate` seconds; the segment sent at LOSS_AT is
lost. With enough segments after it, fast retransmit resends it and the reader waits
`tp_fast` = 3/rate + RTT; at the end of an answer only the retransmission timer does, and the
reader waits `tp_rto` = RTT + 200 ms. Drawn with the reader's round-trip choice (`INPUTS`)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import transport
from calculations.edge_example import BIG_BATCH, example

SIZE = (6.4, 2.7)
INPUTS = ("tp_rtt_ms",)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('tp_rtt_ms', 'tp_rate', 'tp_fast', 'tp_rto', 'tp_held', 'big_batch')
LOSS_AT = 0.10      # seconds into the stream (any point mid-answer)


def numbers(t):
    rtt_ms = t.inputs.get("tp_rtt_ms", 50)     # drawn alone: the book's
    rate = example()["h100_b64_seq_tps"]
    fast = transport.stall_s(rate, rtt_ms / 1000)
    rto = transport.stall_s(rate, rtt_ms / 1000, segments_after=1)
    return (rtt_ms / 1000, rate, fast["stall_s"], rto["stall_s"]), {
        "rtt": t.num(rtt_ms, "int", name="tp_rtt_ms"),
        "rate": t.num(rate, "num digits=0", name="tp_rate"),
        "fast": t.num(fast["stall_s"], "si unit=ms digits=0", name="tp_fast",
                      expr="3 / tp_rate + tp_rtt"),
        "rto": t.num(rto["stall_s"], "si unit=ms digits=0", name="tp_rto",
                     expr="tp_rtt + 200 ms (Linux TCP_RTO_MIN)"),
        "held": t.num(fast["tokens_held"], "num digits=0", name="tp_held"),
        "batch": t.num(BIG_BATCH, "int", name="big_batch"),
    }


def schedule(t):
    (rtt, rate, fast, rto), _ = numbers(t)
    due = LOSS_AT + rtt / 2            # when the lost token was due at the reader
    end = due + rto + 0.12
    gap = 1 / rate
    return timeline(3, [
        (0, 0, LOSS_AT, 0, ""), (0, LOSS_AT, LOSS_AT + gap, 3, ""), (0, LOSS_AT + gap, end, 0, ""),
        (1, rtt / 2, due, 2, ""), (1, due, due + fast, 5, ""), (1, due + fast, end, 2, ""),
        (2, rtt / 2, due, 2, ""), (2, due, due + rto, 5, ""), (2, due + rto, end, 2, ""),
    ]), due, fast, rto


def draw(fig, t):
    tl, due, fast, rto = schedule(t)
    _, v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["sender"], t["reader_fast"], t["reader_rto"]],
                  {0: t["sent"].format(**v), 3: t["lost"], 2: t["shown"],
                   5: t["stalled"]}, t["time"], bar_height=0.55)
    handles = ax.get_legend().legend_handles     # long names: two columns, not one row
    ax.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.3),
              ncol=2, frameon=False)
    ax.text(due + fast / 2, 1.38, v["fast"], ha="center", va="bottom", fontsize=7)
    ax.text(due + rto / 2, 0.38, v["rto"], ha="center", va="bottom", fontsize=7)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t)[1])
