"""Kernel launches against GPU work for one fused layer of a Qwen3-8B decode step
(@tbl-operators-runtime-layer-kernels): eager, the CPU submits each kernel (`launch_s`) and a
kernel starts once submitted and its predecessor done (`kernels.pipeline_time`); as a CUDA
graph, one launch and then the kernels back to back. Kernels shorter than a launch leave the
GPU waiting for the CPU."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import kernels, models

SIZE = (6.4, 2.9)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('k_layer_fused', 'layer_k_short', 'launch_s', 'graph_node_s', 'layer_k_time')
CONTEXT = 8192      # the chapter's launch_ctx


def schedule():
    qwen = models.get("qwen3-8b")
    fk = kernels.decode_kernels(qwen, context=CONTEXT, fusion="fused")
    k = (len(fk) - 3) // qwen.num_layers            # the chapter's k_layer_fused
    layer = fk[1 + k:1 + 2 * k]                       # the second layer, as the chapter's table
    launch, node = kernels.LAUNCH_S_MEASURED, kernels.GRAPH_NODE_S_MEASURED
    g = [max(x.time_s, node) for x in layer]
    us = 1e6
    bars, end = [], 0.0
    for i, gi in enumerate(g):
        bars.append((0, i * launch * us, (i + 1) * launch * us, "W", str(i + 1)))
        start = max((i + 1) * launch, end)
        end = start + gi
        bars.append((1, start * us, end * us, "F", str(i + 1) if gi * us > 1.6 else ""))
    assert abs(end - kernels.pipeline_time(g, launch)) < 1e-12
    bars.append((2, 0, launch * us, "B", ""))
    gend = launch
    for i, gi in enumerate(g):
        bars.append((3, gend * us, (gend + gi) * us, "F", str(i + 1) if gi * us > 1.6 else ""))
        gend += gi
    return timeline(4, bars), layer, end, gend


def numbers(t):
    _, layer, eager, graph = schedule()
    launch = kernels.LAUNCH_S_MEASURED
    return {
        "k": t.num(len(layer), "int", name="k_layer_fused"),
        "short": t.num(sum(1 for x in layer if x.time_s < launch), "int", name="layer_k_short"),
        "launch": t.num(launch, "si unit=μs digits=2", name="launch_s"),
        "node": t.num(kernels.GRAPH_NODE_S_MEASURED, "si unit=μs digits=3", name="graph_node_s"),
        "gpu": t.num(sum(x.time_s for x in layer), "si unit=μs digits=0", name="layer_k_time"),
        "eager": t.num(eager, "si unit=μs digits=0", name="layer_demo_eager",
                       expr="kernels.pipeline_time(layer kernels, launch_s)"),
        "graph": t.num(graph, "si unit=μs digits=0", name="layer_demo_graph",
                       expr="launch_s + sum(max(t, graph_node_s))"),
    }


def draw(fig, t):
    tl, *_ = schedule()
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["cpu_eager"], t["gpu_eager"], t["cpu_graph"], t["gpu_graph"]],
                  {"W": t["submit"].format(**v), "F": t["kernel"], "B": t["graph_launch"]},
                  t["time"], fontsize=6)
    ax.axhline(1.5, color="#888888", lw=0.6, ls=":")
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
