"""The critical path of an agent task (@sec-workloads-agent-traces): the chapter's 20 calls
(Qwen3-8B, one H100, batch 1, prefix cache on), model and tool strictly alternating, against
the same tool calls issued 4 at a time in 5 rounds. Model times are the chapter's arithmetic
(prefill the new tokens over the cached context, then decode at batch 1); each tool call takes
the chapter's 5 s."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import timeline
from calculations import formulas, hardware, models

SIZE = (6.4, 3.0)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("agent_cp_seq", "agent_cp_par", "agent_par", "agent_rounds", "agent_gpu_share")
CALLS, BASE, MODEL_OUT, TOOL_OUT, TOOL_S, PAR = 20, 6000, 250, 1000, 5, 4


def model_s(qm, gpu, c_before, new_tokens, out_tokens, first):
    pre = formulas.forward(qm, c_before if first else new_tokens,
                           context=0 if first else c_before - new_tokens, hw=gpu).totals.roofline_time_s
    dec = out_tokens * formulas.decode_step(qm, batch=1, context=c_before + out_tokens // 2,
                                            hw=gpu).time_s
    return pre + dec


def schedules():
    qm, gpu = models.get("qwen3-8b"), hardware.get("h100")
    seq = [model_s(qm, gpu, BASE + k * (MODEL_OUT + TOOL_OUT), TOOL_OUT, MODEL_OUT, k == 0)
           for k in range(CALLS)]
    rounds = CALLS // PAR
    par = [model_s(qm, gpu, BASE + r * PAR * (MODEL_OUT + TOOL_OUT), PAR * TOOL_OUT,
                   PAR * MODEL_OUT, r == 0) for r in range(rounds)]
    return seq, par


def numbers(t):
    seq, par = schedules()
    total_seq = sum(seq) + CALLS * TOOL_S
    return {"seq": t.num(total_seq, "si unit=s digits=0", name="agent_cp_seq"),
            "par_total": t.num(sum(par) + len(par) * TOOL_S, "si unit=s digits=0", name="agent_cp_par"),
            "par": t.num(PAR, "int", name="agent_par"),
            "rounds": t.num(len(par), "int", name="agent_rounds"),
            "share": t.num(sum(seq) / total_seq, "pct digits=0", name="agent_gpu_share"),
            "calls": t.num(CALLS, "int"), "tool": t.num(TOOL_S, "int")}


def draw(fig, t):
    seq, par = schedules()
    v = numbers(t)
    bars, at = [], 0.0
    for m in seq:
        bars += [(0, at, at + m, "F", ""), (1, at + m, at + m + TOOL_S, 5, "")]
        at += m + TOOL_S
    at = 0.0
    for m in par:
        bars += [(2, at, at + m, "F", ""), (3, at + m, at + m + TOOL_S, 5, "")]
        at += m + TOOL_S
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(4, bars),
                  [t["seq_model"], t["seq_tool"], t["par_model"], t["par_tool"].format(**v)],
                  {"F": t["model"], 5: t["tool"].format(**v)}, t["time"], bar_height=0.6)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
