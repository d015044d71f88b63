"""Stragglers in synchronous training (@sec-training-systems-stragglers): 8 ranks over two
steps of Llama 3 405B (`llama3_step` of compute each on average). Step 1: each rank's compute
time is spread by the chapter's coefficient of variation (`strag_cv`), placed at the expected
order statistics of 8 normals; the all-reduce starts when the slowest arrives. Step 2: one
rank is throttled and runs `slow_gpu` slower; every other rank waits (blank). The all-reduce
is drawn at a fixed illustrative length. Computed with `calculations.training_extras`."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import formulas, models, training as tr, training_extras as tx

SIZE = (6.4, 3.0)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("strag_small", "strag_cv", "strag_tax_small", "slow_gpu", "llama3_step")
RANKS, CV, SLOW, SLOW_RANK = 8, 0.02, 0.2, 5      # the chapter's strag_small, strag_cv, slow_gpu
AR = 0.6                                          # the all-reduce drawn, in seconds (illustrative)


def step_s():
    run, llama = tr.LLAMA3_405B_RUN, models.get("llama-3.1-405b")
    return formulas.train_flops(llama.params_active, run["batch_tokens"]) / (
        run["gpus"] * run["tflops_per_gpu"] * 1e12)


def numbers(t):
    return {
        "n": t.num(RANKS, "int", name="strag_small"),
        "cv": t.num(CV, "pct digits=0", name="strag_cv"),
        "tax": t.num(CV * tx.expected_max_normal(RANKS), "pct digits=1", name="strag_tax_small",
                     expr="strag_cv * tx.expected_max_normal(strag_small)"),
        "slow": t.num(SLOW, "pct digits=0", name="slow_gpu"),
        "step": t.num(step_s(), "si unit=s digits=1", name="llama3_step"),
        "slow_rank": t.num(SLOW_RANK + 1, "int"), "others": t.num(RANKS - 1, "int"),
    }


def bars(t):
    mu = step_s()
    # a fixed rank order for the jitter (not sorted), so the slowest is not always the last row
    q = tx.rank_quantiles(RANKS)
    order = [3, 6, 0, 7, 2, 5, 1, 4]
    jitter = [q[order[r]] for r in range(RANKS)]
    out, start = [], 0.0
    for step, slow in ((1, False), (2, True)):
        ends = []
        for r in range(RANKS):
            d = mu * (1 + CV * jitter[r]) if not slow else mu * (1 + (SLOW if r == SLOW_RANK else 0))
            out.append((r, start, start + d, "F", t.num(step, "int") if r == 0 else ""))
            ends.append(start + d)
        sync = max(ends)
        out += [(r, sync, sync + AR, "B", "") for r in range(RANKS)]
        start = sync + AR
    return out


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(RANKS, bars(t)), [t["rank"].format(i=i + 1) for i in range(RANKS)],
                  {"F": t["compute"].format(**v), "B": t["allreduce"]}, t["time"],
                  bar_height=0.6, fontsize=6.5)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
