"""One chat request's life on a timeline (@sec-workloads-latency), at the lower bound of
@eq-workloads-ttft-tpot: the prefill of `prompt_tokens` (its end is the first token, TTFT =
`ttft_q`; no queueing), then decode steps of `tpot_q` each at batch `batch_big`, one token
per step, until the last of `output_tokens` at `e2e_q`. Top: the first steps, zoomed, with
TTFT and TPOT marked; bottom: the whole request to scale. The values are the chapter's cells,
computed with the same calls (`INPUTS` reads the reader's prompt and output lengths)."""
from calculations import formulas, hardware, models

from bookkit.diagrams.draw import fill_of, text_on

SIZE = (6.4, 3.3)
INPUTS = ("prompt_tokens", "output_tokens")
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('prompt_tokens', 'output_tokens', 'batch_big', 'ttft_q', 'tpot_q', 'e2e_q')
BATCH = 64          # the chapter's batch_big (a test holds them equal)
SHOWN = 6           # decode steps drawn in the zoomed row


def numbers(t):
    prompt = t.inputs.get("prompt_tokens", 2000)          # drawn alone: the book's
    out = t.inputs.get("output_tokens", 500)
    m, gpu = models.get("qwen3-8b"), hardware.get("h100")
    ttft = formulas.forward(m, prompt, hw=gpu).totals.roofline_time_s
    tpot = formulas.decode_step(m, batch=BATCH, context=prompt + out // 2, hw=gpu).time_s
    e2e = ttft + (out - 1) * tpot
    return (ttft, tpot, e2e, out), {
        "prompt": t.num(prompt, "int", name="prompt_tokens"),
        "out": t.num(out, "int", name="output_tokens"),
        "batch": t.num(BATCH, "int", name="batch_big"),
        "ttft": t.num(ttft, "si unit=ms digits=1", name="ttft_q",
                      expr="formulas.forward(m, prompt_tokens).totals.roofline_time_s"),
        "tpot": t.num(tpot, "si unit=ms digits=1", name="tpot_q",
                      expr="formulas.decode_step(m, batch=batch_big, "
                           "context=prompt_tokens + output_tokens // 2).time_s"),
        "e2e": t.num(e2e, "si unit=s digits=2", name="e2e_q",
                     expr="ttft_q + (output_tokens - 1) * tpot_q"),
    }


def _bar(ax, x0, x1, y, kind, label, h=0.5, fontsize=6.5):
    from matplotlib.patches import Rectangle
    fill, hatch = fill_of(kind)
    ax.add_patch(Rectangle((x0, y - h / 2), x1 - x0, h, facecolor=fill, hatch=hatch,
                           edgecolor="#333333", lw=0.6))
    if label:
        text_on(ax, (x0 + x1) / 2, y, label, fill, ha="center", va="center", fontsize=fontsize)


def _span(ax, x0, x1, y, label, fontsize=7):
    """A double-headed arrow from x0 to x1 with its label above (a marked interval)."""
    ax.annotate("", (x0, y), (x1, y), arrowprops={"arrowstyle": "<->", "lw": 0.8,
                                                   "color": "#333333"})
    ax.text((x0 + x1) / 2, y + 0.12, label, ha="center", va="bottom", fontsize=fontsize)


def draw(fig, t):
    (ttft, tpot, e2e, out), v = numbers(t)
    top, bottom = fig.subplots(2, 1, gridspec_kw={"height_ratios": [1.6, 1]})
    ms = 1e3
    # zoomed: prefill, then SHOWN decode steps; each step ends with one token
    _bar(top, 0, ttft * ms, 0, 0, t["prefill"].format(**v))
    for k in range(SHOWN):
        x0 = (ttft + k * tpot) * ms
        _bar(top, x0, x0 + tpot * ms, 0, 1, str(k + 2))
    end = (ttft + SHOWN * tpot) * ms
    top.text(end + tpot * ms * 0.3, 0, "…", ha="left", va="center", fontsize=9)
    top.annotate(t["first"], (ttft * ms, -0.28), (ttft * ms, -0.75), ha="center", va="top",
                 fontsize=7, arrowprops={"arrowstyle": "->", "lw": 0.7, "color": "#333333"})
    _span(top, 0, ttft * ms, 0.45, t["ttft"].format(**v))
    x1 = (ttft + tpot) * ms
    _span(top, x1, x1 + tpot * ms, 0.45, t["tpot"].format(**v))
    top.set_xlim(-0.5, end + tpot * ms * 1.2)
    top.set_ylim(-1.1, 1.0)
    top.set_yticks([])
    top.set_xlabel(t["ms"], fontsize=7.5, labelpad=1)
    top.tick_params(axis="x", labelsize=7)
    # to scale: the whole request
    _bar(bottom, 0, ttft, 0, 0, "")
    _bar(bottom, ttft, e2e, 0, 1, t["decode"].format(**v))
    _span(bottom, 0, e2e, 0.35, t["e2e"].format(**v))
    bottom.set_xlim(-0.02 * e2e, e2e * 1.02)
    bottom.set_ylim(-0.45, 0.9)
    bottom.set_yticks([])
    bottom.set_xlabel(t["s"], fontsize=7.5, labelpad=1)
    bottom.tick_params(axis="x", labelsize=7)
    for ax in (top, bottom):
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
    top.set_title(t["title"].format(**v), fontsize=9)
    fig.subplots_adjust(hspace=0.75)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
