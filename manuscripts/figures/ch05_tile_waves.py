"""The chapter's tile what-if (@sec-operators-runtime-example-waves, `wi-tiles`): Qwen3-8B's Q
projection for the reader's token count M, its M x hidden output cut into the reader's
tile_m x tile_n tiles to scale, each tile filled by the wave it runs in on the H100's SMs (one
tile per SM; `kernels.waves`). Full waves are told apart, the last wave is marked with its idle
SMs. Follows the reader's token count and tile shape (`INPUTS`)."""
from bookkit.diagrams import tiles
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import hardware, kernels, models

SIZE = (6.4, 3.4)
INPUTS = ("wt_m", "wt_tile")
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("wt_m", "wt_tm", "wt_tn", "wt_n", "wt_tiles", "wt_waves", "wt_last", "wt_idle",
         "wt_eff", "wt_time_s")
LAST = 3        # the vocabulary's fill for the last wave; full waves take 0, 1, 2


def shape(t):
    m = t.inputs.get("wt_m", 1152)                  # drawn alone: the book's values
    tm, tn = (int(x) for x in t.inputs.get("wt_tile", "128x256").split("x"))
    n = models.get("qwen3-8b").hidden_size
    return m, n, tm, tn, kernels.waves(m, n, tm, tn)


def numbers(t):
    m, n, tm, tn, w = shape(t)
    h100 = hardware.get("h100")
    time_s = w["waves"] * 2 * tm * tn * n / (h100.peak_flops("bf16") / w["sms"])
    return {
        "m": t.num(m, "int", name="wt_m"), "n": t.num(n, "int", name="wt_n"),
        "tm": t.num(tm, "int", name="wt_tm"), "tn": t.num(tn, "int", name="wt_tn"),
        "sms": t.num(w["sms"], "int", name="h100_sms"),
        "tiles": t.num(w["tiles"], "int", name="wt_tiles"),
        "waves": t.num(w["waves"], "int", name="wt_waves"),
        "last": t.num(w["last_wave_tiles"], "int", name="wt_last"),
        "idle": t.num(w["slots"] - w["last_wave_tiles"], "int", name="wt_idle"),
        "eff": t.num(w["efficiency"], "pct digits=0", name="wt_eff"),
        "time": t.num(time_s, "si unit=μs digits=1", name="wt_time_s"),
    }


def draw(fig, t):
    m, n, tm, tn, w = shape(t)
    v = numbers(t)
    cut = tiles(m, n, tm, tn)
    assert len(cut) == w["tiles"] and w["waves"] - 1 <= LAST
    # tiles are handed to SMs in order; tile i runs in wave i // slots
    wave = [i // w["slots"] for i in range(len(cut))]
    kinds = [LAST if k == w["waves"] - 1 else k for k in wave]
    names = {k: t["full"].format(i=t.num(k + 1, "int")) for k in range(w["waves"] - 1)}
    names[LAST] = t["last"].format(**v)
    ax = fig.add_subplot()
    unit = min(tm, tn)
    draw_tiles(ax, [(r / unit, c / unit, h / unit, wd / unit) for r, c, h, wd in cut],
               kinds, names, fontsize=5)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
