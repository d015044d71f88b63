"""One RL step on shared GPUs (@sec-workloads-rl-timeline): Qwen3-8B, the chapter's 64 H100s
generate the step's rollouts (most finish at the ideal wall time, the GPU holding the longest
answer at the straggler's time), then the new weights are pushed to the generators
(`training.weight_sync_seconds` over a 400 Gbit/s NIC), then the learner trains. Times are the
chapter's cells, recomputed here with the same functions."""
import math
from statistics import NormalDist

from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import timeline
from calculations import formulas, hardware, models, training as tr

SIZE = (6.4, 2.8)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("rl_gpus", "rl_roll_ideal_wall", "rl_straggler_wall", "rl_sync_s", "rl_train_wall",
         "rl_step_wall")
# the chapter's RL inputs (rl_prompts, rl_group, rl_prompt_len, rl_resp_mean, rl_gpus,
# rl_max_resp, rl_sigma) and serving inputs (usable HBM fraction, MFU)
PROMPTS, GROUP, PROMPT_LEN, RESP_MEAN, GPUS, MAX_RESP, SIGMA = 256, 16, 500, 4000, 64, 16384, 0.8
USABLE, MFU = 0.9, 0.4


def times():
    qm, gpu = models.get("qwen3-8b"), hardware.get("h100")
    peak = gpu.peak_flops("bf16")
    rollouts = PROMPTS * GROUP
    gen_tokens = rollouts * RESP_MEAN
    train_tokens = rollouts * (PROMPT_LEN + RESP_MEAN)
    train_gpu_s = (formulas.train_flops(qm.params_active, train_tokens)
                   + 2 * (2 * qm.params_active * train_tokens)) / (peak * MFU)
    plan = formulas.memory_plan(qm, gpu, context=PROMPT_LEN + RESP_MEAN, usable_fraction=USABLE)
    step = formulas.decode_step(qm, batch=plan.max_batch, context=PROMPT_LEN + RESP_MEAN // 2,
                                hw=gpu)
    ideal = gen_tokens / step.tokens_per_s / GPUS
    longest = min(MAX_RESP, RESP_MEAN * math.exp(-SIGMA ** 2 / 2)
                  * math.exp(NormalDist().inv_cdf(1 - 1 / rollouts) * SIGMA))
    tail = formulas.decode_step(qm, batch=1, context=PROMPT_LEN + longest, hw=gpu).time_s
    straggler = longest * tail
    sync = tr.weight_sync_seconds(qm.params_total, tr.NIC_400G)
    train = train_gpu_s / GPUS
    return ideal, straggler, sync, train


def numbers(t):
    ideal, straggler, sync, train = times()
    return {"gpus": t.num(GPUS, "int", name="rl_gpus"),
            "ideal": t.num(ideal, "si unit=s digits=0", name="rl_roll_ideal_wall"),
            "straggler": t.num(straggler, "si unit=s digits=0", name="rl_straggler_wall"),
            "sync": t.num(sync, "si unit=s digits=2", name="rl_sync_s"),
            "train": t.num(train, "si unit=s digits=0", name="rl_train_wall"),
            "step": t.num(straggler + sync + train, "si unit=s digits=0", name="rl_step_wall")}


def draw(fig, t):
    ideal, straggler, sync, train = times()
    v = numbers(t)
    rows = [t["gpu_long"].format(**v), t["gpu"].format(i=2), t["gpu"].format(i=3),
            t["gpu"].format(i=GPUS)]
    bars = []
    for r in range(len(rows)):
        end = straggler if r == 0 else ideal
        bars.append((r, 0, end, "F", ""))
        if r:
            bars.append((r, ideal, straggler, 5, ""))
        bars.append((r, straggler, straggler + sync, "W", ""))
        bars.append((r, straggler + sync, straggler + sync + train, "B", ""))
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(len(rows), bars), rows,
                  {"F": t["rollout"], 5: t["wait"], "W": t["sync"].format(**v),
                   "B": t["train"]}, t["time"], bar_height=0.6)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
