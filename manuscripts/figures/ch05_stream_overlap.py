"""Two streams (@sec-operators-runtime-streams, the KV offload example): Qwen3-8B's prefill of
4096 tokens on one stream and the copy of its KV cache to host memory over PCIe on another.
Serial, the copy starts after the whole prefill; split into chunks, chunk i's copy runs while
chunk i + 1 is computed, and only the last chunk's copy is left exposed
(`kernels.overlap_time`)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import formulas, kernels, models

SIZE = (6.4, 2.8)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("prefill_tokens", "pre_compute_s", "offload_s", "ov_serial", "ov_chunks", "ov_chunked")
TOKENS = 4096           # the chapter's prefill_tokens
PCIE_ONE_WAY = 64e9     # the chapter's pcie_one_way (PCIe Gen5 x16, one direction)
CHUNKS = 3              # the chapter's ov_chunks


def schedule():
    qwen = models.get("qwen3-8b")
    compute = formulas.forward(qwen, TOKENS, hw="h100").totals.compute_time_s
    copy = TOKENS * formulas.kv_bytes_per_token(qwen) / PCIE_ONE_WAY
    ms = 1e3
    bars = [(0, 0, compute * ms, "F", ""), (1, compute * ms, (compute + copy) * ms, "B", "")]
    c, x = compute / CHUNKS, copy / CHUNKS
    copy_end = 0.0
    for i in range(CHUNKS):
        bars.append((2, i * c * ms, (i + 1) * c * ms, "F", str(i + 1)))
        start = max((i + 1) * c, copy_end)            # chunk i's copy needs chunk i computed
        copy_end = start + x
        bars.append((3, start * ms, copy_end * ms, "B", ""))
    ov = kernels.overlap_time(compute, copy, CHUNKS)
    assert abs(copy_end - ov["overlapped_s"]) < 1e-12
    return timeline(4, bars), compute, copy, ov


def numbers(t):
    _, compute, copy, ov = schedule()
    return {"tokens": t.num(TOKENS, "int", name="prefill_tokens"),
            "compute": t.num(compute, "si unit=ms digits=1", name="pre_compute_s"),
            "copy": t.num(copy, "si unit=ms digits=1", name="offload_s"),
            "serial": t.num(ov["serial_s"], "si unit=ms digits=1", name="ov_serial"),
            "n": t.num(CHUNKS, "int", name="ov_chunks"),
            "chunked": t.num(ov["overlapped_s"], "si unit=ms digits=1", name="ov_chunked")}


def draw(fig, t):
    tl, *_ = schedule()
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["serial_compute"], t["serial_copy"], t["split_compute"].format(**v),
                           t["split_copy"].format(**v)],
                  {"F": t["compute"], "B": t["copy"]}, t["time"], fontsize=7)
    ax.axhline(1.5, color="#888888", lw=0.6, ls=":")
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
