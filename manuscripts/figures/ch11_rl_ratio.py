"""Around one generation GPU in agentic RL (@sec-scheduling-environments-agent-rl): `agt_batch`
sessions decode on the H100 with their KV in HBM; the other `rla_waiting` tasks of the
`rla_sandboxes` kept per GPU run tools in sandboxes, their KV (`rla_kv_wait`) offloaded to host
memory and copied back over PCIe (`rla_swap` each way) when the tool returns. Numbers from
the chapter's agent task (a test holds them equal to its cells)."""
import math

from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import arrows_both_ways, clear_under_text
from calculations import agents, hardware, models, queueing

SIZE = (6.4, 2.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('agt_batch', 'agt_kv_batch', 'rla_sandboxes', 'rla_waiting', 'rla_kv_wait', 'rla_swap')
TURNS, FIRST, GEN, TOOL_OUT, TOOL_S, BATCH = 20, 4000, 300, 1200, 8, 8   # the chapter's agt_*


def numbers(t):
    a = agents.agent_task(models.get("qwen3-8b"), hardware.get("h100"), TURNS, FIRST, GEN,
                          TOOL_OUT, TOOL_S, batch=BATCH, compute_eff=queueing.h100_prefill_eff())
    active = (a.decode_s + a.prefill_s) / a.wall_s
    sandboxes = math.ceil(BATCH / active)
    waiting = sandboxes - BATCH
    gb = "si unit=GB digits=0"
    return {
        "batch": t.num(BATCH, "int", name="agt_batch"),
        "kv_batch": t.num(BATCH * a.kv_peak_bytes, "si unit=GB digits=1", name="agt_kv_batch"),
        "sandboxes": t.num(sandboxes, "int", name="rla_sandboxes"),
        "waiting": t.num(waiting, "int", name="rla_waiting"),
        "kv_wait": t.num(waiting * a.kv_peak_bytes, gb, name="rla_kv_wait"),
        "swap": t.num(a.kv_peak_bytes / queueing.H100_PCIE_UNI, "si unit=ms digits=0",
                      name="rla_swap", expr="agt_kv / pcie_uni"),
    }


def draw(fig, t):
    v = numbers(t)
    w, gap = 2.6, 2.0
    items = [("sbx", t["sbx"], t["sbx_note"].format(**v)),
             ("gpu", t["gpu"], t["gpu_note"].format(**v)),
             ("host", t["host"], t["host_note"].format(**v))]
    ax = fig.add_subplot()
    draw_flow(ax, stack_flow(items, [], horizontal=True, gap=gap, width=w), fontsize=7)
    arrows_both_ways(ax, w + gap, w, t["call"], t["result"], y_out=0.7, y_back=0.3)
    arrows_both_ways(ax, 2 * w + gap, 2 * w + 2 * gap, t["offload"].format(**v),
                     t["copy_back"].format(**v), y_out=0.7, y_back=0.3)
    ax.text((3 * w + 2 * gap) / 2, -0.35, t["ratio"].format(**v), ha="center", va="top",
            fontsize=7.5)
    ax.set_xlim(-0.2, 3 * w + 2 * gap + 0.2)
    ax.set_ylim(-0.8, 1.4)
    ax.set_title(t["title"], fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
