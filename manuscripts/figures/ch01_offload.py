"""Two cases where demand shaped the path bytes take (@sec-getting-started-offload). Top: the
data path of the scale-out NIC runs in hardware (RDMA transport, GPUDirect into HBM), because
at line rate each message has only tens of nanoseconds; the DPU's Arm cores keep the control
path. Bottom: the GPU's link to the host's memory, PCIe versus NVLink-C2C, and Huawei's
unified bus between NPUs and CPUs. Numbers are the chapter's `dpu_*`, `c2c_*`, `ub_*` cells."""
from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from calculations import collectives, scaleup, serving

SIZE = (6.4, 3.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("dpu_gbit", "dpu_msg", "dpu_msg_time", "dpu_arm_cores", "pcie_bw", "c2c_uni",
         "ub_uni")
MSG = 4096              # the chapter's dpu_msg
CORES = 16              # the chapter's dpu_arm_cores
C2C_UNI = 450e9         # the chapter's c2c_uni


def numbers(t):
    gbit = collectives.nic("bf3")["line_rate_gbps"]
    bw = collectives.gbps_to_bytes(gbit)
    gbs = "si unit=GB/s digits=0"
    return {
        "gbit": t.num(gbit, "int", name="dpu_gbit", expr='bf3["line_rate_gbps"]'),
        "msg": t.num(MSG, "int", name="dpu_msg"),
        "msg_time": t.num(MSG / bw, "si unit=ns digits=0", name="dpu_msg_time",
                          expr="1 / dpu_msg_rate"),
        "cores": t.num(CORES, "int", name="dpu_arm_cores"),
        "pcie": t.num(serving.PCIE5_X16_UNIDIRECTIONAL, gbs, name="pcie_bw",
                      expr="serving.PCIE5_X16_UNIDIRECTIONAL"),
        "c2c": t.num(C2C_UNI, gbs, name="c2c_uni"),
        "ub": t.num(scaleup.link("ub-cm384").unidirectional, gbs, name="ub_uni",
                    expr='scaleup.link("ub-cm384").unidirectional'),
    }


def draw(fig, t):
    v = numbers(t)
    top = stack_flow([("net", t["net"], t["net_note"].format(**v)),
                      ("nic", t["nic"], t["nic_note"].format(**v)),
                      ("hbm", t["hbm"], t["hbm_note"].format(**v))],
                     [("net", "nic", t["net_to"].format(**v)),
                      ("nic", "hbm", t["nic_to"].format(**v))], horizontal=True, gap=2.1, width=2.2)
    bottom = stack_flow([("host", t["host"], t["host_note"].format(**v)),
                         ("gpu", t["gpu"], ""),
                         ("peer", t["peer"], t["peer_note"].format(**v))],
                        [("gpu", "host", t["gpu_host"].format(**v)),
                         ("gpu", "peer", t["gpu_peer"].format(**v))], horizontal=True, gap=2.1, width=2.2)
    for i, (flow, key) in enumerate(((top, "top"), (bottom, "bottom"))):
        ax = fig.add_subplot(2, 1, i + 1)
        draw_flow(ax, flow, fontsize=6.5)
        ax.set_ylim(-0.35, 1.6)
        ax.set_title(t[key].format(**v), fontsize=8)
        clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
