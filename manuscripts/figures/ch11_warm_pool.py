"""How big a prewarmed sandbox pool must be (@sec-scheduling-environments-snapshot): sessions
arrive at `session_rate` per second (Poisson), and the pool runs dry only when more sessions
arrive during one refill than it holds; the smallest pool whose chance of that is at most
`warm_target`, against the refill time (log-log), with the mean arrivals per refill dashed.
Dots: refill by snapshot restore and by cold start plus preparation."""

from calculations import hot_spares, queueing

SIZE = (6.4, 3.4)
RATE, TARGET = 5, 0.001                          # the chapter's session_rate, warm_target
SETUP, GUEST_MIB, STORAGE_BW = 60, 512, 5e9      # the chapter's snap_setup, guest_mib, storage_bw
COLORS = ("#4C72B0", "#C44E52", "#55A868")


def pool(refill_s):
    return hot_spares.poisson_quantile(RATE * refill_s, 1 - TARGET)   # as the chapter's cell


def draw(fig, t):
    restore = GUEST_MIB * 2**20 / STORAGE_BW
    cold = queueing.FIRECRACKER_BOOT_S + SETUP
    ts = [10 ** (k / 40) for k in range(-80, 81)]          # 10 ms .. 100 s (exp(-mean) underflows past ~700)
    ax = fig.add_subplot()
    ax.plot(ts, [max(pool(x), 0.5) for x in ts], color=COLORS[0], lw=1.8, drawstyle="steps-post",
            label=t["pool"])
    ax.plot(ts, [RATE * x for x in ts], color="0.5", lw=1.0, ls="--", label=t["mean"])
    for x, color, key, dx, dy in ((restore, COLORS[2], "snap", 1.6, 0.35),
                                  (cold, COLORS[1], "cold", 0.02, 1.2)):
        k = pool(x)
        ax.plot([x], [k], "o", color=color, ms=7)
        ax.annotate(t[key].format(k=t.num(k, "int")), xy=(x, k), xytext=(x * dx, k * dy),
                    fontsize=8, color="black")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(0.5, 1000)
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", frameon=False)
    ax.set_title(t["title"].format(r=t.num(RATE, "int"), p=t.num(TARGET, "pct digits=1")),
                 fontsize=10)
