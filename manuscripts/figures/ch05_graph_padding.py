"""CUDA Graph buckets (@sec-operators-runtime-example-launch, the bucket paragraph): Qwen3-8B
decode on the H100, time to read the BF16 weights against the time to compute 2 x params FLOPs
per sequence, for the exact batch and for the batch padded to the next captured size (1, 2, 4
and multiples of 8, as in vLLM). Padding only adds arithmetic, hidden behind the weight read
until the batch reaches the ridge point. KV reads are left out."""
from calculations import formulas, hardware, models

SIZE = (6.4, 4.2)
ALIGN = 8


def padded(b):
    return b if b in (1, 2, 4) else -(-b // ALIGN) * ALIGN


def draw(fig, t):
    qwen, h100 = models.get("qwen3-8b"), hardware.get("h100")
    params = qwen.params_total
    read_ms = formulas.nbytes(params, "bf16") / h100.hbm_bandwidth * 1e3
    flop_ms = lambda b: 2 * params * b / h100.peak_flops("bf16") * 1e3     # noqa: E731
    bs = list(range(1, 401))
    ax = fig.add_subplot()
    ax.plot(bs, [read_ms] * len(bs), color="#888888", lw=1.4, ls="--", label=t["read"])
    ax.plot(bs, [flop_ms(b) for b in bs], color="#4C72B0", lw=1.4, label=t["exact"])
    ax.step(bs, [flop_ms(padded(b)) for b in bs], where="post", color="#C44E52", lw=1.2,
            label=t["padded"])
    ax.plot(bs, [max(read_ms, flop_ms(padded(b))) for b in bs], color="#55A868", lw=2.2,
            alpha=0.7, label=t["step"])
    ridge = h100.ridge_point("bf16")
    ax.axvline(ridge, color="#888888", lw=0.8, ls=":")
    ax.text(ridge * 1.02, read_ms * 0.25, t["ridge"].format(b=t.num(ridge, "num digits=0")),
            fontsize=7.5, ha="left")
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
