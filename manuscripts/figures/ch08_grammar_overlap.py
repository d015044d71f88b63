"""Constrained decoding, scheduled two ways (@sec-inference-optimization-structured): Qwen3-8B on
one H100 at the batch of the chapter's Little's-law example (b_l sequences, step t_l); the CPU
computes one token mask per sequence (so_mask_t each, on so_cores cores). Serial: forward, then
masks, then the next forward. Overlapped: the next step's masks depend only on the sampled
token, so they run on the CPU while the GPU runs the next forward."""
import math

from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import hardware, models, serving

SIZE = (7.0, 2.9)
CELLS = ("t_l", "so_cpu", "so_serial", "so_batch", "so_cores_needed")
CONTEXT, SLO, USABLE = 2500, 0.05, 0.9          # the chapter's lt_ctx, tpot_slo, usable
MASK_S, CORES, STEPS = 1e-3, 16, 3               # the chapter's so_mask_t, so_cores
FWD, MASK = 0, 1


def values():
    lim = serving.batch_limits(models.get("qwen3-8b"), hardware.get("h100"), CONTEXT, SLO,
                               usable_fraction=USABLE)
    b, step = lim["max_batch"], lim["step_time_s"]
    cpu = b * MASK_S / CORES
    return {"b": b, "step": step, "cpu": cpu, "serial": step + cpu,
            "cores": math.ceil(b * MASK_S / step)}


def numbers(t):
    v = values()
    return {"b": t.num(v["b"], "int", name="so_batch"),
            "step": t.num(v["step"], "si unit=ms digits=1", name="t_l"),
            "cpu": t.num(v["cpu"], "si unit=ms digits=2", name="so_cpu"),
            "serial": t.num(v["serial"], "si unit=ms digits=1", name="so_serial"),
            "cores": t.num(v["cores"], "int", name="so_cores_needed"),
            "n": t.num(CORES, "int")}


def schedule():
    v = values()
    g, c = v["step"] * 1e3, v["cpu"] * 1e3        # drawn in ms
    bars = []
    for i in range(STEPS):                         # serial: rows 0 (GPU) and 1 (CPU)
        s = i * (g + c)
        bars += [(0, s, s + g, FWD, ""), (1, s + g, s + g + c, MASK, "")]
    for i in range(STEPS):                         # overlapped: rows 2 (GPU) and 3 (CPU)
        s = i * g
        bars += [(2, s, s + g, FWD, ""), (3, s, s + c, MASK, "")]
    return timeline(4, bars)


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, schedule(), [t["gpu_serial"], t["cpu_serial"], t["gpu_overlap"],
                                   t["cpu_overlap"]],
                  {FWD: t["k_fwd"].format(**v), MASK: t["k_mask"].format(**v)},
                  t["time_axis"], bar_height=0.6)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
