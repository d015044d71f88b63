"""Head-of-line blocking across streams (@sec-device-edge-cloud-loss): a text stream and a
second stream (an image or audio) share one connection; a segment of the text stream is lost
mid-answer and fast retransmit repairs it after `tp_fast` = 3/rate + RTT (the book's 50 ms
round trip). Over TCP both streams share one sequence space, so the receiver's kernel holds
both; over QUIC each stream is delivered in order on its own, so only the text stream waits."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import transport
from calculations.edge_example import RTT, example

SIZE = (6.4, 2.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('tp_fast',)
LOSS_AT, END = 0.10, 0.42       # seconds into the stream


def numbers(t):
    rate = example()["h100_b64_seq_tps"]
    fast = transport.stall_s(rate, RTT)["stall_s"]
    return rate, fast, {
        "fast": t.num(fast, "si unit=ms digits=0", name="tp_fast", expr="3 / tp_rate + tp_rtt"),
    }


def draw(fig, t):
    _, fast, v = numbers(t)
    due = LOSS_AT + RTT / 2
    bars = []
    for row, blocked in ((0, True), (1, True), (2, True), (3, False)):
        bars.append((row, RTT / 2, due, 2, ""))
        if blocked:
            bars += [(row, due, due + fast, 5, ""), (row, due + fast, END, 2, "")]
        else:
            bars.append((row, due, END, 2, ""))
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(4, bars), [t["tcp_text"], t["tcp_other"], t["quic_text"],
                                          t["quic_other"]],
                  {2: t["shown"], 5: t["stalled"]}, t["time"], bar_height=0.55)
    handles = ax.get_legend().legend_handles
    ax.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.3),
              ncol=2, frameon=False)
    ax.axvline(due, color="0.4", lw=0.8, ls=":")
    ax.text(due, 3.75, t["loss"], ha="center", va="bottom", fontsize=7)
    for y in (3, 2, 1):       # above each stalled bar, not on its fill
        ax.text(due + fast / 2, y + 0.3, v["fast"], ha="center", va="bottom", fontsize=6.5)
    ax.set_ylim(-0.5, 4.1)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t)[2])
