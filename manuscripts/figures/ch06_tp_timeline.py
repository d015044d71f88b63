"""Tensor parallelism over 8 H100s in a Llama-3.1-70B decode step (@tbl-supernodes-dense): each
GPU holds 1/8 of every layer's weights and reads only that; after the attention and again
after the MLP the partial results are summed by an all-reduce every GPU waits for. Two of the
layers to scale, per-layer times from `scaleup.tp_decode` (no overlap, as the chapter
assumes)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import timeline
from calculations import models, scaleup

SIZE = (6.4, 3.0)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('tp_n', 'llama_layers', 'allreduces_per_token', 'h100_8_read', 'h100_8_work',
         'h100_8_comm', 'h100_8_time', 'h100_8_share')
N, CONTEXT, SHOWN = 8, 4096, 2     # the chapter's tp_n, dec_ctx; layers drawn


def step():
    llama = models.get("llama-3.1-70b")
    d = scaleup.tp_decode(llama, "h100", N, "nvlink4", 1, CONTEXT)
    layers = llama.num_layers
    attn, mlp = llama.attention_params(), llama.dense_mlp_params()
    work, ar = d.work_time_s / layers, d.comm_time_s / (2 * layers)
    # the layer's work split between attention and MLP by their weights (decode reads weights)
    wa, wm = work * attn / (attn + mlp), work * mlp / (attn + mlp)
    us, bars = 1e6, []
    for row in range(N):
        at = 0.0
        for _ in range(SHOWN):
            for kind, dt in (("F", wa), ("B", ar), ("W", wm), ("B", ar)):
                bars.append((row, at * us, (at + dt) * us, kind, ""))
                at += dt
    return timeline(N, bars), d, layers


def numbers(t):
    _, d, layers = step()
    return {
        "n": t.num(N, "int", name="tp_n"), "layers": t.num(layers, "int", name="llama_layers"),
        "shown": t.num(SHOWN, "int", name="tp_demo_layers"),
        "ars": t.num(2 * layers, "int", name="allreduces_per_token"),
        "read": t.num(d.weight_bytes_per_device, "si unit=GB digits=1", name="h100_8_read"),
        "work": t.num(d.work_time_s, "si unit=ms digits=2", name="h100_8_work"),
        "comm": t.num(d.comm_time_s, "si unit=ms digits=2", name="h100_8_comm"),
        "time": t.num(d.time_s, "si unit=ms digits=2", name="h100_8_time"),
        "share": t.num(d.comm_share, "pct digits=0", name="h100_8_share"),
        "ar": t.num(d.comm_time_s / (2 * layers), "si unit=μs digits=1", name="tp_demo_ar",
                    expr="h100_8_comm / allreduces_per_token"),
    }


def draw(fig, t):
    tl, _, _ = step()
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["gpu"].format(i=i + 1) for i in range(N)],
                  {"F": t["attn"], "W": t["mlp"], "B": t["allreduce"].format(**v)}, t["time_axis"],
                  bar_height=0.6, fontsize=6)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
