"""Credit-based flow control on one hop (@sec-datacenter-networks-lossless): throughput against
the cable length for a few receive buffers per virtual lane, min(line rate, buffer / hop round
trip), with the round trip from the fiber delay of calculations.collectives; the 400 Gb/s
ConnectX-7 line rate as the ceiling."""
from calculations import collectives as cl

SIZE = (6.4, 3.3)
BUFFERS = ((64e3, "#4C72B0"), (512e3, "#55A868"), (4e6, "#DD8452"))
METERS = tuple(10 ** (1 + 4 * i / 80) for i in range(81))      # 10 m .. 100 km


def draw(fig, t):
    nic = cl.gbps_to_bytes(cl.nic("cx7")["line_rate_gbps"])
    ax = fig.add_subplot()
    for buf, col in BUFFERS:
        ys = [min(nic, buf / (2 * cl.fiber_delay(m / 1000))) / 1e9 for m in METERS]
        ax.plot(METERS, ys, color=col, lw=1.6, label=t["buf"].format(kb=round(buf / 1e3)))
    ax.axhline(nic / 1e9, color="grey", ls="--", lw=0.9, label=t["line"])
    ax.set_xscale("log")
    ax.set_xlabel(t["x"], fontsize=8)
    ax.set_ylabel(t["y"], fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")
    ax.set_title(t["title"], fontsize=9)
