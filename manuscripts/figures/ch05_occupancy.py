"""Latency hiding by warps (@sec-operators-runtime-occupancy): one warp scheduler of an H100 SM
round-robins its resident warps; each warp issues `occ_work` cycles of instructions, then waits
the HBM latency (`occ_lat` cycles, chapter 1's measured figure) for a load. With the registers
of 128 per thread only `occ_per_sched_big` warps fit per scheduler and it idles half the time;
with `occ_need` warps it never idles (`kernels.latency_hiding`, as the chapter's cell)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import timeline
from calculations import kernels

SIZE = (6.4, 4.2)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("occ_lat", "occ_work", "occ_need", "occ_per_sched_big", "occ_busy_big", "occ_regs_big")
WORK = 100          # the chapter's occ_work: cycles of independent instructions per load
REGS_BIG = 128      # the chapter's occ_regs_big: registers per thread of the heavy kernel
PERIODS = 2


def cases():
    lat = kernels.H100_LATENCY_CYCLES["hbm"]
    per_sched_big = kernels.H100_REGS_PER_SM // (REGS_BIG * 32) // kernels.H100_SCHEDULERS_PER_SM
    need = kernels.latency_hiding(lat, WORK, 1)["warps_needed"]
    return lat, per_sched_big, need


def schedule(warps, lat):
    """Warp w issues in the scheduler's w-th slot of each round; a round lasts max(warps x work,
    work + latency) cycles, so with too few warps the scheduler waits for the first warp's load."""
    period = max(warps * WORK, WORK + lat)
    bars = []
    for p in range(PERIODS):
        for w in range(warps):
            start = p * period + w * WORK
            bars.append((w, start, start + WORK, "F", ""))
            bars.append((w, start + WORK, start + WORK + lat, "B", ""))
    return timeline(warps, bars)


def numbers(t):
    lat, small, need = cases()
    busy = kernels.latency_hiding(lat, WORK, small)["busy"]
    return {"lat": t.num(lat, "int", name="occ_lat"), "work": t.num(WORK, "int", name="occ_work"),
            "need": t.num(need, "int", name="occ_need"),
            "small": t.num(small, "int", name="occ_per_sched_big"),
            "busy": t.num(busy, "pct digits=0", name="occ_busy_big"),
            "regs": t.num(REGS_BIG, "int", name="occ_regs_big")}


def draw(fig, t):
    lat, small, need = cases()
    v = numbers(t)
    top, bottom = fig.subplots(2, 1, height_ratios=[small, need], sharex=True)
    names = {"F": t["issue"].format(**v), "B": t["wait"].format(**v)}
    draw_timeline(top, schedule(small, lat), [t["warp"].format(i=i + 1) for i in range(small)],
                  names, bar_height=0.6)
    top.get_legend().remove()
    top.set_title(t["few"].format(**v), fontsize=8)
    draw_timeline(bottom, schedule(need, lat), [t["warp"].format(i=i + 1) for i in range(need)],
                  names, t["cycles"], bar_height=0.6)
    bottom.set_title(t["enough"].format(**v), fontsize=8)
    bottom.set_xlim(0, PERIODS * (WORK + lat) + small * WORK)
    fig.suptitle(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
