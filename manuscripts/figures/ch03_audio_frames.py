"""The frame budget of real-time speech (@sec-workloads-audio): Mimi's 12.5 Hz frames (80 ms),
and in each frame one decode step of the temporal model for every stream on the card; the
number of streams is what the free HBM holds for 10-minute conversations (Qwen3-8B standing in
for the temporal model, BF16 KV, one H100), and the step time the chapter's roofline bound."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import timeline
from calculations import formulas, hardware, models

SIZE = (6.4, 2.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("au_frame_s", "au_streams", "au_step_s", "au_gpu_busy")
FRAME_HZ, CONV_S, FRAMES = 12.5, 600, 4


def values():
    qm, gpu = models.get("qwen3-8b"), hardware.get("h100")
    kv = formulas.kv_bytes_per_token(qm, dtype="bf16")
    free = gpu.hbm_bytes - formulas.nbytes(qm.params_total, "bf16")
    positions = CONV_S * FRAME_HZ
    streams = int(free // (positions * kv))
    step = formulas.decode_step(qm, batch=streams, context=int(positions // 2), hw=gpu).time_s
    return 1 / FRAME_HZ, streams, step


def numbers(t):
    frame, streams, step = values()
    return {"frame": t.num(frame, "si unit=ms digits=0", name="au_frame_s"),
            "streams": t.num(streams, "int", name="au_streams"),
            "step": t.num(step, "si unit=ms digits=1", name="au_step_s"),
            "busy": t.num(step / frame, "pct digits=0", name="au_gpu_busy")}


def draw(fig, t):
    frame, _, step = values()
    v = numbers(t)
    ms = 1e3
    bars = []
    for i in range(FRAMES):
        start = i * frame * ms
        bars.append((0, start, start + frame * ms, i % 2, t["frame_bar"].format(i=i + 1)))
        bars.append((1, start, start + step * ms, "F", ""))
        bars.append((1, start + step * ms, start + frame * ms, 5, ""))
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(2, bars), [t["frames"], t["gpu"].format(**v)],
                  {"F": t["step"].format(**v), 5: t["idle"]}, t["time"], bar_height=0.6)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
