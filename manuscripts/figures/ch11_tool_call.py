"""An agent's tool call and the session's KV cache (@sec-scheduling-environments-kv-hold, at
the chapter's default: Qwen3-8B, a `ctx`-token context, a `tool_s`-second tool, one H100): keep
the KV in HBM for the whole call, offload it over PCIe and copy it back when the tool returns,
or drop it and prefill the context again after the call. Times to scale from
`queueing.kv_hold`; the copies are slivers next to the tool's seconds, which is the point.
The figure sits in the what-if wi-kvhold: the reader's tool duration redraws it (`INPUTS`)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import hardware, models, queueing

SIZE = (6.4, 3.4)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('ctx', 'tool_s', 'kv_ctx', 'kv_share', 'hold_gpu_s', 'xfer_s', 'off_gpu_s', 'rec_s',
         'rec_gpu_s')
INPUTS = ("tool_s",)        # the what-if wi-kvhold: how long the tool runs
CTX, TOOL_S = 32768, 30     # the chapter's ctx and tool_s (its what-if's default)


def tool_of(t):
    return int(t.inputs.get("tool_s", TOOL_S))


def hold(tool=TOOL_S):
    return queueing.kv_hold(models.get("qwen3-8b"), hardware.get("h100"), CTX, tool,
                            compute_eff=queueing.h100_prefill_eff())


def schedule(tool=TOOL_S):
    k = hold(tool)
    x, r = k.transfer_s, k.recompute_s
    return timeline(4, [
        (0, 0, tool, 5, ""),
        (1, 0, tool, 0, ""),
        (2, 0, x, 1, ""), (2, x, tool, 2, ""), (2, tool, tool + x, 1, ""),
        (3, tool, tool + r, 3, ""),
    ]), k


def numbers(t):
    tool = tool_of(t)
    k = hold(tool)
    return {
        "ctx": t.num(CTX, "int", name="ctx"), "tool": t.num(tool, "int", name="tool_s"),
        "kv": t.num(k.kv_bytes, "si unit=GB digits=2", name="kv_ctx"),
        "share": t.num(k.share, "pct digits=1", name="kv_share"),
        "hold": t.num(k.hold_gpu_s, "num digits=2", name="hold_gpu_s"),
        "xfer": t.num(k.transfer_s, "si unit=ms digits=1", name="xfer_s"),
        "off": t.num(k.offload_gpu_s, "num digits=3", name="off_gpu_s"),
        "rec": t.num(k.recompute_s, "si unit=s digits=2", name="rec_s"),
        "rec_gpu": t.num(k.recompute_gpu_s, "num digits=2", name="rec_gpu_s"),
    }


def draw(fig, t):
    tl, _ = schedule(tool_of(t))
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["tool_row"], t["hold_row"], t["off_row"], t["rec_row"]],
                  {5: t["tool_bar"].format(**v), 0: t["in_hbm"].format(**v),
                   1: t["copy"].format(**v), 2: t["in_host"], 3: t["prefill"].format(**v)},
                  t["time"], bar_height=0.6)
    handles = ax.get_legend().legend_handles     # five kinds: two columns, not one row
    ax.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.28),
              ncol=2, frameon=False)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
