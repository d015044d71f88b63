"""What one GPU reads in a small all-reduce over 8 GPUs (@sec-supernodes-tp, the small-message
algorithms): Llama-3.1-70B's batch-1 message (hidden x BF16). One-shot: after one
synchronization, read every peer's whole message and add locally. Two-shot: the message in n
segments; step 1 reads segment i from every peer and sums it, a second synchronization, step 2
reads every peer's summed segment back. Bars laid end to end in bytes received
(`scaleup.allreduce_time`'s byte terms)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import models, scaleup

SIZE = (6.4, 2.8)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("msg_b1", "tp_peers", "os_bytes_in", "ts_bytes_in", "oneshot_b1", "twoshot_b1")
TP = 8                 # the chapter's tp_n
STEP1, STEP2 = 2, 1    # the vocabulary's fills, apart from one-shot's "F"


def schedule():
    msg = models.get("llama-3.1-70b").hidden_size * 2
    peers, seg = TP - 1, msg / TP
    kb = 1e3
    bars, x = [], 0.0
    for p in range(peers):
        bars.append((0, x / kb, (x + msg) / kb, "F", str(p + 1)))
        x += msg
    os_in = x
    x = 0.0
    for kind in (STEP1, STEP2):
        for _ in range(peers):
            bars.append((1, x / kb, (x + seg) / kb, kind, ""))
            x += seg
    ts_in = x
    assert abs(ts_in - scaleup.ring_allreduce_volume(msg, TP)) < 1e-9
    return timeline(2, bars), msg, os_in, ts_in


def numbers(t):
    _, msg, os_in, ts_in = schedule()
    nv4 = scaleup.link("nvlink4")
    return {"msg": t.num(msg, "int", name="msg_b1"), "peers": t.num(TP - 1, "int", name="tp_peers"),
            "os": t.num(os_in, "si unit=kB digits=1", name="os_bytes_in"),
            "ts": t.num(ts_in, "si unit=kB digits=1", name="ts_bytes_in"),
            "t_os": t.num(scaleup.allreduce_time(msg, TP, nv4, algorithm="oneshot"),
                          "si unit=μs digits=2", name="oneshot_b1"),
            "t_ts": t.num(scaleup.allreduce_time(msg, TP, nv4, algorithm="twoshot"),
                          "si unit=μs digits=2", name="twoshot_b1")}


def draw(fig, t):
    tl, msg, os_in, ts_in = schedule()
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["oneshot"], t["twoshot"]],
                  {"F": t["whole"], STEP1: t["step1"], STEP2: t["step2"]},
                  t["x"], fontsize=7)
    ax.plot([ts_in / 2e3] * 2, [-0.45, 0.45], color="#333333", lw=1.2, ls="--")
    ax.text(ts_in / 2e3, 0.42, t["sync"], ha="left", va="bottom", fontsize=6.5)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
