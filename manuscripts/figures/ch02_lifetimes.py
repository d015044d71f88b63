"""Data classes by lifetime on one H100 serving Qwen3-8B (@sec-model-architecture-lifetimes):
the BF16 weights live through the whole window; each request's KV cache is born at its prefill,
grows one token per decode step and is freed at once when the request ends; the activations
live inside one step. The time axis is in decode steps (schematic: two overlapping requests of
a few steps each); the bytes are the chapter's cells (`lt_weights`, `req_kv_final`,
`lt_act_step`) for its request of `req_prompt` + `req_output` tokens."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import formulas, hardware, models

SIZE = (6.4, 2.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("lt_weights", "req_kv_final", "lt_act_step")
PROMPT, OUTPUT = 2048, 512      # the chapter's req_prompt, req_output
SPAN = 16                       # steps drawn
REQS = ((0, 9), (5, 15))        # (prefill step, last step) of the two requests drawn
ACT_W = 0.45                    # an activation bar's width within its step


def numbers(t):
    m, gpu = models.get("qwen3-8b"), hardware.get("h100")
    step = formulas.forward(m, tokens=1, batch=1, context=PROMPT, hw=gpu).totals
    return {
        "w": t.num(m.params_total * 2, "si unit=GB digits=2", name="lt_weights",
                   expr="qwen8.params_total * bytes_bf16"),
        "kv": t.num(formulas.kv_cache_bytes(m, tokens=PROMPT + OUTPUT), "si unit=MB digits=0",
                    name="req_kv_final",
                    expr="formulas.kv_cache_bytes(qwen8, tokens=req_prompt + req_output)"),
        "act": t.num(step.activation_read_bytes + step.activation_write_bytes,
                     "si unit=MB digits=1", name="lt_act_step",
                     expr="activation read + write bytes of the first decode step"),
    }


def draw(fig, t):
    v = numbers(t)
    bars = [(0, 0, SPAN, 0, t["w_bar"].format(**v))]
    for r, (start, end) in enumerate(REQS):
        bars.append((1 + r, start, start + 1, 1, ""))
        bars.append((1 + r, start + 1, end + 1, 2, t["grow"]))
    bars += [(3, i + (1 - ACT_W) / 2, i + (1 + ACT_W) / 2, 3, "") for i in range(SPAN)]
    ax = fig.add_subplot()
    rows = [t["weights"], t["kv_a"], t["kv_b"], t["acts"].format(**v)]
    draw_timeline(ax, timeline(4, bars), rows,
                  {0: t["k_weights"], 1: t["k_prefill"], 2: t["k_grow"], 3: t["k_act"]},
                  t["time"], bar_height=0.6)
    for r, (_, end) in enumerate(REQS):
        ax.annotate(t["freed"].format(**v), (end + 1, 2 - r), xytext=(3, 0),
                    textcoords="offset points", ha="left", va="center", fontsize=7)
    ax.set_xlim(0, SPAN + 3.2)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
