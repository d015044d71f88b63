"""Where a paused sequence's KV cache can live (@sec-supernodes-pcie, the CXL example): time to
read one 4096-token Llama-3.1-70B sequence's BF16 KV cache from an H100's HBM, from a peer GPU
over NVLink 4, over a CXL 3 / PCIe 6 x16 link, over PCIe 5 x16 and over a 400 Gb/s NIC, against
recomputing its prefill on 8 H100s at the BF16 peak (`calculations.scaleup` links)."""
from calculations import formulas, hardware, models, scaleup

SIZE = (6.4, 4.0)
CONTEXT = 4096         # the chapter's dec_ctx


def draw(fig, t):
    llama, h100 = models.get("llama-3.1-70b"), hardware.get("h100")
    seq = formulas.kv_bytes_per_token(llama, "bf16") * CONTEXT
    tiers = [("hbm", h100.hbm_bandwidth), ("nvlink", scaleup.link("nvlink4").unidirectional),
             ("cxl", scaleup.link("cxl3").unidirectional), ("pcie5", scaleup.link("pcie5").unidirectional),
             ("nic", scaleup.link("ib-ndr-400").unidirectional)]
    ms = [seq / bw * 1e3 for _, bw in tiers]
    recompute = 2 * llama.params_total * CONTEXT / (8 * h100.peak_flops("bf16")) * 1e3
    ax = fig.add_subplot()
    colors = ["#55A868", "#4C72B0", "#8172B3", "#CCB974", "#C44E52"]
    y = range(len(tiers))
    ax.barh(list(y), ms, color=colors, height=0.6)
    for i, v in zip(y, ms):
        ax.text(v * 1.12, i, t.num(v / 1e3, "si unit=ms digits=1"), va="center", fontsize=7.5)
    ax.axvline(recompute, color="#333333", lw=1.0, ls="--")
    ax.text(recompute * 1.05, -0.45, t["recompute"].format(v=t.num(recompute / 1e3, "si unit=ms digits=0")),
            fontsize=7.5, ha="left", va="center")
    ax.set_yticks(list(y))
    ax.set_yticklabels([t[k] for k, _ in tiers], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(min(ms) / 2, max(ms + [recompute]) * 6)
    ax.set_xlabel(t["x"])
    ax.set_title(t["title"].format(n=t.num(CONTEXT, "int"), gb=t.num(seq, "si unit=GB digits=2")),
                 fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
