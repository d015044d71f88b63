"""Step-time breakdown and memory per GPU of Llama-3.1-70B on 1,024 H100s under several parallel
layouts (8192-token sequences, 512 sequences per step, ZeRO-1, selective recompute, compute at the
measured matmul efficiency of the H100)."""
from calculations import hardware, models, training as tr

SIZE = (6.6, 4.6)
MAMF_H100 = 794.5e12      # measured max achievable matmul BF16 FLOPS (stas00/ml-engineering)
LAYOUTS = [(8, 4, 32, 1), (8, 4, 32, 5), (4, 8, 32, 1), (8, 8, 16, 1), (8, 2, 64, 1), (8, 1, 128, 1)]


def draw(fig, t):
    m = models.get("llama-3.1-70b")
    h = hardware.get("h100")
    eff = MAMF_H100 / h.peak_flops("bf16")
    ax = fig.add_subplot()
    names, rows = [], []
    for tp, pp, dp, v in LAYOUTS:
        lo = tr.Layout(tp=tp, pp=pp, dp=dp, seq=8192, global_batch=512, virtual=v)
        st = tr.step_time(m, h, lo, compute_eff=eff)
        mem = tr.layout_memory(m, lo)["total_bytes"]
        names.append(f"TP{tp} PP{pp} DP{dp}" + (t["v"].format(v=v) if v > 1 else ""))
        rows.append((st["compute_s"], st["tp_exposed_s"], st["p2p_s"], st["bubble_s"], st["mfu"], mem / 1e9))
    ys = list(range(len(rows)))[::-1]
    parts = (("compute", "#4C72B0"), ("tp", "#DD8452"), ("p2p", "#8172B2"), ("bubble", "#C44E52"))
    left = [0.0] * len(rows)
    for i, (key, color) in enumerate(parts):
        vals = [r[i] for r in rows]
        ax.barh(ys, vals, left=left, color=color, height=0.6, label=t[key])
        left = [a + b for a, b in zip(left, vals)]
    for y, r, x in zip(ys, rows, left):
        ax.text(x + 0.05, y, t["mfu"].format(mfu=r[4], mem=r[5]), va="center", fontsize=7)
    ax.set_yticks(ys)
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xlim(0, max(left) * 1.55)
    ax.set_xlabel(t["x"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    fig.subplots_adjust(left=0.22, right=0.97, top=0.92, bottom=0.27)
