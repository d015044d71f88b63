"""Preemption by recomputation in paged KV (@sec-inference-optimization-cow): the pool is full,
so the latest sequence A gives up all its blocks; it waits to be scheduled again, then its
preempt_len tokens are prefilled again (preempt_recompute, in one mixed step that the other
sequences wait for too) and it decodes on. Step time is the chapter's t_at_mem (Qwen3-8B on an
H100 with memory full at ctx_a); the wait is drawn as WAIT steps (illustrative: it depends on
when blocks free up)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import formulas, hardware, models, serving

SIZE = (6.4, 2.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('t_at_mem', 'preempt_len', 'preempt_blocks', 'preempt_recompute', 'preempt_steps')
CTX, SLO, USABLE, LEN, BLOCK = 8192, 0.05, 0.9, 2000, 16   # ctx_a, tpot_slo, usable, preempt_len, paged_block
BEFORE, WAIT, AFTER = 4, 5, 4          # steps drawn before, while preempted, after
DECODE, STALL, REDO = 0, 5, 1


def times():
    m, h100 = models.get("qwen3-8b"), hardware.get("h100")
    step = serving.batch_limits(m, h100, CTX, SLO, usable_fraction=USABLE)["step_time_s"]
    redo = formulas.forward(m, LEN, hw=h100).totals.time_s
    return {"step": step, "redo": redo, "steps": redo / step, "blocks": -(-LEN // BLOCK)}


def step():
    d = times()
    ms, bars, at = 1e3, [], 0.0
    for _ in range(BEFORE):
        for row in (0, 1):
            bars.append((row, at * ms, (at + d["step"]) * ms, DECODE, ""))
        at += d["step"]
    stall = at
    for _ in range(WAIT):
        bars.append((1, at * ms, (at + d["step"]) * ms, DECODE, ""))
        at += d["step"]
    bars.append((0, stall * ms, at * ms, STALL, ""))
    # one mixed step: the others' decode and A's recompute together
    bars.append((0, at * ms, (at + d["redo"] + d["step"]) * ms, REDO, ""))
    bars.append((1, at * ms, (at + d["redo"] + d["step"]) * ms, REDO, ""))
    at += d["redo"] + d["step"]
    for _ in range(AFTER):
        for row in (0, 1):
            bars.append((row, at * ms, (at + d["step"]) * ms, DECODE, ""))
        at += d["step"]
    return timeline(2, bars), d


def numbers(t):
    d = times()
    return {
        "step": t.num(d["step"], "si unit=ms digits=1", name="t_at_mem"),
        "len": t.num(LEN, "int", name="preempt_len"),
        "blocks": t.num(d["blocks"], "int", name="preempt_blocks"),
        "redo": t.num(d["redo"], "si unit=ms digits=0", name="preempt_recompute"),
        "steps": t.num(d["steps"], "num digits=1", name="preempt_steps"),
    }


def draw(fig, t):
    tl, _ = step()
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["row_a"].format(**v), t["row_b"]],
                  {DECODE: t["k_decode"].format(**v), STALL: t["k_stall"].format(**v),
                   REDO: t["k_redo"].format(**v)}, t["time_axis"], bar_height=0.55)
    old = ax.get_legend()       # long labels: the vocabulary's one-row legend, laid out in two rows
    ax.legend(handles=old.legend_handles, labels=[x.get_text() for x in old.get_texts()],
              fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2, frameon=False)
    ax.set_title(t["title"].format(**v), fontsize=8.5)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
