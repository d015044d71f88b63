"""One GB200 NVL72 rack as it is built (@sec-getting-started-rack): the top-of-rack switch
(scale-out, one 400 Gb/s NIC per GPU), 18 compute trays of 4 GPUs, the copper NVLink spine,
9 NVLink switch trays (scale-up), the power shelves and cooling manifolds. Numbers are the
chapter's `rack_*` cells, from the registry's `gb200-nvl72` domain."""
from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text, widen
from calculations import collectives, scaleup

SIZE = (6.4, 4.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("rack_compute_trays", "rack_gpus_per_tray", "rack_switch_trays", "rack_spine",
         "rack_per_switch_tray", "rack_out", "rack_nv_uni", "rack_rated", "rack_shelves",
         "nic_gbit", "rack_gpus")
TRAYS, PER_TRAY, SWITCH_TRAYS = 18, 4, 9      # the chapter's rack_* counts
SHELVES, PSUS, PSU_W = 8, 6, 5.5e3            # power shelves, supplies per shelf, rating
NIC_GBIT = 400                                # the chapter's nic_gbit


def numbers(t):
    rack = scaleup.domain("gb200-nvl72")
    gpus = TRAYS * PER_TRAY
    uni = rack.link.unidirectional
    spine = gpus * 2 * uni
    return {
        "trays": t.num(TRAYS, "int", name="rack_compute_trays"),
        "per": t.num(PER_TRAY, "int", name="rack_gpus_per_tray"),
        "sw": t.num(SWITCH_TRAYS, "int", name="rack_switch_trays"),
        "gpus": t.num(gpus, "int", name="rack_gpus",
                      expr="rack_compute_trays * rack_gpus_per_tray"),
        "spine": t.num(spine, "si unit=TB/s digits=1", name="rack_spine",
                       expr="rack_gpus * rack_nv_bi"),
        "per_sw": t.num(spine / SWITCH_TRAYS, "si unit=TB/s digits=1",
                        name="rack_per_switch_tray", expr="rack_spine / rack_switch_trays"),
        "out": t.num(gpus * collectives.gbps_to_bytes(NIC_GBIT), "si unit=TB/s digits=1",
                     name="rack_out", expr="rack_gpus * rack_nic_per_gpu * nic_bw"),
        "nv": t.num(uni, "si unit=GB/s digits=0", name="rack_nv_uni",
                    expr="rack.link.unidirectional"),
        "rated": t.num(SHELVES * PSUS * PSU_W, "si unit=kW digits=0", name="rack_rated",
                       expr="rack_shelves * rack_psu_per_shelf * rack_psu_kw"),
        "shelves": t.num(SHELVES, "int", name="rack_shelves"),
        "gbit": t.num(NIC_GBIT, "int", name="nic_gbit"),
    }


def flow(t, v):
    parts = ["tor", "compute", "spine", "switch", "power"]
    items = [(k, t[k].format(**v), t[f"{k}_note"].format(**v)) for k in parts]
    arrows = [("compute", "tor", t["to_tor"].format(**v)),
              ("compute", "spine", t["to_spine"].format(**v)),
              ("spine", "switch", t["to_switch"].format(**v))]
    return widen(stack_flow(items, arrows, gap=0.6), 4.4)


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    draw_flow(ax, flow(t, v), fontsize=7.5)
    ax.set_xlim(-1.2, 7.4)
    ax.text(4.6, 0.5, t["up"], ha="left", va="center", fontsize=7, style="italic")
    ax.text(4.6, -3.0, t["down"], ha="left", va="center", fontsize=7, style="italic")
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
