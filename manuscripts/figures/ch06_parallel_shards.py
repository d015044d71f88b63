"""Four ways to put Llama-3.1-70B on par_n = 4 H100s (@sec-supernodes-other-parallel): for each
GPU (a row) and each group of ten layers (a column), what it holds of the weights, and which
tokens it holds; the panel's title says what it stores and what moves between GPUs. The bytes
are the chapter's cells (`llama_weights`, `par_share`, `pp_act_bytes`, `cp_block_bytes`)."""
from matplotlib.patches import Patch

from bookkit.diagrams.draw import fill_of
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import formulas, models

SIZE = (6.4, 4.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('par_n', 'llama_weights', 'par_share', 'pp_act_bytes', 'cp_block_bytes', 'cp_chunk')
N = 4                  # the chapter's par_n
LONG_CTX = 131072      # the chapter's long_ctx
GROUPS = 8             # columns: 80 layers drawn in groups of 10
WHOLE, SLICE, TOK_ALL, TOK_PART = 0, 1, 2, 3


def numbers(t):
    llama = models.get("llama-3.1-70b")
    weights = formulas.nbytes(llama.params_total, "bf16")
    chunk = LONG_CTX // N
    kv_layer = formulas.kv_bytes_per_token(llama, dtype="bf16") // llama.num_layers
    return {
        "n": t.num(N, "int", name="par_n"),
        "full": t.num(weights, "si unit=GB digits=0", name="llama_weights"),
        "share": t.num(weights / N, "si unit=GB digits=1", name="par_share"),
        "act": t.num(llama.hidden_size * 2, "int", name="pp_act_bytes"),
        "blk": t.num(chunk * kv_layer, "si unit=MB digits=0", name="cp_block_bytes"),
        "chunk": t.num(chunk, "int", name="cp_chunk"),
        "layers": t.num(llama.num_layers, "int", name="llama_layers"),
    }


def panel(scheme: str):
    """tiles and kinds of one scheme: GROUPS weight columns, a gap, one token column."""
    tl, kinds, labels = [], [], []
    for g in range(N):
        for c in range(GROUPS):
            if scheme == "pp":
                kind = WHOLE if c // (GROUPS // N) == g else "free"
            else:
                kind = SLICE if scheme == "tp" else WHOLE
            tl.append((g, c, 1, 1))
            kinds.append(kind)
            labels.append("")
        tl.append((g, GROUPS + 0.5, 1, 1.6))
        kinds.append(TOK_PART if scheme == "cp" else TOK_ALL)
        labels.append("tok_part" if scheme == "cp" else "tok_all")
    return tl, kinds, labels


def draw(fig, t):
    v = numbers(t)
    for i, scheme in enumerate(("dp", "tp", "pp", "cp")):
        ax = fig.add_subplot(2, 2, i + 1)
        tl, kinds, labels = panel(scheme)
        words = [t[x].format(**v) if x else "" for x in labels]
        draw_tiles(ax, tl, kinds, {}, labels=words, fontsize=6)
        for g in range(N):
            ax.text(-0.2, -g - 0.5, t["gpu"].format(i=g + 1), ha="right", va="center", fontsize=6.5)
        ax.set_xlim(-1.6, GROUPS + 2.2)
        ax.set_title(t[scheme].format(**v) + "\n" + t[scheme + "_moves"].format(**v), fontsize=7.5)
    handles = [Patch(facecolor=fill_of(k)[0], hatch=fill_of(k)[1], edgecolor="#333333",
                     label=t[name].format(**v))
               for k, name in ((WHOLE, "k_whole"), (SLICE, "k_slice"), ("free", "k_free"),
                               (TOK_ALL, "k_tok_all"), (TOK_PART, "k_tok_part"))]
    fig.legend(handles=handles, fontsize=7, loc="lower center", ncol=3, frameon=False)
    fig.suptitle(t["title"].format(**v), fontsize=9)
    fig.subplots_adjust(bottom=0.16)
    for ax in fig.axes:
        clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
