"""How a GPU's bytes reach another server (@sec-getting-started-scale): with GPUDirect RDMA the
NIC reads the GPU's memory straight through their shared PCIe switch; without it the bytes are
first copied to a bounce buffer in host memory and cross PCIe twice on each side. Link rates are
the chapter's cells (`pcie_bw`, `nic_bw`)."""
from bookkit.diagrams.extra import clear_under_text
from calculations import collectives, serving

SIZE = (6.4, 3.0)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("pcie_bw", "nic_bw", "nic_gbit")
NIC_GBIT = 400          # the chapter's nic_gbit


def numbers(t):
    gbs = "si unit=GB/s digits=0"
    return {"pcie": t.num(serving.PCIE5_X16_UNIDIRECTIONAL, gbs, name="pcie_bw",
                          expr="serving.PCIE5_X16_UNIDIRECTIONAL"),
            "nic": t.num(collectives.gbps_to_bytes(NIC_GBIT), gbs, name="nic_bw",
                         expr="collectives.gbps_to_bytes(nic_gbit)"),
            "gbit": t.num(NIC_GBIT, "int", name="nic_gbit")}


def draw(fig, t):
    # boxes drawn here rather than by draw_flow, which fills by position in the row: here a
    # component keeps its fill (and hatch) in both rows, so the NIC of one row is the NIC of
    # the other
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    from bookkit.diagrams.draw import fill_of, text_on
    v = numbers(t)
    w, gap = 2.4, 1.7
    box = {"g": (t["gpu"], t["hbm"], 0), "h": (t["host"], t["host_note"], 1),
           "n": (t["nic"], t["nic_note"].format(**v), 2),
           "r": (t["remote"], t["remote_note"], 3)}
    rows = (("direct", ["g", "n", "r"], [t["pcie_arrow"], t["net_arrow"]]),
            ("bounce", ["g", "h", "n", "r"], [t["pcie_arrow"], t["pcie_arrow"], t["net_arrow"]]))
    for k, (name, ids, labels) in enumerate(rows):
        ax = fig.add_subplot(2, 1, k + 1)
        ax.set_axis_off()
        ax.set_aspect("equal")
        for n, key in enumerate(ids):
            label, note, kind = box[key]
            fill, hatch = fill_of(kind)
            ax.add_patch(FancyBboxPatch((n * (w + gap), 0), w, 1, boxstyle="round,pad=0.02",
                                        facecolor=fill, hatch=hatch, edgecolor="#333333", lw=0.8))
            text_on(ax, n * (w + gap) + w / 2, 0.64, label, fill, ha="center", va="center",
                    fontsize=8)
            text_on(ax, n * (w + gap) + w / 2, 0.28, note, fill, ha="center", va="center",
                    fontsize=6)
        for n, lab in enumerate(labels):
            x0, x1 = n * (w + gap) + w, (n + 1) * (w + gap)
            ax.add_patch(FancyArrowPatch((x0, 0.5), (x1, 0.5), arrowstyle="-|>",
                                         mutation_scale=10, color="#333333", lw=1.0))
            ax.text((x0 + x1) / 2, 0.62, lab.format(**v), ha="center", va="bottom", fontsize=6.5)
        ax.set_xlim(-0.2, 4 * w + 3 * gap + 0.2)
        ax.set_ylim(-0.2, 1.3)
        ax.set_title(t[name], fontsize=8)
        clear_under_text(ax)
    fig.suptitle(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
