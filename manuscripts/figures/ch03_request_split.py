"""Time split of one request into prefill and decode: chat, agent step, summarization."""
from calculations import formulas, hardware, models

SIZE = (7.2, 3.4)
MODEL, DEVICE = "qwen3-8b", "h100"
WORKLOADS = (("chat", 2000, 500), ("agent", 20000, 150), ("summary", 8000, 400))
BATCH = 16


def _split(m, h, prompt, output, batch):
    prefill = formulas.forward(m, prompt, hw=h).totals.roofline_time_s
    step = formulas.decode_step(m, batch=batch, context=prompt + output // 2, hw=h).time_s
    return prefill, output * step / batch


def draw(fig, t):
    m = models.get(MODEL)
    h = hardware.get(DEVICE)
    names = [t[k] for k, _, _ in WORKLOADS]
    for i, (batch, title) in enumerate(((1, t["left"]), (BATCH, t["right"].format(b=BATCH)))):
        ax = fig.add_subplot(1, 2, i + 1)
        rows = [_split(m, h, p, o, batch) for _, p, o in WORKLOADS]
        ys = list(range(len(rows)))
        pre = [r[0] for r in rows]
        dec = [r[1] for r in rows]
        ax.barh(ys, pre, color="#d95f02", label=t["prefill"])
        ax.barh(ys, dec, left=pre, color="#1b9e77", label=t["decode"])
        for y, a, b in zip(ys, pre, dec):
            ax.annotate(f"{a + b:.2f}", (a + b, y), textcoords="offset points", xytext=(3, -3), fontsize=8)
        ax.set_yticks(ys)
        ax.set_yticklabels(names if i == 0 else [])
        ax.invert_yaxis()
        ax.set_xlim(0, max(a + b for a, b in rows) * 1.25)
        ax.set_xlabel(t["x"])
        ax.set_title(title, fontsize=9)
        ax.grid(True, axis="x", alpha=0.3)
        if i == 1:
            ax.legend(fontsize=8, loc="lower right")
