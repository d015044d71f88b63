"""The square matmul of the chapter's what-if (@sec-accelerators-example, `wi-matmul`): the time
to compute 2n^3 FLOPs at the accelerator's BF16 peak and the time to move 3n^2 BF16 elements at
its HBM bandwidth, drawn as two overlapped bars from zero; the roofline bound is the longer one.
Follows the reader's accelerator and size (`INPUTS`), with the chapter's arithmetic."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import timeline
from calculations import formulas, hardware

SIZE = (6.4, 3.0)
INPUTS = ("mm_hw_id", "n")
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("n", "mm_compute_s", "mm_memory_s", "mm_time_s", "mm_intensity")


def times(t):
    hw = hardware.get(t.inputs.get("mm_hw_id", "h100"))     # drawn alone: the book's
    n = t.inputs.get("n", 4096)
    flops, nbytes = 2 * n ** 3, 3 * n * n * 2
    compute, memory = flops / hw.peak_flops("bf16"), nbytes / hw.hbm_bandwidth
    bound = formulas.roofline_time(flops, nbytes, hw, dtype="bf16")
    assert abs(bound[0] - max(compute, memory)) < 1e-12
    return hw, n, compute, memory, bound[0], flops / nbytes


def numbers(t):
    hw, n, compute, memory, bound, intensity = times(t)
    return {"hw": hw.name,          # a name, not a number: bound in the prose as mm_hw_name
            "n": t.num(n, "int", name="n"),
            "compute": t.num(compute, "si unit=μs digits=1", name="mm_compute_s"),
            "memory": t.num(memory, "si unit=μs digits=1", name="mm_memory_s"),
            "time": t.num(bound, "si unit=μs digits=1", name="mm_time_s"),
            "intensity": t.num(intensity, "num digits=0", name="mm_intensity")}


def draw(fig, t):
    _, _, compute, memory, bound, _ = times(t)
    v = numbers(t)
    us = 1e6
    tl = timeline(2, [(0, 0, compute * us, "F", v["compute"]), (1, 0, memory * us, "B", v["memory"])])
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["compute_row"], t["memory_row"]],
                  {"F": t["compute"], "B": t["memory"]}, t["time_axis"], bar_height=0.55)
    ax.axvline(bound * us, color="#333333", lw=0.9, ls="--")
    ax.set_xlim(0, bound * us * 1.25)
    ax.text(bound * us, 1.45, t["bound"].format(**v), ha="left", va="bottom", fontsize=7)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
