"""Asynchronous checkpointing (@sec-training-systems-async-checkpoint): Llama-3.1-405B on
16,384 H100s, one training step every `llama3_step`; a checkpoint is snapshotted from GPU to
host memory over PCIe (`snap_s`, the only time training stops) and uploaded to storage in the
background, overlapping the following steps: `ck_write` at Llama 3's 2 TB/s, `slow_write` at
100 GB/s. Times from `calculations.training` with the chapter's inputs (the Llama 3 run's
figures in `tr.LLAMA3_405B_RUN`)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import distributed as D, formulas, models, training as tr

SIZE = (6.4, 2.8)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("llama3_step", "ck_per_gpu", "snap_s", "ck_write", "slow_write", "slow_upload_steps")
SLOW_BW = 100e9                           # the chapter's slow_bw
STEPS = 11                                # training steps drawn; the checkpoint after step 1


def arithmetic():
    run, llama = tr.LLAMA3_405B_RUN, models.get("llama-3.1-405b")
    ck = tr.checkpoint_bytes(llama)
    per_gpu = ck / run["gpus"]
    step = formulas.train_flops(llama.params_active, run["batch_tokens"]) / (
        run["gpus"] * run["tflops_per_gpu"] * 1e12)
    snap = per_gpu / D.storage_tier("pcie-gen5-x16").bandwidth
    return {"step": step, "per_gpu": per_gpu, "snap": snap,
            "fast": tr.checkpoint_write_seconds(ck, run["storage_sustained_bytes_s"]),
            "slow": tr.checkpoint_write_seconds(ck, SLOW_BW), "gpus": run["gpus"],
            "fast_bw": run["storage_sustained_bytes_s"]}


def numbers(t):
    a = arithmetic()
    return {
        "step": t.num(a["step"], "si unit=s digits=1", name="llama3_step"),
        "per_gpu": t.num(a["per_gpu"], "si unit=MB digits=0", name="ck_per_gpu"),
        "snap": t.num(a["snap"], "si unit=ms digits=1", name="snap_s",
                      expr="ck_per_gpu / PCIe 5.0 x16 one direction"),
        "fast": t.num(a["fast"], "si unit=s digits=2", name="ck_write"),
        "slow": t.num(a["slow"], "si unit=s digits=0", name="slow_write"),
        "gpus": t.num(a["gpus"], "int"),
        "fast_bw": t.num(a["fast_bw"], "si unit=TB/s digits=0", name="ck_bw"),
        "slow_bw": t.num(SLOW_BW, "si unit=GB/s digits=0", name="slow_bw"),
        "slow_steps": t.num(a["slow"] / a["step"], "num digits=0", name="slow_upload_steps",
                            expr="slow_write / llama3_step"),
    }


def draw(fig, t):
    a = arithmetic()
    v = numbers(t)
    bars = []
    at = 0.0
    for k in range(STEPS):
        bars.append((0, at, at + a["step"], "F", t.num(k + 1, "int")))
        at += a["step"]
        if k == 0:                         # the snapshot: training waits, too short to see
            snap_at = at
            bars.append((1, at, at + a["snap"], "B", ""))
            at += a["snap"]
    start = snap_at + a["snap"]
    bars += [(2, start, start + a["fast"], "W", ""),
             (3, start, start + a["slow"], "W", t["upload_bar"].format(**v))]
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(4, bars), [t["gpu"], t["pcie"], t["fast_row"].format(**v),
                                          t["slow_row"].format(**v)],
                  {"F": t["train"].format(**v), "B": t["snapshot"], "W": t["upload"]},
                  t["time"], bar_height=0.6, fontsize=6.5)
    ax.axvline(snap_at, color="#555555", lw=0.8, ls="--")
    ax.text(snap_at + 0.3, 2, t["snap_note"].format(**v), ha="left", va="center", fontsize=7)
    ax.text(start + a["fast"] + 0.3, 1, v["fast"], ha="left", va="center", fontsize=7)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
