"""Wave quantization (@sec-operators-runtime, the waves list): the output of Qwen3-8B's Q
projection for M = 1152 tokens cut into the chapter's tile_m x tile_n tiles, one per SM; the
first wave fills all of the H100's SMs, the second holds the few tiles left
(`kernels.waves`)."""
from bookkit.diagrams import tiles
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import kernels, models

SIZE = (6.4, 3.2)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('hidden', 'tile_m', 'tile_n', 'h100_sms', 'q1152_tiles', 'q1152_waves', 'q1152_last',
         'q1152_eff')
M = 1152                    # tokens: the chapter's second example
TILE_M, TILE_N = 128, 256   # the chapter's tile_m, tile_n


def numbers(t):
    hidden = models.get("qwen3-8b").hidden_size
    w = kernels.waves(M, hidden, TILE_M, TILE_N)
    return w, {
        "m": t.num(M, "int", name="waves_demo_m"), "n": t.num(hidden, "int", name="hidden"),
        "tm": t.num(TILE_M, "int", name="tile_m"), "tn": t.num(TILE_N, "int", name="tile_n"),
        "sms": t.num(w["sms"], "int", name="h100_sms"),
        "tiles": t.num(w["tiles"], "int", name="q1152_tiles"),
        "waves": t.num(w["waves"], "int", name="q1152_waves"),
        "last": t.num(w["last_wave_tiles"], "int", name="q1152_last"),
        "idle": t.num(w["slots"] - w["last_wave_tiles"], "int", name="waves_demo_idle"),
        "eff": t.num(w["efficiency"], "pct digits=0", name="q1152_eff",
                     expr="kernels.waves(1152, hidden, 128, 256)['efficiency']"),
    }


def draw(fig, t):
    w, v = numbers(t)
    cut = tiles(M, w["n"], TILE_M, TILE_N)
    assert len(cut) == w["tiles"]
    # tiles are handed to SMs in order; tile i runs in wave i // slots
    kinds = [i // w["slots"] for i in range(len(cut))]
    ax = fig.add_subplot()
    draw_tiles(ax, [(r / TILE_M, c / TILE_M, h / TILE_M, wd / TILE_M) for r, c, h, wd in cut],
               kinds, {0: t["wave1"].format(**v), 1: t["wave2"].format(**v)},
               labels=[str(i + 1) if k else "" for i, k in enumerate(kinds)], fontsize=5.5)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t)[1])
