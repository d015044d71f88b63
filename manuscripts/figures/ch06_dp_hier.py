"""Hierarchical all-reduce of Qwen3-8B's BF16 gradients over dp_gpus GPUs
(@sec-supernodes-dp): top, 8-GPU H100 domains (NVLink 4); bottom, NVL72 domains (NVLink 5);
each GPU has one 400 Gb/s NIC. Each domain reduce-scatters over its links, the same-index GPUs
of all domains all-reduce their 1/g shard over their NICs, and the domain all-gathers; the
bars are the three phases' alpha-beta times from `collectives.hierarchical_allreduce`."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import collectives, formulas, models, scaleup

SIZE = (6.4, 2.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('dp_gpus', 'dp_hgx_rs', 'dp_hgx_ar', 'dp_hgx_t', 'dp_nvl_rs', 'dp_nvl_ar', 'dp_nvl_t',
         'dp_nic_hgx', 'dp_nic_nvl')
GPUS = 576          # the chapter's dp_gpus


def phases():
    grad = formulas.nbytes(models.get("qwen3-8b").params_total, "bf16")
    nic = scaleup.link("ib-ndr-400").unidirectional
    out = {}
    for key, g, link in (("hgx", 8, "nvlink4"), ("nvl", 72, "nvlink5")):
        h = collectives.hierarchical_allreduce(grad, GPUS // g, g, scaleup.link(link).unidirectional, nic)
        rs, ar, ag = (p.time_s for p in h.parts)
        out[key] = {"rs": rs, "ar": ar, "ag": ag, "t": h.time_s,
                    "nic": scaleup.ring_allreduce_volume(grad / g, GPUS // g)}
    return out


def numbers(t):
    d = phases()
    ms = "si unit=ms digits=0"
    return {"gpus": t.num(GPUS, "int", name="dp_gpus"),
            "hgx_rs": t.num(d["hgx"]["rs"], ms, name="dp_hgx_rs"),
            "hgx_ar": t.num(d["hgx"]["ar"], ms, name="dp_hgx_ar"),
            "hgx_t": t.num(d["hgx"]["t"], ms, name="dp_hgx_t"),
            "nvl_rs": t.num(d["nvl"]["rs"], ms, name="dp_nvl_rs"),
            "nvl_ar": t.num(d["nvl"]["ar"], ms, name="dp_nvl_ar"),
            "nvl_t": t.num(d["nvl"]["t"], ms, name="dp_nvl_t"),
            "hgx_nic": t.num(d["hgx"]["nic"], "si unit=GB digits=2", name="dp_nic_hgx"),
            "nvl_nic": t.num(d["nvl"]["nic"], "si unit=GB digits=2", name="dp_nic_nvl")}


def draw(fig, t):
    d = phases()
    v = numbers(t)
    bars = []
    for i, key in enumerate(("hgx", "nvl")):
        p = {k: x * 1e3 for k, x in d[key].items()}
        link_row, nic_row = 2 * i, 2 * i + 1
        bars.append((link_row, 0, p["rs"], 0, "RS"))
        bars.append((nic_row, p["rs"], p["rs"] + p["ar"], 1, "AR"))
        bars.append((link_row, p["rs"] + p["ar"], p["t"], 2, "AG"))
    tl = timeline(4, bars)
    rows = [t["link"].format(dom=t["hgx"]), t["nic"].format(dom=t["hgx"], nic=v["hgx_nic"]),
            t["link"].format(dom=t["nvl"]), t["nic"].format(dom=t["nvl"], nic=v["nvl_nic"])]
    ax = fig.add_subplot()
    draw_timeline(ax, tl, rows, {0: t["rs"], 1: t["ar"], 2: t["ag"]}, t["time_axis"],
                  bar_height=0.6, fontsize=7)
    ax.set_title(t["title"].format(**v), fontsize=8.5)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
