"""Before an agent's sandbox is ready (@sec-scheduling-environments-snapshot): a cold start (the
Firecracker boot bound, then `snap_setup` seconds of cloning and installing), a restore of a
prepared snapshot (the guest memory image read back from local NVMe), or a sandbox taken from a
prewarmed pool. Times to scale from the chapter's inputs (a test holds them equal); the boot
and the restore are slivers next to the preparation, which is the point."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import queueing

SIZE = (6.4, 2.8)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('fc_boot', 'snap_setup', 'snap_restore', 'snap_cold', 'guest_mib', 'storage_bw')
SETUP, GUEST_MIB, STORAGE_BW = 60, 512, 5e9   # the chapter's snap_setup, guest_mib, storage_bw
WORK = 8            # the first tool call drawn after the sandbox is ready


def times():
    boot = queueing.FIRECRACKER_BOOT_S
    restore = GUEST_MIB * 2**20 / STORAGE_BW
    return boot, restore, boot + SETUP


def numbers(t):
    boot, restore, cold = times()
    return {
        "boot": t.num(boot, "si unit=ms digits=0", name="fc_boot"),
        "setup": t.num(SETUP, "si unit=s digits=0", name="snap_setup"),
        "restore": t.num(restore, "si unit=ms digits=0", name="snap_restore",
                         expr="guest_mib * 2**20 / storage_bw"),
        "cold": t.num(cold, "si unit=s digits=0", name="snap_cold"),
        "mib": t.num(GUEST_MIB, "int", name="guest_mib"),
        "bw": t.num(STORAGE_BW, "si unit=GB/s digits=0", name="storage_bw"),
    }


def draw(fig, t):
    boot, restore, cold = times()
    v = numbers(t)
    tl = timeline(3, [
        (0, 0, boot, 1, ""), (0, boot, cold, 5, ""), (0, cold, cold + WORK, 0, ""),
        (1, 0, restore, 2, ""), (1, restore, restore + WORK, 0, ""),
        (2, 0, WORK, 0, ""),
    ])
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["cold_row"], t["snap_row"], t["pool_row"]],
                  {1: t["boot"].format(**v), 5: t["setup"].format(**v),
                   2: t["restore"].format(**v), 0: t["work"]}, t["time"], bar_height=0.55)
    handles = ax.get_legend().legend_handles     # long names: two columns, not one row
    ax.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.3),
              ncol=2, frameon=False)
    for y, at, label in ((2, cold, v["cold"]), (1, restore, v["restore"]), (0, 0, "0")):
        ax.text(at + WORK + 0.8, y, t["ready"].format(at=label), va="center", fontsize=7)
    ax.set_xlim(0, cold + WORK + 16)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
