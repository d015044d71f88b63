"""What torch.compile does to a PyTorch program (@sec-operators-runtime-compilers): TorchDynamo
captures the Python code as an operator graph (for Qwen3-8B, one layer holds the calculator's
operator rows), TorchInductor fuses elementwise and reduction operators and generates Triton
kernels (max-autotune also searches GEMM tiles), and mode="reduce-overhead" replays the result
as a CUDA graph. The gpt-fast measurement (A100, Llama-7B, batch 1) at the two ends."""
from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text, widen
from calculations import formulas, models

SIZE = (6.4, 4.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("rows_per_layer", "gptfast_eager", "gptfast_compiled", "gptfast_ratio")
EAGER, COMPILED = 25.5, 107.0      # the chapter's gptfast_eager, gptfast_compiled (tokens/s)


def numbers(t):
    qwen = models.get("qwen3-8b")
    fw = formulas.forward(qwen, 4096, hw="h100")
    rows = sum(1 for o in fw.operators if o.layers == qwen.num_layers)
    return {"rows": t.num(rows, "int", name="rows_per_layer"),
            "eager": t.num(EAGER, "num digits=1", name="gptfast_eager"),
            "compiled": t.num(COMPILED, "num digits=1", name="gptfast_compiled"),
            "ratio": t.num(COMPILED / EAGER, "num digits=1", name="gptfast_ratio")}


def draw(fig, t):
    v = numbers(t)
    flow = stack_flow([("py", t["py"], t["py_note"].format(**v)),
                       ("dynamo", t["dynamo"], t["dynamo_note"].format(**v)),
                       ("inductor", t["inductor"], t["inductor_note"]),
                       ("kernels", t["kernels"], t["kernels_note"]),
                       ("graph", t["graph"], t["graph_note"].format(**v))],
                      [("py", "dynamo", t["a1"]), ("dynamo", "inductor", t["a2"].format(**v)),
                       ("inductor", "kernels", t["a3"]), ("kernels", "graph", t["a4"])], gap=0.55)
    ax = fig.add_subplot()
    draw_flow(ax, widen(flow, 4.6), fontsize=7)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
