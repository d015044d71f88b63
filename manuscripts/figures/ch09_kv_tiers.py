"""A multi-tier KV store on one 8-GPU DeepSeek-V3 prefill node (@sec-distributed-inference-kv-tiers):
GPU memory (what the weights leave, `tier_hbm`), host DRAM (`tier_dram`), local SSD
(`tier_ssd`) and remote storage; each tier's residence time (`res_*`: capacity / the node's
rate of new KV, `kv_write`, from DeepSeek's published day of traffic) and the bandwidth that
brings KV back up (`link_*`). Computed by `calculations.kv_tiers` with the chapter's inputs;
the boxes are not to scale."""
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from bookkit.diagrams.flow import Arrow, Box, Flow
from calculations import distributed as D, formulas, hardware, kv_tiers as KT, models

SIZE = (6.4, 3.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("kv_write", "tier_hbm", "tier_dram", "tier_ssd", "res_hbm", "res_dram_min",
         "res_ssd_h", "link_hbm_dram", "link_ssd", "link_remote")
# the chapter's inputs: DeepSeek's prefill node rate and hit share, the usable share of HBM,
# the host memory, the assumed drives, 3FS's per-node KV read rate
NODE_TPS, HIT, USABLE, GPUS = 73.7e3, 0.563, 0.9, 8
DRAM, DRIVES, DRIVE_BYTES, REMOTE = 2e12, 4, 15.36e12, 40 * 2 ** 30


def numbers(t):
    ds, h100 = models.get("deepseek-v3"), hardware.get("h100")
    write = KT.new_kv_bytes_per_s(NODE_TPS, HIT, formulas.kv_bytes_per_token(ds, "bf16"))
    weights = D.ep_decode(ds, h100, 32, 1, 0, redundant=32).weight_bytes_per_gpu
    hbm = GPUS * (USABLE * h100.hbm_bytes - weights)
    ssd = DRIVES * DRIVE_BYTES
    return {
        "write": t.num(write, "si unit=GB digits=2", name="kv_write",
                       expr="KT.new_kv_bytes_per_s(pub_prefill_node_tps, cache_hit, ds_kv_tok)"),
        "hbm": t.num(hbm, "si unit=GB digits=0", name="tier_hbm",
                     expr="8 * (h100_usable - day6_prefill_w)"),
        "dram": t.num(DRAM, "si unit=TB digits=0", name="tier_dram"),
        "ssd": t.num(ssd, "si unit=TB digits=1", name="tier_ssd"),
        "res_hbm": t.num(KT.residence_s(hbm, write), "si unit=s digits=0", name="res_hbm",
                         expr="tier_hbm / kv_write"),
        "res_dram": t.num(KT.residence_s(DRAM, write) / 60, "num digits=0", name="res_dram_min",
                          expr="tier_dram / kv_write / 60"),
        "res_ssd": t.num(KT.residence_s(ssd, write) / 3600, "num digits=1", name="res_ssd_h",
                         expr="tier_ssd / kv_write / 3600"),
        "pcie": t.num(GPUS * D.storage_tier("pcie-gen5-x16").bandwidth, "si unit=GB/s digits=0",
                      name="link_hbm_dram", expr="8 * PCIe 5.0 x16, one direction"),
        "nvme": t.num(DRIVES * D.storage_tier("nvme-gen5").bandwidth, "si unit=GB/s digits=0",
                      name="link_ssd", expr="4 * NVMe PCIe 5.0 sequential read"),
        "remote": t.num(REMOTE, "si unit=GB/s digits=1", name="link_remote"),
        "drives": t.num(DRIVES, "int"),
    }


def flow(t, v):
    """Two tiers in a column, the two lower ones side by side (both feed host memory); the
    lower row sits far enough down that draw_flow draws both of its arrows vertical."""
    boxes = (Box("hbm", 0.9, 2.8, 4.4, 1, t["hbm"], t["hbm_note"].format(**v)),
             Box("dram", 0.9, 1.2, 4.4, 1, t["dram"], t["dram_note"].format(**v)),
             Box("ssd", -0.3, -1.2, 3.0, 1, t["ssd"], t["ssd_note"].format(**v)),
             Box("remote", 3.0, -1.2, 3.0, 1, t["remote"], t["remote_note"]))
    arrows = (Arrow("dram", "hbm", t["pcie"].format(**v)), Arrow("ssd", "dram", v["nvme"]),
              Arrow("remote", "dram", v["remote"]))
    return Flow(boxes, arrows)


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    draw_flow(ax, flow(t, v), fontsize=7.5)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
