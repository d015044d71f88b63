"""The data path of a W4A16 kernel (@sec-inference-optimization-w4a16): 4-bit weights and their
group scales read from HBM, staged in shared memory, dequantised to BF16 in registers by the CUDA
cores, multiplied on the tensor cores. Each arrow carries what moves; the notes carry the
chapter's dequantisation budget (w4_dq_budget) and the batch where the tensor cores take over
(w4_b_knee), both from calculations.hardware and the INT4 format of calculations.serving."""
from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from calculations import hardware, models, serving

SIZE = (7.6, 2.3)
CELLS = ("w4_bytes", "w4_dq_budget", "w4_b_knee", "w4_dq_ops")
VEC_FLOPS = 67e12      # H100 SXM FP32 (non-tensor), the chapter's vec_flops
DQ_OPS = 4             # the chapter's w4_dq_ops
CONTEXT = 8192         # the chapter's q_ctx


def values():
    m, h = models.get("qwen3-8b"), hardware.get("h100")
    bits = serving.quantized_decode(m, h, 1, CONTEXT, "int4-g128", "bf16", 0.9)["bits_per_weight"]
    w_bytes = bits / 8
    return {"bytes": w_bytes, "budget": w_bytes / h.hbm_bandwidth * VEC_FLOPS,
            "knee": h.peak_flops("bf16") * w_bytes / (2 * h.hbm_bandwidth)}


def numbers(t):
    v = values()
    return {
        "bytes": t.num(v["bytes"], "num digits=3", name="w4_bytes"),
        "budget": t.num(v["budget"], "num digits=1", name="w4_dq_budget"),
        "knee": t.num(v["knee"], "num digits=0", name="w4_b_knee"),
        "ops": t.num(DQ_OPS, "int", name="w4_dq_ops"),
    }


def draw(fig, t):
    v = numbers(t)
    flow = stack_flow([("hbm", t["hbm"], t["hbm_note"].format(**v)),
                       ("smem", t["smem"], ""),
                       ("reg", t["reg"], t["reg_note"].format(**v)),
                       ("tc", t["tc"], t["tc_note"].format(**v))],
                      [("hbm", "smem", t["a_load"]), ("smem", "reg", t["a_int4"]),
                       ("reg", "tc", t["a_bf16"])],
                      horizontal=True, gap=1.3, width=2.9)
    ax = fig.add_subplot()
    draw_flow(ax, flow, fontsize=7)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
