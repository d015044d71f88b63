"""Expert-parallel placement with a hot expert (@sec-distributed-inference-imbalance): DeepSeek-V3's
`ds_experts` routed experts under the chapter's skewed loads (`skew`) placed on `gpus_prefill`
GPUs by the EPLB-style greedy rule of `D.place_experts`, without and with `red` redundant
experts: a column per GPU, its experts stacked by load, the hottest expert and its copies
hatched; the busiest GPU over the mean is the chapter's `bal0` and `bal32`."""
from calculations import distributed as D, models

from bookkit.diagrams.draw import add_cells, fill_of

SIZE = (6.4, 3.6)
INPUTS = ("gpus_prefill", "skew", "red")
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('ds_experts', 'gpus_prefill', 'skew', 'red', 'eplb_own', 'hot_share', 'bal0', 'bal32')


def assign(loads, gpus, redundant):
    """Which replica lands on which GPU: `D.place_experts`' greedy rule, repeated here because
    it returns only the GPU loads (the test below holds the two equal)."""
    n = len(loads)
    reps = [1] * n
    for _ in range(redundant):
        j = max(range(n), key=lambda i: loads[i] / reps[i])
        reps[j] += 1
    slots = -(-(n + redundant) // gpus)
    items = sorted(((loads[i] / reps[i], i) for i in range(n) for _ in range(reps[i])),
                   reverse=True)
    cols = [[] for _ in range(gpus)]
    load = [0.0] * gpus
    for w, i in items:
        g = min((g for g in range(gpus) if len(cols[g]) < slots), key=lambda g: load[g])
        cols[g].append((i, w))
        load[g] += w
    placed = D.place_experts(loads, gpus, redundant)
    assert all(abs(a - b) < 1e-9 for a, b in zip(load, placed["gpu_loads"])), "placement differs"
    return cols, placed["max_over_mean"], reps[0]


def numbers(t):
    gpus, skew, red = (t.inputs.get("gpus_prefill", 32), t.inputs.get("skew", 0.6),
                       t.inputs.get("red", 32))
    experts = models.get("deepseek-v3").num_experts
    loads = D.zipf_loads(experts, skew)
    plain, bal0, _ = assign(loads, gpus, 0)
    spread, bal, copies = assign(loads, gpus, red)
    return (plain, spread, sum(loads) / gpus), {
        "e": t.num(experts, "int", name="ds_experts"), "g": t.num(gpus, "int", name="gpus_prefill"),
        "skew": t.num(skew, "num digits=1", name="skew"),
        "red": t.num(red, "int", name="red"), "copies": t.num(copies, "int", name="hot_copies"),
        "own": t.num(experts // gpus, "int", name="eplb_own"),
        "hot": t.num(max(loads) / sum(loads), "pct digits=1", name="hot_share"),
        "bal0": t.num(bal0, "num digits=2", name="bal0",
                      expr="D.place_experts(loads, gpus_prefill, 0)['max_over_mean']"),
        "bal": t.num(bal, "num digits=3", name="bal32",
                     expr="D.place_experts(loads, gpus_prefill, red)['max_over_mean']"),
    }


def _panel(ax, cols, mean, label, t):
    # one collection per (fill, hatch), not a patch per expert: a panel has ~270 of them
    cells: dict = {}
    for g, col in enumerate(cols):
        y = 0.0
        for i, w in col:
            cells.setdefault(fill_of(1 if i == 0 else 0), []).append((g + 0.1, y, 0.8, w))
            y += w
    add_cells(ax, cells, lw=0.3)
    ax.plot([0, len(cols)], [mean, mean], color="#333333", ls="--", lw=0.8)
    ax.text(len(cols) + 0.3, mean, t["mean"], ha="left", va="center", fontsize=6.5)
    top = max(sum(w for _, w in col) for col in cols)
    ax.set_xlim(0, len(cols) + 2.8)
    ax.set_ylim(0, top * 1.12)
    ax.set_xticks([0.5, len(cols) - 0.5], ["1", str(len(cols))])
    ax.set_yticks([])
    ax.tick_params(axis="x", labelsize=6.5, length=0)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.set_title(label, fontsize=7.5, loc="left")


def draw(fig, t):
    from matplotlib.patches import Patch
    (plain, spread, mean), v = numbers(t)
    left, right = fig.subplots(1, 2, sharey=True)
    _panel(left, plain, mean, t["plain"].format(**v), t)
    _panel(right, spread, mean, t["spread"].format(**v), t)
    for ax in (left, right):
        ax.set_xlabel(t["gpu"], fontsize=7)
    handles = [Patch(facecolor=fill_of(1)[0], hatch=fill_of(1)[1], edgecolor="#333333",
                     label=t["hot_label"].format(**v)),
               Patch(facecolor=fill_of(0)[0], hatch=fill_of(0)[1], edgecolor="#333333",
                     label=t["other"])]
    fig.legend(handles=handles, fontsize=7, loc="lower center", ncol=2, frameon=False,
               bbox_to_anchor=(0.5, -0.01))
    fig.suptitle(t["title"].format(**v), fontsize=9)
    fig.subplots_adjust(bottom=0.22, top=0.82, wspace=0.35)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
