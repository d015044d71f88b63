"""Copy-on-write in paged KV (@sec-inference-optimization-cow): cow_n answers sampled from one
cow_prompt-token prompt (the book's 1,000; the what-if wi-cow offers 300 and 5,000) share its full blocks (reference count cow_n); the last prompt block is
only partly filled, so the first cow_n - 1 answers to write their first token each copy it and
the last writes the original; then every answer appends blocks of its own
(`sampling.cow_fork`). Each row is one answer's block table after its first new token, to
scale in blocks except the shared run, which is drawn short."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import formulas, models, sampling

SIZE = (6.4, 2.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('cow_prompt', 'cow_n', 'cow_full', 'cow_part', 'cow_copies', 'cow_held', 'cow_unshared',
         'cow_saving', 'paged_block', 'cow_saved_bytes')
SAMPLES, BLOCK = 4, 16    # the chapter's cow_n, paged_block
INPUTS = ("cow_prompt",)  # the reader's choice of prompt length (wi-cow) redraws it
BOOK_PROMPT = 1000        # the chapter's cow_prompt when drawn alone
SHARED, ORIGINAL, COPY = 0, 1, 2


def numbers(t):
    PROMPT = t.inputs.get("cow_prompt", BOOK_PROMPT)
    c = sampling.cow_fork(PROMPT, SAMPLES, BLOCK)
    block_bytes = BLOCK * formulas.kv_bytes_per_token(models.get("qwen3-8b"), dtype="bf16")
    return c, {
        "prompt": t.num(PROMPT, "int", name="cow_prompt"), "n": t.num(SAMPLES, "int", name="cow_n"),
        "full": t.num(c["full_blocks"], "int", name="cow_full"),
        "part": t.num(c["partial_tokens"], "int", name="cow_part"),
        "copies": t.num(c["copies"], "int", name="cow_copies"),
        "held": t.num(c["blocks_held"], "int", name="cow_held"),
        "unshared": t.num(c["blocks_unshared"], "int", name="cow_unshared"),
        "saving": t.num(c["saving"], "pct digits=0", name="cow_saving"),
        "b": t.num(BLOCK, "int", name="paged_block"),
        "saved": t.num((c["blocks_unshared"] - c["blocks_held"]) * block_bytes,
                       "si unit=MB digits=0", name="cow_saved_bytes"),
    }


def draw(fig, t):
    c, v = numbers(t)
    cells, kinds, labels = [], [], []
    for s in range(SAMPLES):
        y = s * 1.25
        cells.append((y, 0, 1, 5))
        kinds.append(SHARED)
        labels.append(t["shared"].format(**v))
        last_writer = s == SAMPLES - 1
        cells.append((y, 5.3, 1, 3.0))
        kinds.append(ORIGINAL if last_writer else COPY)
        labels.append(t["original"].format(**v) if last_writer else t["copy"].format(**v))
    ax = fig.add_subplot()
    draw_tiles(ax, cells, kinds, {SHARED: t["k_shared"].format(**v),
                                  ORIGINAL: t["k_original"], COPY: t["k_copy"]},
               labels=labels, fontsize=7)
    for s in range(SAMPLES):
        ax.text(-0.15, -s * 1.25 - 0.5, t["answer"].format(i=s + 1), ha="right", va="center",
                fontsize=8)
    ax.set_xlim(-1.8, 8.6)
    ax.set_title(t["title"].format(**v), fontsize=8.5)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t)[1])
