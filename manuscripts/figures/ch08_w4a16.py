"""W4A16 against BF16 for the linear layers of Qwen3-8B on one H100 (@sec-inference-optimization-
w4a16): speed-up against the batch size, with the weight read, the tensor-core multiply and the
CUDA-core dequantisation overlapped ideally (the chapter's lin_time), for a lean dequantisation
(4 operations per weight) and a clumsy one (16); vertical lines where each format turns
compute-bound."""
from calculations import hardware, models, serving

SIZE = (6.4, 3.4)
VEC_FLOPS = 67e12
OPS = ((4, "#4C72B0"), (16, "#DD8452"))
BATCHES = tuple(2 ** i for i in range(0, 10))


def draw(fig, t):
    m, h = models.get("qwen3-8b"), hardware.get("h100")
    bits = serving.quantized_decode(m, h, 1, 8192, "int4-g128", "bf16", 0.9)["bits_per_weight"]
    w4, peak, bw = bits / 8, h.peak_flops("bf16"), h.hbm_bandwidth

    def lin(b, by, ops=0):
        return max(by / bw, 2 * b / peak, ops / VEC_FLOPS)

    ax = fig.add_subplot()
    for ops, col in OPS:
        ax.plot(BATCHES, [lin(b, 2) / lin(b, w4, ops) for b in BATCHES], marker="o", ms=3,
                color=col, label=t["ops"].format(n=ops))
    for knee, ls, key in ((peak * w4 / (2 * bw), ":", "knee4"), (peak * 2 / (2 * bw), "--", "knee16")):
        ax.axvline(knee, color="grey", ls=ls, lw=0.9, label=t[key].format(b=round(knee)))
    ax.axhline(1.0, color="black", lw=0.7)
    ax.set_xscale("log", base=2)
    ax.set_xticks(BATCHES, [str(b) for b in BATCHES])
    ax.set_ylim(0, 4.3)
    ax.set_xlabel(t["x"], fontsize=8)
    ax.set_ylabel(t["y"], fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")
    ax.set_title(t["title"], fontsize=9)
