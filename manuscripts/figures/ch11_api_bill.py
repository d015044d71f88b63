"""The API bill of the chapter's agent task (@sec-scheduling-environments-api-cost), in units
of one input token's base price, to scale: without caching every turn resends the whole
context at the base price; with prefix caching most input is billed as cache reads (0.1x),
each turn's new tokens once as cache writes (1.25x), the output unchanged (5x). The cached
column keeps the uncached one's height, so its empty part is the saving."""
from bookkit.diagrams import memory_map
from bookkit.diagrams.draw import draw_memory_map
from calculations import agents, hardware, models, queueing

SIZE = (6.4, 3.4)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('agt_in', 'agt_read_units', 'agt_write_units', 'agt_out_units', 'agt_bill_c',
         'agt_bill_nc', 'agt_bill_ratio')
TURNS, FIRST, GEN, TOOL_OUT, TOOL_S, BATCH = 20, 4000, 300, 1200, 8, 8   # the chapter's agt_*


def numbers(t):
    a = agents.agent_task(models.get("qwen3-8b"), hardware.get("h100"), TURNS, FIRST, GEN,
                          TOOL_OUT, TOOL_S, batch=BATCH, compute_eff=queueing.h100_prefill_eff())
    parts = {"in": a.input_tokens, "out": a.output_tokens * agents.OUTPUT_X,
             "read": a.cache_read_tokens * agents.CACHE_READ_X,
             "write": a.cache_write_tokens * agents.CACHE_WRITE_X}
    c, nc = agents.billed_units(a, True), agents.billed_units(a, False)
    d = "num digits=0"
    return parts, {
        "in": t.num(a.input_tokens, "int", name="agt_in"),
        "read": t.num(parts["read"], d, name="agt_read_units"),
        "write": t.num(parts["write"], d, name="agt_write_units"),
        "out": t.num(parts["out"], d, name="agt_out_units"),
        "bill_c": t.num(c, d, name="agt_bill_c"),
        "bill_nc": t.num(nc, d, name="agt_bill_nc"),
        "ratio": t.num(nc / c, "num digits=1", name="agt_bill_ratio"),
        "saved": t.num(nc - c, d, expr="agt_bill_nc - agt_bill_c"),
    }


def draw(fig, t):
    parts, v = numbers(t)
    total = parts["in"] + parts["out"]
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    # the output first in both columns, so it has the same fill and hatch in both
    draw_memory_map(left, memory_map(total, [("out", parts["out"]), ("in", parts["in"])]),
                    [t["output"].format(**v), t["input"].format(**v)], "", fontsize=7.5)
    left.set_title(t["nocache"].format(**v), fontsize=8.5)
    draw_memory_map(right, memory_map(total, [("out", parts["out"]), ("read", parts["read"]),
                                              ("write", parts["write"])]),
                    [t["output"].format(**v), t["read"].format(**v), t["write"].format(**v)],
                    t["saved"].format(**v), fontsize=7.5)
    right.set_title(t["cache"].format(**v), fontsize=8.5)
    fig.suptitle(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t)[1])
