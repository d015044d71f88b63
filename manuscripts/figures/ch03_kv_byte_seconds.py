"""A request's KV cache times time (@sec-workloads-phases, `wi-phases`): the decode time cut
into columns, each column the tokens held in the cache during that slice (the prompt below, the
output written so far above), drawn to scale; the area is the byte-seconds of
@eq-workloads-kv-byte-seconds. Follows the reader's prompt and output lengths (`INPUTS`), with
the chapter's arithmetic (Qwen3-8B, BF16 KV, one H100, batch 64)."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import formulas, hardware, models

SIZE = (6.4, 3.2)
INPUTS = ("prompt_tokens", "output_tokens")
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("prompt_tokens", "output_tokens", "kvt_decode_s", "kvt_byte_s", "kvt_peak_bytes")
BATCH = 64              # the chapter's batch_big
COLUMNS = 10
HEIGHT = 5.0            # drawing units for prompt + output tokens


def values(t):
    m, gpu = models.get("qwen3-8b"), hardware.get("h100")
    p = t.inputs.get("prompt_tokens", 2000)
    n = t.inputs.get("output_tokens", 500)
    kv = formulas.kv_bytes_per_token(m, dtype="bf16")
    step = formulas.decode_step(m, batch=BATCH, context=p + n // 2, hw=gpu).time_s
    token_steps = n * p + n * (n - 1) // 2
    return p, n, n * step, kv * step * token_steps, (p + n) * kv


def numbers(t):
    p, n, decode_s, byte_s, peak = values(t)
    return {"p": t.num(p, "int", name="prompt_tokens"),
            "n": t.num(n, "int", name="output_tokens"),
            "decode": t.num(decode_s, "si unit=s digits=2", name="kvt_decode_s"),
            "bytes_s": t.num(byte_s, "si unit=GB digits=2", name="kvt_byte_s"),
            "peak": t.num(peak, "si unit=MB digits=0", name="kvt_peak_bytes")}


def draw(fig, t):
    p, n, _, _, _ = values(t)
    v = numbers(t)
    unit = (p + n) / HEIGHT                      # tokens per drawing unit
    width = 2 * HEIGHT / COLUMNS                 # the row of columns twice as wide as tall
    rows_top = HEIGHT                            # tiles are (row0, col0, height, width), row 0 on top
    tiles, kinds = [], []
    for j in range(COLUMNS):
        written = n * (j + 0.5) / COLUMNS        # output tokens held in the middle of slice j
        hp, ho = p / unit, written / unit
        tiles.append((rows_top - hp, j * width, hp, width))
        kinds.append(0)
        tiles.append((rows_top - hp - ho, j * width, ho, width))
        kinds.append(1)
    ax = fig.add_subplot()
    draw_tiles(ax, tiles, kinds, {0: t["prompt"].format(**v), 1: t["output"].format(**v)})
    ax.annotate("", xy=(COLUMNS * width, -HEIGHT - 0.35), xytext=(0, -HEIGHT - 0.35),
                arrowprops={"arrowstyle": "-|>", "color": "#333333", "lw": 0.9})
    ax.text(COLUMNS * width / 2, -HEIGHT - 0.45, t["time"].format(**v), ha="center", va="top",
            fontsize=7)
    ax.text(-0.15, -HEIGHT / 2, t["peak"].format(**v), ha="right", va="center", fontsize=7,
            rotation=90)
    ax.set_xlim(-0.8, COLUMNS * width + 0.2)
    ax.set_ylim(-HEIGHT - 1.1, 0.3)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
