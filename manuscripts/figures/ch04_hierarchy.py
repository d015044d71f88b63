"""The H100's memory hierarchy from HBM up to the registers (@sec-accelerators, on-chip memory):
each level's capacity (per SM and in all), HBM's bandwidth on the arrow into the chip, and how
many times the on-chip total HBM holds; the chapter's on-chip cell's numbers."""
from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text, widen
from calculations import hardware, kernels

SIZE = (6.4, 4.2)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('h100_sms', 'smem_per_sm', 'regs_per_sm', 'h100_smem_total', 'h100_regs_total', 'l2_bytes',
         'h100_onchip_total', 'h100_hbm', 'h100_bw', 'hbm_over_onchip')
# The chapter's on-chip cell states these (Hopper whitepaper and tuning guide); a test holds
# them equal to the cell's. Shared memory per SM comes from calculations.kernels.
REGS_PER_SM = 65536 * 4         # 64 K 32-bit registers
L2_BYTES = 50 * 10**6


def numbers(t):
    h100 = hardware.get("h100")
    sms, smem = kernels.H100_SMS, kernels.H100_SMEM_PER_SM
    onchip = sms * smem + sms * REGS_PER_SM + L2_BYTES
    return {
        "sms": t.num(sms, "int", name="h100_sms"),
        "smem": t.num(smem, "si unit=KiB digits=0", name="smem_per_sm"),
        "regs": t.num(REGS_PER_SM, "si unit=KiB digits=0", name="regs_per_sm"),
        "smem_all": t.num(sms * smem, "si unit=MB digits=1", name="h100_smem_total",
                          expr="h100_sms * smem_per_sm"),
        "regs_all": t.num(sms * REGS_PER_SM, "si unit=MB digits=1", name="h100_regs_total",
                          expr="h100_sms * regs_per_sm"),
        "l2": t.num(L2_BYTES, "si unit=MB digits=0", name="l2_bytes"),
        "onchip": t.num(onchip, "si unit=MB digits=0", name="h100_onchip_total",
                        expr="smem + registers + L2"),
        "hbm": t.num(h100.hbm_bytes, "si unit=GB digits=0", name="h100_hbm"),
        "bw": t.num(h100.hbm_bandwidth, "si unit=TB/s digits=2", name="h100_bw"),
        "ratio": t.num(h100.hbm_bytes / onchip, "num sig=2", name="hbm_over_onchip",
                       expr="h100_hbm / h100_onchip_total"),
    }


def draw(fig, t):
    v = numbers(t)
    levels = ["regs_box", "smem_box", "l2_box", "hbm_box"]
    items = [(k, t[k], t[f"{k}_note"].format(**v)) for k in levels]
    arrows = [("hbm_box", "l2_box", t["hbm_to"].format(**v)),
              ("l2_box", "smem_box", t["l2_to"]), ("smem_box", "regs_box", t["smem_to"])]
    ax = fig.add_subplot()
    draw_flow(ax, widen(stack_flow(items, arrows, gap=0.6), 5.6), fontsize=7.5)
    ax.set_xlim(-1.6, 7.4)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
