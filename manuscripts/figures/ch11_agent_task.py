"""The first turns of one coding agent's task (@sec-scheduling-environments-agent-task: Qwen3-8B
on one H100 shared by a batch of such sessions): each turn a prefill of the new tokens and a
decode of the tool call on the GPU, then the tool in the sandbox; the session's KV cache stays
in HBM throughout. Times to scale from `agents.agent_task` with the chapter's inputs (a test
holds them equal); the prefills are slivers next to the decode and the tools."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import agents, hardware, models, queueing

SIZE = (6.4, 2.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('agt_turns', 'agt_tool_s', 'agt_batch', 'agt_wall', 'agt_tool_share', 'agt_gpu',
         'agt_sandbox', 'agt_final_ctx')
TURNS, FIRST, GEN, TOOL_OUT, TOOL_S, BATCH = 20, 4000, 300, 1200, 8, 8   # the chapter's agt_*
SHOWN = 3           # turns drawn


def task():
    return agents.agent_task(models.get("qwen3-8b"), hardware.get("h100"), TURNS, FIRST, GEN,
                             TOOL_OUT, TOOL_S, batch=BATCH,
                             compute_eff=queueing.h100_prefill_eff())


def schedule():
    a = task()
    bars, at = [], 0.0
    for i in range(SHOWN):
        p, d = a.turn_prefill_s[i], a.turn_decode_s[i]
        bars += [(0, at, at + p, 0, ""), (0, at + p, at + p + d, 1, ""),
                 (1, at + p + d, at + p + d + TOOL_S, 5, "")]
        at += p + d + TOOL_S
    bars.append((2, 0, at, 2, ""))
    return timeline(3, bars), a


def numbers(t):
    a = task()
    return {
        "turns": t.num(TURNS, "int", name="agt_turns"),
        "tool": t.num(TOOL_S, "int", name="agt_tool_s"),
        "batch": t.num(BATCH, "int", name="agt_batch"),
        "wall": t.num(a.wall_s, "si unit=s digits=0", name="agt_wall"),
        "share": t.num(a.tool_total_s / a.wall_s, "pct digits=0", name="agt_tool_share"),
        "gpu": t.num(a.gpu_s, "num digits=1", name="agt_gpu"),
        "sandbox": t.num(a.sandbox_s, "num digits=0", name="agt_sandbox"),
        "ctx": t.num(a.final_ctx, "int", name="agt_final_ctx"),
        "shown": t.num(SHOWN, "int"),
    }


def draw(fig, t):
    tl, _ = schedule()
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["gpu_row"], t["sandbox_row"], t["kv_row"]],
                  {0: t["prefill"], 1: t["decode"].format(**v), 5: t["tool"].format(**v),
                   2: t["kv"]}, t["time"], bar_height=0.6)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
