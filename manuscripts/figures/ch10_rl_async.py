"""Asynchronous RL (@sec-training-systems-rl-async): Qwen3-8B on H100s, a rollout batch takes
`rl_rollout_s` on one GPU and a learner update `rl_learner_s` (the chapter's RL example);
`rl_gens` generator GPUs feed one learner, at most one policy version apart
(`rl_async.async_schedule`, staleness 1). Generator bars carry the version they sample with,
learner bars the version they publish. Times from the chapter's formulas."""
import math

from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import formulas, hardware, models, rl_async as RA

SIZE = (6.4, 2.5)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("rl_rollout_s", "rl_learner_s", "rl_gens", "rl_async1_span", "rl_async1_busy")
BATCH, PROMPT, RESPONSE, MFU = 64, 1024, 4096, 0.4   # the chapter's rl_batch, rl_prompt, rl_response, rl_mfu
BATCHES, STALENESS = 8, 1                            # the chapter's rl_batches, the drawn bound


def arithmetic():
    qwen, h100 = models.get("qwen3-8b"), hardware.get("h100")
    step = formulas.decode_step(qwen, batch=BATCH, context=PROMPT + RESPONSE // 2, hw="h100")
    rollout = RESPONSE * step.time_s
    learner = formulas.train_flops(qwen.params_active, BATCH * (PROMPT + RESPONSE)) / (
        h100.peak_flops("bf16") * MFU)
    gens = math.ceil(rollout / learner)
    return rollout, learner, gens, RA.async_schedule(rollout, learner, gens, BATCHES, STALENESS)


def numbers(t):
    rollout, learner, gens, s = arithmetic()
    return s, gens, {
        "roll": t.num(rollout, "si unit=s digits=0", name="rl_rollout_s"),
        "learn": t.num(learner, "si unit=s digits=1", name="rl_learner_s"),
        "gens": t.num(gens, "int", name="rl_gens"),
        "span": t.num(s["span_s"], "si unit=s digits=0", name="rl_async1_span"),
        "busy": t.num(s["learner_busy"], "pct digits=0", name="rl_async1_busy"),
        "n": t.num(BATCHES, "int", name="rl_batches"), "lag": t.num(STALENESS, "int"),
    }


def draw(fig, t):
    s, gens, v = numbers(t)
    bars = [(g, start, end, "F", t["v"].format(k=t.num(ver, "int")))
            for g, start, end, ver, _ in s["gen"]]
    bars += [(gens, start, end, "B", t["v"].format(k=t.num(ver, "int")))
             for start, end, _, ver in s["learn"]]
    rows = [t["gen"].format(i=i + 1) for i in range(gens)] + [t["learner"]]
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(gens + 1, bars), rows,
                  {"F": t["k_gen"], "B": t["k_learn"]}, t["time"], bar_height=0.6, fontsize=6.5)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    _, _, v = numbers(t)
    return t["alt"].format(**v)
