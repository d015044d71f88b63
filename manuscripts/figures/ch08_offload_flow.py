"""Where an offloaded KV cache lives and how fast it comes back (@sec-inference-optimization-
offload): HBM, host DRAM over PCIe 5.0 x16 (one direction), an NVMe SSD; each arrow carries the
link's bandwidth and the time to bring back one 16,384-token Qwen3-8B sequence
(`serving.offload`, the chapter's `load_pcie` and `load_ssd`)."""
from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from calculations import hardware, models, serving

SIZE = (6.4, 2.0)
CONTEXT = 16384   # the chapter's off_ctx


def numbers(t):
    m, h100 = models.get("qwen3-8b"), hardware.get("h100")
    pcie, ssd = serving.PCIE5_X16_UNIDIRECTIONAL, serving.NVME_GEN5_READ
    o_p, o_s = serving.offload(m, h100, CONTEXT, pcie), serving.offload(m, h100, CONTEXT, ssd)
    return {
        "ctx": t.num(CONTEXT, "int", name="off_ctx"),
        "kv": t.num(o_p["kv_bytes"], "si unit=GB digits=2", name="off_kv"),
        "pcie": t.num(pcie, "si unit=GB/s digits=0", name="pcie",
                      expr="serving.PCIE5_X16_UNIDIRECTIONAL"),
        "ssd": t.num(ssd, "si unit=GB/s digits=0", name="ssd", expr="serving.NVME_GEN5_READ"),
        "t_pcie": t.num(o_p["load_s"], "si unit=ms digits=0", name="load_pcie",
                        expr="serving.offload(m, h100, off_ctx, pcie)['load_s']"),
        "t_ssd": t.num(o_s["load_s"], "si unit=ms digits=0", name="load_ssd",
                       expr="serving.offload(m, h100, off_ctx, ssd)['load_s']"),
        "t_re": t.num(o_p["recompute_s"], "si unit=ms digits=0", name="recompute"),
    }


def draw(fig, t):
    v = numbers(t)
    flow = stack_flow([("hbm", t["hbm"], t["hbm_note"].format(**v)),
                       ("dram", t["dram"], ""), ("ssd", t["ssd_box"], "")],
                      [("dram", "hbm", t["arrow"].format(bw=v["pcie"], t=v["t_pcie"])),
                       ("ssd", "dram", t["arrow"].format(bw=v["ssd"], t=v["t_ssd"]))],
                      horizontal=True, gap=1.7, width=3.2)
    ax = fig.add_subplot()
    draw_flow(ax, flow, fontsize=7)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
