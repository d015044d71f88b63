"""Concurrent KV cache of a chat service against request rate (Little's law), two prompt lengths."""
from calculations import formulas, hardware, models

SIZE = (6.4, 3.8)
MODEL, DEVICE = "qwen3-8b", "h100"
PROMPTS = (2000, 8000)
OUTPUT_TOKENS = 500
TTFT_S, TPOT_S = 0.5, 0.05
GPU_LINES = (1, 8)


def draw(fig, t):
    m = models.get(MODEL)
    h = hardware.get(DEVICE)
    kv_per_token = formulas.kv_bytes_per_token(m, dtype="bf16")
    free = h.hbm_bytes - formulas.nbytes(m.params_total, "bf16")
    residence = TTFT_S + OUTPUT_TOKENS * TPOT_S
    rates = [r / 2 for r in range(1, 101)]
    ax = fig.add_subplot()
    for p in PROMPTS:
        per_request = (p + OUTPUT_TOKENS // 2) * kv_per_token
        ax.plot(rates, [r * residence * per_request / 1e9 for r in rates], label=t["prompt"].format(n=p))
    for n, style in zip(GPU_LINES, ("--", ":")):
        ax.axhline(n * free / 1e9, color="gray", linestyle=style, linewidth=1)
        ax.annotate(t["gpus"].format(n=n), (rates[-1], n * free / 1e9), textcoords="offset points",
                    xytext=(-2, -11), ha="right", fontsize=8, color="dimgray")
    # A linear axis: Little's law makes the KV cache a straight line in the rate.
    ax.set_xlim(0, rates[-1])
    ax.set_ylim(0, None)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
