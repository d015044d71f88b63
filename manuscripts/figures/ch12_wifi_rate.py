"""Per-station throughput on one access point against the physical rate of the one slow
station (@sec-device-edge-cloud-wifi): nine stations at `wifi_fast`; with per-frame fairness
every station gets 1 / sum(1 / r_i) (transport.per_station_rate), with airtime fairness each
gets its own rate over n. Overheads ignored (upper bounds)."""
from calculations import transport

SIZE = (6.4, 3.4)
N, FAST, SLOW = 10, 200e6, 6e6                 # the chapter's wifi_n, wifi_fast, wifi_slow
COLORS = ("#C44E52", "#4C72B0", "#55A868")


def draw(fig, t):
    rs = [10 ** (k / 20) * 1e6 for k in range(0, 47)]        # 1 .. 200 Mbit/s
    frame = [transport.per_station_rate([FAST] * (N - 1) + [r]) / 1e6 for r in rs]
    ax = fig.add_subplot()
    x = [r / 1e6 for r in rs]
    ax.plot(x, frame, color=COLORS[0], lw=1.8, label=t["frame"])
    ax.plot(x, [FAST / N / 1e6] * len(rs), color=COLORS[1], lw=1.8, ls="--", label=t["fast_atf"])
    ax.plot(x, [r / N / 1e6 for r in rs], color=COLORS[2], lw=1.8, ls="-.", label=t["slow_atf"])
    ax.axvline(SLOW / 1e6, color="0.5", lw=0.8, ls=":")
    ax.text(SLOW / 1e6 * 1.1, 0.15, t["book"].format(r=t.num(SLOW, "si unit=Mbit/s digits=0")),
            fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(0.08, 40)
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right", frameon=False)
    ax.set_title(t["title"].format(n=t.num(N, "int"), fast=t.num(FAST, "si unit=Mbit/s digits=0")),
                 fontsize=10)
