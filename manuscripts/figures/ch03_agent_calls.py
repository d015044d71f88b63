"""An agent task's calls with prefix caching (@sec-workloads-agents' trace): a row per call,
its context drawn to scale in tokens: what the prefix cache already holds (the earlier context,
the model's own earlier output included, its KV written while decoding), what this call must
prefill (the first call's starting context, then each tool's return) and what the model writes.
The counts and totals are the chapter's cells (`agent_*`), computed with the same formulas; the
task's shape is read from the chapter (`INPUTS`)."""
from bookkit.diagrams.draw import fill_of

SIZE = (6.4, 3.4)
INPUTS = ("agent_calls", "agent_base", "agent_model_out", "agent_tool_out")
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('agent_calls', 'agent_base', 'agent_model_out', 'agent_tool_out', 'agent_prefill_nocache',
         'agent_prefill_cache', 'agent_prefill_ratio', 'agent_hit_rate')
FIRST = 4           # calls drawn before the gap; the last call is drawn after it


def numbers(t):
    n = t.inputs.get("agent_calls", 20)               # drawn alone: the book's
    base = t.inputs.get("agent_base", 6000)
    m_out = t.inputs.get("agent_model_out", 250)
    tool = t.inputs.get("agent_tool_out", 1000)
    ctx = [base + k * (m_out + tool) for k in range(n)]
    nocache = sum(ctx)
    cache = base + (n - 1) * tool
    rows = [(k, ctx[k], ctx[k] - (base if k == 0 else tool), base if k == 0 else tool)
            for k in [*range(min(FIRST, n)), n - 1] if k < n]
    return (rows, m_out), {
        "n": t.num(n, "int", name="agent_calls"), "base": t.num(base, "int", name="agent_base"),
        "mout": t.num(m_out, "int", name="agent_model_out"),
        "tool": t.num(tool, "int", name="agent_tool_out"),
        "nocache": t.num(nocache, "int", name="agent_prefill_nocache", expr="sum(agent_ctx)"),
        "cache": t.num(cache, "int", name="agent_prefill_cache",
                       expr="agent_base + (agent_calls - 1) * agent_tool_out"),
        "ratio": t.num(nocache / cache, "num digits=1", name="agent_prefill_ratio"),
        "hit": t.num(1 - cache / nocache, "pct digits=1", name="agent_hit_rate"),
        "last": t.num(ctx[-1], "int", name="agent_ctx[-1]"),
    }, [t.num(c, "int", name=f"agent_ctx[{k}]") for k, c, _, _ in rows]


def draw(fig, t):
    from matplotlib.patches import Patch, Rectangle
    (rows, m_out), v, ctx_text = numbers(t)
    ax = fig.add_subplot()
    ax.set_axis_off()
    span = rows[-1][1] + m_out
    kinds = {"hit": 2, "new": 0, "out": 1}
    for i, ((k, ctx, hit, new), text) in enumerate(zip(rows, ctx_text)):
        y = -(i + (1 if i == len(rows) - 1 and len(rows) > FIRST else 0))   # a gap row
        for x0, w, kind in ((0, hit, "hit"), (hit, new, "new"), (ctx, m_out, "out")):
            if w:
                fill, hatch = fill_of(kinds[kind])
                ax.add_patch(Rectangle((x0, y - 0.3), w, 0.6, facecolor=fill, hatch=hatch,
                                       edgecolor="#333333", lw=0.5))
        ax.text(-0.01 * span, y, t["call"].format(k=k + 1), ha="right", va="center", fontsize=7)
        ax.text(ctx + m_out + 0.01 * span, y, t["ctx"].format(c=text), ha="left", va="center",
                fontsize=6.5)
    if len(rows) > FIRST:
        ax.text(0.02 * span, -FIRST, "⋮", ha="left", va="center", fontsize=9)
    handles = [Patch(facecolor=fill_of(kinds[k])[0], hatch=fill_of(kinds[k])[1],
                     edgecolor="#333333", label=t[k].format(**v)) for k in ("hit", "new", "out")]
    ax.legend(handles=handles, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, 0.02),
              ncol=3, frameon=False)
    ax.text(0.5, -0.2, t["totals"].format(**v), transform=ax.transAxes, ha="center",
            va="center", fontsize=7.5)
    ax.set_xlim(-0.16 * span, span * 1.2)
    ax.set_ylim(-len(rows) - 0.6, 0.6)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    _, v, _ = numbers(t)
    return t["alt"].format(**v)
