"""Where a decode step's time goes (@sec-getting-started-decode): every byte of the weights and
of the sequence's KV cache crosses from HBM to the SMs once per generated token, while the
tensor cores need only a sliver of that time for the step's arithmetic. Follows the chapter's
what-if `wi-decode` (model, accelerator, context: `INPUTS`); the numbers are the cells'
(`formulas.decode_step`, batch 1)."""
from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from calculations import formulas, hardware, models

SIZE = (6.4, 2.3)
INPUTS = ("decode_model_id", "decode_hw_id", "decode_context")
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("decode_weight_bytes", "decode_kv_bytes", "decode_bytes", "decode_bw", "decode_time",
         "decode_flops", "decode_compute_time", "decode_intensity", "decode_context")


def numbers(t):
    m = models.get(t.inputs.get("decode_model_id", "qwen3-8b"))     # drawn alone: the book's
    hw = hardware.get(t.inputs.get("decode_hw_id", "h100"))
    ctx = t.inputs.get("decode_context", 8192)
    d = formulas.decode_step(m, batch=1, context=ctx, hw=hw)
    gb = "si unit=GB digits=2"
    return {
        "model": m.name, "hw": hw.name,
        "ctx": t.num(ctx, "int", name="decode_context"),
        "w": t.num(d.weight_bytes, gb, name="decode_weight_bytes", expr="decode_1.weight_bytes"),
        "kv": t.num(d.kv_read_bytes, gb, name="decode_kv_bytes", expr="decode_1.kv_read_bytes"),
        "bytes": t.num(d.bytes, gb, name="decode_bytes", expr="decode_1.bytes"),
        "bw": t.num(hw.hbm_bandwidth, "si unit=TB/s digits=2", name="decode_bw",
                    expr="decode_hw.hbm_bandwidth"),
        "t": t.num(d.time_s, "si unit=ms digits=2", name="decode_time", expr="decode_1.time_s"),
        "flops": t.num(d.flops, "si unit=GFLOP digits=1", name="decode_flops",
                       expr="decode_1.flops"),
        "tc": t.num(d.compute_time_s, "si unit=μs digits=1", name="decode_compute_time",
                    expr="decode_1.compute_time_s"),
        "ai": t.num(d.intensity, "num digits=2", name="decode_intensity",
                    expr="decode_1.intensity"),
        "busy": t.num(d.compute_time_s / d.time_s, "pct digits=1",
                      expr="decode_compute_time / decode_time"),
    }


def draw(fig, t):
    v = numbers(t)
    items = [("hbm", t["hbm"], t["hbm_note"].format(**v)),
             ("sm", t["sm"], t["sm_note"].format(**v)),
             ("tc", t["tc"], t["tc_note"].format(**v))]
    w, gap = 3.4, 2.3
    ax = fig.add_subplot()
    draw_flow(ax, stack_flow(items, [("hbm", "sm", ""), ("sm", "tc", "")], horizontal=True,
                             gap=gap, width=w), fontsize=7)
    # arrow labels above their arrows, two lines each (the vocabulary's arrow label is one line)
    ax.text(w + gap / 2, 1.1, t["move"].format(**v), ha="center", va="bottom", fontsize=7)
    ax.text(2 * w + 1.5 * gap, 1.1, t["feed"].format(**v), ha="center", va="bottom", fontsize=7)
    ax.text(1.5 * w + gap, -0.45, t["verdict"].format(**v), ha="center", va="center", fontsize=7.5)
    ax.set_xlim(-0.2, 3 * w + 2 * gap + 0.2)
    ax.set_ylim(-0.8, 2.0)
    ax.set_title(t["title"].format(**v), fontsize=8.5)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
