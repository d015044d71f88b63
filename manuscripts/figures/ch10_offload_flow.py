"""CPU offload of the optimizer for Qwen3-8B on one H100 (@sec-training-systems-offload): the
GPU keeps the BF16 weights and gradients (`off_gpu`), host memory the FP32 master weights and
Adam moments (`off_cpu`); every step the gradients go down and the updated weights come up
over PCIe 5.0 (`bytes_g` bytes per parameter each way, `off_pcie_s`), and the CPU's AdamW
streams the state through DDR (`off_cpu_s` at `off_dram`); the step needs `off_tok_cpu` tokens
to hide it. The chapter's inputs, computed as its cell does."""
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import arrows_both_ways, clear_under_text
from bookkit.diagrams.flow import Box, Flow
from calculations import distributed as D, edge_compute as EC, formulas, hardware, models

SIZE = (6.4, 2.8)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("off_gpu", "off_cpu", "bytes_g", "off_pcie", "off_pcie_s", "off_dram", "off_cpu_s",
         "off_tok_cpu")
EFF = 0.5                                   # the chapter's off_eff


def numbers(t):
    bp = formulas.TRAIN_BYTES_PER_PARAM
    w, g = bp["weights"], bp["grads"]
    opt = bp["master"] + bp["adam_m"] + bp["adam_v"]
    params = models.get("qwen3-8b").params_total
    pcie = D.storage_tier("pcie-gen5-x16").bandwidth
    dram = EC.ddr_bandwidth(4800, 8)
    adam = 2 * (opt + g)
    peak = hardware.get("h100").peak_flops("bf16")
    return {
        "gpu": t.num(params * (w + g), "si unit=GB digits=1", name="off_gpu"),
        "cpu": t.num(params * opt, "si unit=GB digits=0", name="off_cpu"),
        "g": t.num(g, "int", name="bytes_g"),
        "pcie": t.num(pcie, "si unit=GB/s digits=0", name="off_pcie"),
        "pcie_s": t.num(params * g / pcie, "si unit=s digits=2", name="off_pcie_s"),
        "dram": t.num(dram, "si unit=GB/s digits=0", name="off_dram"),
        "cpu_s": t.num(params * adam / dram, "si unit=s digits=2", name="off_cpu_s"),
        "tok": t.num(adam * peak * EFF / (6 * dram), "num digits=0", name="off_tok_cpu"),
    }


def draw(fig, t):
    v = numbers(t)
    w, gap = 3.4, 3.6
    boxes = (Box("gpu", 0, 0, w, 1.8, t["gpu"], t["gpu_note"].format(**v)),
             Box("cpu", w + gap, 0, w, 1.8, t["cpu"], t["cpu_note"].format(**v)))
    ax = fig.add_subplot()
    draw_flow(ax, Flow(boxes, ()), fontsize=7.5)
    arrows_both_ways(ax, w, w + gap, t["down"].format(**v), t["up"].format(**v))
    ax.text(w + gap / 2, -0.55, t["note"].format(**v), ha="center", va="center", fontsize=7)
    ax.set_xlim(-0.2, 2 * w + gap + 0.2)
    ax.set_ylim(-1.1, 2.2)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
