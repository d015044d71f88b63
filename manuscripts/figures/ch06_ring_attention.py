"""Ring attention over par_n = 4 GPUs (@sec-supernodes-other-parallel): GPU i keeps query block
Q_i; at step s it holds KV block (i - s) mod n, computes Q_i against it and meanwhile passes it
to the next GPU. A cell is filled by the KV block it holds (one kind per block), so a block's
path around the ring is the diagonal of its colour. Per-layer bytes and times are the chapter's
cells for a long_ctx-token prefill of Llama-3.1-70B on H100s over NVLink 4."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import formulas, hardware, models, scaleup

SIZE = (6.4, 3.1)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('par_n', 'long_ctx', 'cp_chunk', 'cp_block_bytes', 'cp_block_comm', 'cp_block_compute',
         'cp_hide')
N = 4               # the chapter's par_n
LONG_CTX = 131072   # the chapter's long_ctx


def numbers(t):
    llama = models.get("llama-3.1-70b")
    chunk = LONG_CTX // N
    kv_layer = formulas.kv_bytes_per_token(llama, dtype="bf16") // llama.num_layers
    block = chunk * kv_layer
    comm = block / scaleup.link("nvlink4").unidirectional
    compute = 4 * chunk * chunk * llama.num_heads * llama.head_dim / hardware.get("h100").peak_flops("bf16")
    return {
        "n": t.num(N, "int", name="par_n"), "ctx": t.num(LONG_CTX, "int", name="long_ctx"),
        "chunk": t.num(chunk, "int", name="cp_chunk"),
        "blk": t.num(block, "si unit=MB digits=0", name="cp_block_bytes"),
        "comm": t.num(comm, "si unit=μs digits=0", name="cp_block_comm"),
        "compute": t.num(compute, "si unit=ms digits=2", name="cp_block_compute"),
        "hide": t.num(compute / comm, "num digits=0", name="cp_hide"),
    }


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    cells, kinds, labels = [], [], []
    for gpu in range(N):
        for s in range(N):
            j = (gpu - s) % N
            cells.append((gpu, s * 1.25, 1, 1))   # a gap between steps
            kinds.append(j)
            labels.append(f"Q{gpu + 1}·KV{j + 1}")
    draw_tiles(ax, cells, kinds, {j: t["kv"].format(j=j + 1) for j in range(N)}, labels=labels,
               fontsize=7)
    for gpu in range(N):
        ax.text(-0.15, -gpu - 0.5, t["gpu"].format(i=gpu + 1), ha="right", va="center", fontsize=7.5)
    for s in range(N):
        ax.text(s * 1.25 + 0.5, 0.15, t["step"].format(s=s + 1), ha="center", va="bottom", fontsize=7.5)
    ax.set_xlim(-1.3, N * 1.25)
    ax.set_ylim(-N - 0.1, 0.6)
    ax.set_title(t["title"].format(**v), fontsize=8.5)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
