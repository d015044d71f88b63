"""The serving stack from a task to the hardware (@sec-getting-started, the four layers under
the task that makes the requests): task, router, scheduler, runtime, kernels, down to the GPU's HBM; beside each layer the unit it pays time in
and the chapter's numbers for Qwen3-8B on an H100 (`stack_*` cells)."""
from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text, widen
from calculations import formulas, hardware, kernels, models

SIZE = (6.4, 5.3)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('stack_request_budget', 'stack_step_budget', 'stack_kernels', 'stack_launch_each',
         'stack_gpu_time', 'h100_bw', 'stack_context', 'task_calls')
CONTEXT = 8192          # the chapter's stack_context
PREFILL = 8192          # the chapter's stack_prefill_tokens
BUDGET = 0.05           # the chapter's stack_budget_share
CALLS = 8               # the chapter's task_calls


def numbers(t):
    qwen, h100 = models.get("qwen3-8b"), hardware.get("h100")
    launch = kernels.decode_launch(qwen, h100, batch=1, context=CONTEXT)
    step = formulas.decode_step(qwen, batch=1, context=CONTEXT, hw=h100).time_s
    ttft = formulas.forward(qwen, tokens=PREFILL, hw=h100).totals.roofline_time_s
    return {
        "req_budget": t.num(BUDGET * ttft, "si unit=ms digits=1", name="stack_request_budget",
                            expr="stack_budget_share * stack_ttft"),
        "step_budget": t.num(BUDGET * step, "si unit=μs digits=0", name="stack_step_budget",
                             expr="stack_budget_share * stack_step"),
        "kernels": t.num(launch["kernels"], "int", name="stack_kernels",
                         expr="kernels.decode_launch(qwen, h100, 1, 8192)['kernels']"),
        "launch": t.num(kernels.LAUNCH_S_MEASURED, "si unit=μs digits=2",
                        name="stack_launch_each", expr="kernels.LAUNCH_S_MEASURED"),
        "gpu": t.num(launch["gpu_time_s"], "si unit=ms digits=2", name="stack_gpu_time"),
        "bw": t.num(h100.hbm_bandwidth, "si unit=TB/s digits=2", name="h100_bw",
                    expr="h100.hbm_bandwidth"),
        "ctx": t.num(CONTEXT, "int", name="stack_context"),
        "calls": t.num(CALLS, "int", name="task_calls"),
    }


def flow(t, v):
    layers = ["task", "router", "scheduler", "runtime", "kernels", "hbm"]
    items = [(k, t[k], t[f"{k}_note"].format(**v)) for k in layers]
    arrows = [(a, b, t[f"{a}_to"].format(**v)) for a, b in zip(layers, layers[1:])]
    return widen(stack_flow(items, arrows, gap=0.55), 4.6)


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    draw_flow(ax, flow(t, v), fontsize=7.5)
    ax.set_xlim(-1.4, 6.0)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
