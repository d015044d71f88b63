"""What one token leaves in the KV cache of the first four layers under three designs
(@sec-model-architecture-kv-compare), widths to scale in values: GQA (Qwen3-8B: K and V of
H_kv heads per layer), GQA with cross-layer sharing (CLA, every two layers one K/V: the
block spans both layers), MLA (DeepSeek-V3: a latent of kv_lora_rank values plus the RoPE
key per layer). Per-token totals are the chapter's cells."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import formulas, models

SIZE = (6.4, 2.7)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("q8_kv_k_width", "ds_kv_lora", "ds_rope", "cmp_gqa_store", "cmp_cla_store",
         "cmp_mla_store", "cla_share")
LAYERS = 4              # layers drawn
UNIT = 64               # values per drawn column
CLA = 2                 # the chapter's cla_share


def numbers(t):
    q, ds = models.get("qwen3-8b"), models.get("deepseek-v3")
    kw = q.num_kv_heads * q.head_dim
    return q, ds, {
        "kw": t.num(kw, "int", name="q8_kv_k_width", expr="q8_kvh * q8_hd"),
        "lora": t.num(ds.kv_lora_rank, "int", name="ds_kv_lora", expr="ds.kv_lora_rank"),
        "rope": t.num(ds.qk_rope_head_dim, "int", name="ds_rope", expr="ds.qk_rope_head_dim"),
        "gqa": t.num(formulas.kv_bytes_per_token(q), "int", name="cmp_gqa_store",
                     expr="qwen8_kv_per_token"),
        "cla": t.num(formulas.kv_bytes_per_token(q) // CLA, "int", name="cmp_cla_store",
                     expr="qwen8_kv_cla"),
        "mla": t.num(formulas.kv_bytes_per_token(ds), "int", name="cmp_mla_store",
                     expr="ds_kv_per_token"),
        "c": t.num(CLA, "int", name="cla_share"),
    }


def panels(q, ds):
    kw = q.num_kv_heads * q.head_dim // UNIT
    lora, rope = ds.kv_lora_rank // UNIT, ds.qk_rope_head_dim // UNIT
    gqa = [(r, 0, 1, kw) for r in range(LAYERS)] + [(r, kw, 1, kw) for r in range(LAYERS)]
    gqa_k = ["k"] * LAYERS + ["v"] * LAYERS
    cla = [(r, 0, CLA, kw) for r in range(0, LAYERS, CLA)] + \
          [(r, kw, CLA, kw) for r in range(0, LAYERS, CLA)]
    cla_k = ["k"] * (LAYERS // CLA) + ["v"] * (LAYERS // CLA)
    mla = [(r, 0, 1, lora) for r in range(LAYERS)] + [(r, lora, 1, rope) for r in range(LAYERS)]
    mla_k = ["c"] * LAYERS + ["r"] * LAYERS
    return [("gqa", gqa, gqa_k), ("cla", cla, cla_k), ("mla", mla, mla_k)], 2 * kw


KINDS = {"k": 0, "v": 1, "c": 2, "r": 3}


def draw(fig, t):
    q, ds, v = numbers(t)
    ps, width = panels(q, ds)
    names = {0: t["k"], 1: t["v"], 2: t["c"].format(**v), 3: t["r"].format(**v)}
    for i, (key, tiles, kinds) in enumerate(ps):
        ax = fig.add_subplot(1, 3, i + 1)
        draw_tiles(ax, tiles, [KINDS[k] for k in kinds], names if i == 1 else {})
        ax.set_aspect("auto")
        ax.set_xlim(-0.5, width + 0.5)
        ax.set_ylim(-LAYERS - 0.2, 0.2)
        for r in range(LAYERS if i == 0 else 0):
            ax.text(-0.8, -r - 0.5, t["layer"].format(i=r + 1), ha="right", va="center",
                    fontsize=6.5)
        ax.set_title(t[key].format(**v), fontsize=7.5)
    fig.suptitle(t["title"].format(**v), fontsize=9)
    for ax in fig.axes:
        clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t)[2])
