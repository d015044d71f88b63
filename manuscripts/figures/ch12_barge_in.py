"""A voice assistant interrupted (@sec-device-edge-cloud-barge-in): the user starts speaking at
`au_user`; the client's voice-activity detection confirms it `au_vad` later. A client that
only tells the server plays out its `au_buffer` of queued audio over the user; a client that
flushes its buffer at once stops after `au_vad`. The server hears of it half a round trip
after detection. Times to scale from the chapter's inputs (a test holds them equal)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations.edge_example import RTT

SIZE = (6.4, 2.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('au_user', 'au_vad', 'au_buffer', 'au_overlap_local', 'au_overlap_remote',
         'au_server_learns', 'rtt')
USER, VAD, BUFFER = 2.0, 0.2, 1.0    # the chapter's au_user, au_vad, au_buffer
SPEECH = 1.6                          # how long the user speaks (drawn only)


def times():
    stop_local = USER + VAD
    return {"learn": stop_local + RTT / 2, "stop_local": stop_local,
            "stop_remote": stop_local + BUFFER}


def numbers(t):
    x = times()
    return {
        "user": t.num(USER, "si unit=s digits=1", name="au_user"),
        "vad": t.num(VAD, "si unit=ms digits=0", name="au_vad"),
        "buffer": t.num(BUFFER, "si unit=s digits=1", name="au_buffer"),
        "local": t.num(x["stop_local"] - USER, "si unit=ms digits=0", name="au_overlap_local"),
        "remote": t.num(x["stop_remote"] - USER, "si unit=s digits=1", name="au_overlap_remote"),
        "learn": t.num(x["learn"], "si unit=s digits=3", name="au_server_learns"),
        "rtt": t.num(RTT, "si unit=ms digits=0", name="rtt"),
    }


def draw(fig, t):
    x = times()
    v = numbers(t)
    tl = timeline(4, [
        (0, 0, x["learn"], 1, ""),
        (1, 0, x["stop_remote"], 0, ""),
        (2, 0, x["stop_local"], 0, ""),
        (3, USER, USER + SPEECH, 5, ""),
    ])
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["server"], t["play_remote"], t["play_local"], t["user_row"]],
                  {1: t["sending"], 0: t["playing"], 5: t["speaking"]}, t["time"],
                  bar_height=0.55)
    handles = ax.get_legend().legend_handles     # long names: two columns, not one row
    ax.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.3),
              ncol=2, frameon=False)
    for y, end, label in ((2, x["stop_remote"], v["remote"]), (1, x["stop_local"], v["local"])):
        ax.plot([USER, USER], [y - 0.35, y + 0.35], color="#555555", lw=0.8, ls=":")
        ax.text(end + 0.05, y, t["overlap"].format(o=label), va="center", fontsize=7)
    ax.set_xlim(0, USER + SPEECH + 0.9)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
