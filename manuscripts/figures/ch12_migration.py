"""Moving a session from the laptop to the cloud H100 (@sec-device-edge-cloud-migration), two
ways: upload the token record (`mig_text`, `mig_up_text`) and prefill it there (`h100_pre`), or
upload the KV cache (`mig_kv`, `mig_up_kv`) over the same uplink. Numbers from the chapter's
inputs (a test holds them equal to its cells)."""
from matplotlib.patches import FancyArrowPatch

from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from calculations import device, formulas, models
from calculations.edge_example import BYTES_PER_TOKEN, CTX, RTT, UPLINK, example

SIZE = (6.4, 2.5)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('ctx', 'mig_text', 'mig_up_text', 'h100_pre', 'mig_cloud', 'mig_kv', 'mig_up_kv',
         'mig_ratio', 'uplink_slow')


def numbers(t):
    m = models.get("qwen3-8b")
    text = CTX * BYTES_PER_TOKEN
    kv = formulas.kv_cache_bytes(m, CTX, 1, "fp16")
    pre = example()["h100_pre"]
    up_text, up_kv = device.upload_time_s(text, UPLINK), device.upload_time_s(kv, UPLINK)
    ms = "si unit=ms digits=0"
    return {
        "ctx": t.num(CTX, "int", name="ctx"),
        "text": t.num(text, "si unit=kB digits=1", name="mig_text"),
        "up_text": t.num(up_text, ms, name="mig_up_text"),
        "pre": t.num(pre, ms, name="h100_pre"),
        "cloud": t.num(up_text + RTT + pre, ms, name="mig_cloud",
                       expr="mig_up_text + rtt + h100_pre"),
        "kv": t.num(kv, "si unit=MB digits=0", name="mig_kv"),
        "up_kv": t.num(up_kv, "si unit=s digits=0", name="mig_up_kv"),
        "ratio": t.num(kv / text, "num digits=0", name="mig_ratio"),
        "up": t.num(UPLINK, "si unit=Mbit/s digits=0", name="uplink_slow"),
    }


def draw(fig, t):
    v = numbers(t)
    w, gap = 1.9, 5.4
    items = [("laptop", t["laptop"], t["laptop_note"].format(**v)),
             ("cloud", t["cloud"], t["cloud_note"].format(**v))]
    ax = fig.add_subplot()
    draw_flow(ax, stack_flow(items, [], horizontal=True, gap=gap, width=w), fontsize=7)
    for y, key, va, dy in ((0.72, "text_path", "bottom", 0.08), (0.28, "kv_path", "top", -0.08)):
        ax.add_patch(FancyArrowPatch((w, y), (w + gap, y), arrowstyle="-|>", mutation_scale=10,
                                     color="#333333", lw=1.0))
        ax.text(w + gap / 2, y + dy, t[key].format(**v), ha="center", va=va, fontsize=7)
    ax.text(w + gap / 2, -0.35, t["ratio"].format(**v), ha="center", va="top", fontsize=7.5)
    ax.set_xlim(-0.2, 2 * w + gap + 0.2)
    ax.set_ylim(-0.8, 1.4)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
