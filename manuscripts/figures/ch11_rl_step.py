"""One synchronous RL step on a timeline (@sec-scheduling-environments-retry): three tasks of a
group pass on attempt 1, 2 and 3 (each attempt `rt_attempt_s`, the agent task's wall time), the
early ones then wait for the slowest; the learner GPUs idle through the rollouts and update for
`rt_train_s` (the group's 6ND on `rt_learner_gpus` GPUs) after the last task ends."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import agents, formulas, hardware, models, queueing

SIZE = (6.4, 2.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('rt_attempt_s', 'rt_step_s', 'rt_mean_s', 'rt_train_s', 'rt_k', 'rt_group')
TURNS, FIRST, GEN, TOOL_OUT, TOOL_S, BATCH = 20, 4000, 300, 1200, 8, 8   # the chapter's agt_*
P, K, GROUP, LEARNERS, MFU = 0.6, 3, 64, 8, 0.4    # rt_p, rt_k, rt_group, rt_learner_gpus, rla_mfu


def times():
    qwen, h100 = models.get("qwen3-8b"), hardware.get("h100")
    a = agents.agent_task(qwen, h100, TURNS, FIRST, GEN, TOOL_OUT, TOOL_S, batch=BATCH,
                          compute_eff=queueing.h100_prefill_eff())
    exp = agents.retry_tree(P, K)["expected_attempts"]
    learner = formulas.train_flops(qwen.params_active, a.final_ctx) / (h100.peak_flops("bf16") * MFU)
    return a.wall_s, exp * a.wall_s, GROUP * learner / LEARNERS


def numbers(t):
    att, mean, train = times()
    s = "si unit=s digits=0"
    return {
        "att": t.num(att, s, name="rt_attempt_s"),
        "step": t.num(K * att, s, name="rt_step_s", expr="rt_k * rt_attempt_s"),
        "mean": t.num(mean, s, name="rt_mean_s", expr="rt_exp * rt_attempt_s"),
        "train": t.num(train, s, name="rt_train_s"),
        "k": t.num(K, "int", name="rt_k"),
        "group": t.num(GROUP, "int", name="rt_group"),
    }


def draw(fig, t):
    att, _, train = times()
    v = numbers(t)
    step = K * att
    bars = []
    for row, n in ((0, 1), (1, 2), (2, 3)):
        for i in range(n):
            bars.append((row, i * att, (i + 1) * att, i, str(i + 1)))
        if n * att < step:
            bars.append((row, n * att, step, 5, ""))
    bars += [(3, 0, step, 5, ""), (3, step, step + train, 3, "")]
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(4, bars),
                  [t["row"].format(n=t.num(n, "int")) for n in (1, 2, 3)] + [t["learner"]],
                  {0: t["a1"], 1: t["a2"], 2: t["a3"], 5: t["wait"], 3: t["train"]},
                  t["time"], bar_height=0.6)
    handles = ax.get_legend().legend_handles
    ax.legend(handles=handles, fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.3),
              ncol=3, frameon=False)
    ax.text(step + train + 15, 0, v["train"], va="center", fontsize=7)
    ax.set_xlim(0, step + train + 110)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
