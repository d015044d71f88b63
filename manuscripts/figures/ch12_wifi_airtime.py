"""One round of channel use on a Wi-Fi access point (@sec-device-edge-cloud-wifi): `wifi_n`
stations send one `wifi_frame`-byte frame each; nine at `wifi_fast`, one at `wifi_slow`. With
per-frame fairness (802.11's default) the slow frame takes `wifi_slow_share` of the round and
every station gets one frame per round, `wifi_mixed`; with airtime fairness every station gets
the same sending time per round (the slow one's frame spread over several rounds). Times from
the chapter's inputs (a test holds them equal)."""
from bookkit.diagrams.draw import draw_timeline, fill_of, text_on
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import transport

SIZE = (6.4, 2.5)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('wifi_n', 'wifi_frame', 'wifi_t_fast', 'wifi_t_slow', 'wifi_slow_share', 'wifi_mixed')
N, FAST, SLOW, FRAME = 10, 200e6, 6e6, 1500      # the chapter's wifi_n, wifi_fast, wifi_slow, wifi_frame


def numbers(t):
    tf, ts = FRAME * 8 / FAST, FRAME * 8 / SLOW
    rnd = (N - 1) * tf + ts
    return tf, ts, rnd, {
        "n": t.num(N, "int", name="wifi_n"), "frame": t.num(FRAME, "int", name="wifi_frame"),
        "tf": t.num(tf, "si unit=μs digits=0", name="wifi_t_fast"),
        "ts": t.num(ts, "si unit=ms digits=1", name="wifi_t_slow"),
        "share": t.num(ts / rnd, "pct digits=0", name="wifi_slow_share"),
        "mixed": t.num(transport.per_station_rate([FAST] * (N - 1) + [SLOW]),
                       "si unit=Mbit/s digits=2", name="wifi_mixed"),
    }


def draw(fig, t):
    tf, ts, rnd, v = numbers(t)
    ms = 1e3
    bars = [(0, i * tf * ms, (i + 1) * tf * ms, 0, "") for i in range(N - 1)]
    bars.append((0, (N - 1) * tf * ms, rnd * ms, 3, ""))
    x, k = 0.0, 0
    while x + tf <= rnd + 1e-12:      # airtime fairness: rounds of N equal slots
        bars.append((1, x * ms, (x + tf) * ms, 3 if k % N == N - 1 else 0, ""))
        x += tf
        k += 1
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(2, bars), [t["per_frame"], t["airtime"]],
                  {0: t["fast"], 3: t["slow"]}, t["time"], bar_height=0.55)
    handles = ax.get_legend().legend_handles
    ax.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.35),
              ncol=2, frameon=False)
    text_on(ax, ((N - 1) * tf + ts / 2) * ms, 1, t["slow_note"].format(**v), fill_of(3)[0],
            ha="center", va="center", fontsize=7)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t)[3])
