"""An agent task as a trace of calls: context growth and prefill work with and without prefix caching."""
from calculations import formulas, hardware, models

SIZE = (7.2, 3.4)
MODEL, DEVICE = "qwen3-8b", "h100"
CALLS = 20          # model calls in one task
BASE = 6000         # system prompt + tool descriptions + task, tokens
MODEL_OUT = 250     # tokens the model writes per call
TOOL_OUT = 1000     # tokens a tool returns per call


def trace(m, h):
    """Per call k (1-based): context before the call, prefilled tokens and prefill seconds."""
    rows = []
    for k in range(CALLS):
        ctx = BASE + k * (MODEL_OUT + TOOL_OUT)
        full = formulas.forward(m, ctx, hw=h).totals.roofline_time_s
        new = BASE if k == 0 else TOOL_OUT
        inc = formulas.forward(m, new, context=ctx - new, hw=h).totals.roofline_time_s
        rows.append((k + 1, ctx, ctx, new, full, inc))
    return rows


def _cum(xs):
    out, s = [], 0.0
    for x in xs:
        s += x
        out.append(s)
    return out


def draw(fig, t):
    m = models.get(MODEL)
    h = hardware.get(DEVICE)
    rows = trace(m, h)
    ks = [r[0] for r in rows]
    ax = fig.add_subplot(1, 2, 1)
    ax.plot(ks, _cum(r[2] / 1e3 for r in rows), color="#d95f02", marker="o", ms=3, label=t["nocache"])
    ax.plot(ks, _cum(r[3] / 1e3 for r in rows), color="#1b9e77", marker="s", ms=3, label=t["cache"])
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["left"])
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    ax2 = fig.add_subplot(1, 2, 2)
    ax2.plot(ks, _cum(r[4] for r in rows), color="#d95f02", marker="o", ms=3, label=t["nocache"])
    ax2.plot(ks, _cum(r[5] for r in rows), color="#1b9e77", marker="s", ms=3, label=t["cache"])
    ax2.set_xlabel(t["x"])
    ax2.set_ylabel(t["right"])
    ax2.grid(True, alpha=0.3)
    ax2.legend(fontsize=7, loc="upper left")
    for a in (ax, ax2):
        a.set_xticks([1, 5, 10, 15, 20])
