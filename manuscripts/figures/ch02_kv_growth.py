"""What one response reads from the KV cache (@sec-model-architecture-request): Qwen3-8B with
a `req_prompt`-token prompt and `req_output` output tokens. Each strip is one decode step, as
long as the context it reads (the prompt's KV and the tokens generated so far, the new one
included); every step reads all of it again, so the response's KV traffic is the area of the
whole staircase, `req_decode_kv_read` (the cells sum `formulas.forward` step by step)."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import formulas, models

SIZE = (6.4, 2.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("req_prompt", "req_output", "req_kv_read_first", "req_kv_read_last",
         "req_decode_kv_read", "req_kv_final", "req_kv_read_vs_final")
PROMPT, OUTPUT = 2048, 512      # the chapter's req_prompt, req_output
ROW_H, GAP = 150, 70            # in tokens, so the strips read against their lengths


def steps():
    """Decode step i (0 .. OUTPUT-2) reads the KV of PROMPT + i + 1 tokens; the drawn steps."""
    last = OUTPUT - 2
    return [0, last // 4, last // 2, 3 * last // 4, last]


def numbers(t):
    per = formulas.kv_bytes_per_token(models.get("qwen3-8b"))
    total = per * sum(PROMPT + i + 1 for i in range(OUTPUT - 1))
    final = per * (PROMPT + OUTPUT)
    mb = "si unit=MB digits=0"
    return per, {
        "p": t.num(PROMPT, "int", name="req_prompt"),
        "o": t.num(OUTPUT, "int", name="req_output"),
        "first": t.num(per * (PROMPT + 1), mb, name="req_kv_read_first",
                       expr="req_decode_steps[0].totals.kv_read_bytes"),
        "last": t.num(per * (PROMPT + OUTPUT - 1), mb, name="req_kv_read_last",
                      expr="req_decode_steps[-1].totals.kv_read_bytes"),
        "total": t.num(total, "si unit=GB digits=1", name="req_decode_kv_read",
                       expr="sum(s.totals.kv_read_bytes for s in req_decode_steps)"),
        "final": t.num(final, mb, name="req_kv_final",
                       expr="formulas.kv_cache_bytes(qwen8, tokens=req_prompt + req_output)"),
        "ratio": t.num(total / final, "num digits=0", name="req_kv_read_vs_final",
                       expr="req_decode_kv_read / req_kv_final"),
    }


def draw(fig, t):
    per, v = numbers(t)
    tiles, kinds = [], []
    rows = steps()
    for r, i in enumerate(rows):
        y = r * (ROW_H + GAP)
        tiles += [(y, 0, ROW_H, PROMPT), (y, PROMPT, ROW_H, i + 1)]
        kinds += [0, 1]
    ax = fig.add_subplot()
    draw_tiles(ax, tiles, kinds, {0: t["k_prompt"].format(**v), 1: t["k_gen"]})
    ax.set_aspect("auto")
    for r, i in enumerate(rows):
        y = -r * (ROW_H + GAP) - ROW_H / 2
        ax.text(-40, y, t["step"].format(i=t.num(i + 1, "int")), ha="right", va="center",
                fontsize=7)
        ax.text(PROMPT + OUTPUT + 40, y,
                t["reads"].format(n=t.num(PROMPT + i + 1, "int"),
                                  mb=t.num(per * (PROMPT + i + 1), "si unit=MB digits=0")),
                ha="left", va="center", fontsize=7)
    ax.set_xlim(-700, PROMPT + OUTPUT + 900)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t)[1])
