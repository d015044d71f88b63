"""Layer-wise preload of a cached prefix (@sec-distributed-inference-kv-tiers): a `hist`-token
DeepSeek-V3 conversation history whose KV (`hist_kv`) sits in host memory comes back to one
H100 over PCIe 5.0 (`lw_load`) while the `follow` new tokens are prefilled (`follow_s` at the
chapter's 50 % utilisation). Top two rows: load everything, then compute (`lw_serial`);
bottom two: layer i + 1's KV moves while layer i computes (`lw_layerwise`), one bar per layer.
Times from `calculations.kv_tiers.layerwise` with the chapter's inputs."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import distributed as D, formulas, hardware, kv_tiers as KT, models

SIZE = (6.4, 2.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("hist", "follow", "hist_kv", "lw_load", "follow_s", "lw_serial", "lw_layerwise",
         "lw_saved_share")
HIST, FOLLOW, MFU = 32768, 64, 0.5        # the chapter's hist, follow, mfu_prefill


def arithmetic():
    ds, h100 = models.get("deepseek-v3"), hardware.get("h100")
    kv = HIST * formulas.kv_bytes_per_token(ds, "bf16")
    compute = formulas.forward(ds, FOLLOW, context=HIST).totals.flops / (h100.peak_flops("fp8") * MFU)
    return kv, KT.layerwise(kv, compute, ds.num_layers, D.storage_tier("pcie-gen5-x16").bandwidth)


def numbers(t):
    kv, lw = arithmetic()
    return {
        "hist": t.num(HIST, "int", name="hist"), "follow": t.num(FOLLOW, "int", name="follow"),
        "kv": t.num(kv, "si unit=GB digits=2", name="hist_kv"),
        "load": t.num(lw["load_s"], "si unit=ms digits=0", name="lw_load"),
        "compute": t.num(lw["compute_s"], "si unit=ms digits=0", name="follow_s"),
        "serial": t.num(lw["serial_s"], "si unit=ms digits=0", name="lw_serial"),
        "layerwise": t.num(lw["layerwise_s"], "si unit=ms digits=0", name="lw_layerwise"),
        "saved": t.num(lw["saved_s"] / lw["serial_s"], "pct digits=0", name="lw_saved_share"),
        "mfu": t.num(MFU, "pct digits=0", name="mfu_prefill"),
    }


def draw(fig, t):
    kv, lw = arithmetic()
    v = numbers(t)
    ms = 1e3
    bars = [(0, 0.0, lw["load_s"] * ms, "W", t["load_bar"].format(**v)),
            (1, lw["load_s"] * ms, lw["serial_s"] * ms, "F", t["compute_bar"].format(**v))]
    for _, ls, le, cs, ce in lw["schedule"]:      # one bar per layer, unlabelled (61 of them)
        bars += [(2, ls * ms, le * ms, "W", ""), (3, cs * ms, ce * ms, "F", "")]
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(4, bars), [t["serial_pcie"], t["serial_gpu"], t["lw_pcie"],
                                          t["lw_gpu"]],
                  {"W": t["load"], "F": t["compute"].format(**v)}, t["time"], bar_height=0.6,
                  fontsize=6.5)
    ax.set_xlim(0, lw["serial_s"] * ms * 1.18)
    for row, end, key in ((1, lw["serial_s"], "serial"), (3, lw["layerwise_s"], "layerwise")):
        ax.text(end * ms + 1, 3 - row, t["total"].format(total=v[key]), ha="left",
                va="center", fontsize=7)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
