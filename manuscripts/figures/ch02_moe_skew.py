"""Uniform vs concentrated MoE routing (@sec-model-architecture-shared): DeepSeek-V3's routed
experts of one MoE layer as a grid, for one decode step of a batch of 64 tokens. Uniform
routing gives every expert the same expected load; the chapter's assumed skew sends
`skew_share` of the routes to `skew_hot` experts, which barely changes how many experts are read
(`ds_touch_b64` vs `skew_touch_b64`) but doubles the hot experts' load (`skew_*` cells)."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import models

SIZE = (6.4, 3.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("ds_e", "skew_hot", "skew_share", "skew_mean_load_b64", "skew_hot_load_b64",
         "ds_touch_b64", "skew_touch_b64")
BATCH = 64              # the batch of the chapter's *_b64 cells
HOT, SHARE = 32, 0.25   # the chapter's skew_hot, skew_share (an assumption, stated there)
SIDE = 16               # 16 x 16 = 256 experts


def numbers(t):
    ds = models.get("deepseek-v3")
    e, k, shared = ds.num_experts, ds.experts_per_token, ds.num_shared_experts
    assert e == SIDE * SIDE
    p_hot, p_cold = k * SHARE / HOT, k * (1 - SHARE) / (e - HOT)
    uniform = e * (1 - (1 - k / e) ** BATCH) + shared
    skewed = (HOT * (1 - (1 - p_hot) ** BATCH) + (e - HOT) * (1 - (1 - p_cold) ** BATCH)
              + shared)
    return {
        "e": t.num(e, "int", name="ds_e"),
        "b": t.num(BATCH, "int"),
        "hot": t.num(HOT, "int", name="skew_hot"),
        "share": t.num(SHARE, "pct digits=0", name="skew_share"),
        "mean": t.num(BATCH * k / e, "num digits=0", name="skew_mean_load_b64",
                      expr="64 * ds_k / ds_e"),
        "hot_load": t.num(BATCH * k * SHARE / HOT, "num digits=0", name="skew_hot_load_b64",
                          expr="64 * ds_k * skew_share / skew_hot"),
        "cold_load": t.num(BATCH * k * (1 - SHARE) / (e - HOT), "num digits=1"),
        "touch_u": t.num(uniform, "num digits=1", name="ds_touch_b64",
                         expr="ds_e * (1 - (1 - ds_k / ds_e) ** 64) + ds_shared"),
        "touch_s": t.num(skewed, "num digits=1", name="skew_touch_b64"),
    }


def draw(fig, t):
    v = numbers(t)
    grid = [(r, c, 1, 1) for r in range(SIDE) for c in range(SIDE)]
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    draw_tiles(left, grid, [0] * len(grid), {0: t["k_uniform"].format(**v)})
    draw_tiles(right, grid, [1 if i < HOT else 2 for i in range(len(grid))],
               {1: t["k_hot"].format(**v), 2: t["k_cold"].format(**v)})
    for ax in (left, right):    # the vocabulary's legend is sized for one wide panel
        for text in ax.get_legend().get_texts():
            text.set_fontsize(7)
    left.set_title(t["uniform"].format(**v), fontsize=8)
    right.set_title(t["skewed"].format(**v), fontsize=8)
    fig.suptitle(t["title"].format(**v), fontsize=9)
    clear_under_text(left)


def describe(t):
    return t["alt"].format(**numbers(t))
