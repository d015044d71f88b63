"""Prefetch and exact resume (@sec-training-systems-data-resume): Llama 3 405B training steps
of `ld_step_s` each (the chapter's 6ND at Llama 3's 400 TFLOPS per GPU, 16M-token batches);
the loader keeps `ld_prefetch` batches ready ahead of the GPU (`ld_buffer` of host memory per
data-parallel group); at the checkpoint (dashed) the GPUs have consumed batch i while the
loader has read batch i + 2: the loader state saved (`ld_state` for the job) is the consumed
count, and the queued batches are read again after a restart."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import formulas, models, training as tr

SIZE = (6.4, 2.7)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("ld_step_s", "ld_prefetch", "ld_buffer", "ld_state")
PREFETCH, ID_BYTES, STEPS, CKPT = 2, 4, 5, 3   # the chapter's ld_prefetch, ld_id_bytes; steps drawn, checkpoint after step 3


def numbers(t):
    run, m = tr.LLAMA3_405B_RUN, models.get("llama-3.1-405b")
    step = formulas.train_flops(m.params_active, run["batch_tokens"]) / (
        run["gpus"] * run["tflops_per_gpu"] * 1e12)
    rank = run["batch_tokens"] * ID_BYTES / run["dp"]
    state = run["dp"] * (run["seq"] * ID_BYTES + 3 * 8)
    return step, {
        "step": t.num(step, "si unit=s digits=1", name="ld_step_s"),
        "k": t.num(PREFETCH, "int", name="ld_prefetch"),
        "buf": t.num(PREFETCH * rank, "si unit=MB digits=2", name="ld_buffer"),
        "state": t.num(state, "si unit=MB digits=2", name="ld_state"),
        "i": t.num(CKPT, "int"), "read": t.num(CKPT + PREFETCH, "int"),
    }


def draw(fig, t):
    step, v = numbers(t)
    bars = []
    for i in range(1, STEPS + 1):
        x0, x1 = (i - 1) * step, i * step
        bars.append((1, x0, x1, "F", t.num(i, "int")))
        queued = t["sep"].join(t.num(i + k, "int") for k in range(1, PREFETCH + 1))
        bars.append((0, x0, x1, "W", queued))
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(2, bars), [t["queue"].format(**v), t["gpu"]],
                  {"W": t["k_queue"], "F": t["k_gpu"]}, t["time"].format(**v), bar_height=0.6)
    ax.axvline(CKPT * step, color="#555555", lw=0.9, ls="--")
    ax.text(CKPT * step, 1.45, t["ckpt"].format(**v), ha="center", va="bottom", fontsize=7)
    ax.set_ylim(-0.6, 1.9)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
