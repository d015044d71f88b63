"""Prefill/decode disaggregation as a flow (@sec-distributed-inference-breakeven): a prompt of
`prompt` tokens is prefilled in the prefill pool, its KV cache (`dg_kv`, DeepSeek-V3's MLA
latents) crosses one `nic_gbps` Gb/s RDMA NIC per GPU to the decode pool in `dg_tx`, where
recomputing it instead would take `dg_rc` at the H100's FP8 peak; the break-even NIC is
`dg_be_gbps`. All computed by `D.disaggregation` with the chapter's inputs (`INPUTS`)."""
from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from calculations import distributed as D, hardware, models

SIZE = (6.4, 2.5)
INPUTS = ("prompt", "nic_gbps")
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('prompt', 'nic_gbps', 'dg_kv', 'dg_tx', 'dg_rc', 'dg_ratio', 'dg_be_gbps')


def numbers(t):
    prompt = t.inputs.get("prompt", 4096)            # drawn alone: the book's
    gbps = t.inputs.get("nic_gbps", 400)
    dg = D.disaggregation(models.get("deepseek-v3"), hardware.get("h100"), prompt,
                          D.gbit_s(gbps))
    return {
        "prompt": t.num(prompt, "int", name="prompt"),
        "gbps": t.num(gbps, "int", name="nic_gbps"),
        "kv": t.num(dg.kv_bytes, "si unit=MB digits=0", name="dg_kv",
                    expr="D.disaggregation(ds, h100, prompt, nic_bw).kv_bytes"),
        "tx": t.num(dg.transfer_s, "si unit=ms digits=2", name="dg_tx", expr="dg_kv / nic_bw"),
        "rc": t.num(dg.recompute_s, "si unit=ms digits=0", name="dg_rc",
                    expr="prefill FLOP / H100 FP8 peak"),
        "ratio": t.num(dg.recompute_over_transfer, "num digits=0", name="dg_ratio"),
        "be": t.num(dg.breakeven_bw * 8 / 1e9, "num digits=0", name="dg_be_gbps",
                    expr="breakeven_bw * 8 / 1e9"),
    }


def draw(fig, t):
    v = numbers(t)
    items = [("req", t["req"], t["req_note"].format(**v)),
             ("pre", t["pre"], t["pre_note"].format(**v)),
             ("dec", t["dec"], t["dec_note"].format(**v))]
    arrows = [("req", "pre", ""), ("pre", "dec", "")]
    w, gap = 3.2, 3.4
    ax = fig.add_subplot()
    draw_flow(ax, stack_flow(items, arrows, horizontal=True, gap=gap, width=w), fontsize=7.5)
    # the KV label above its arrow (three lines: too tall for the vocabulary's arrow label)
    ax.text(2 * w + 1.5 * gap, 1.0, t["kv"].format(**v), ha="center", va="bottom", fontsize=7)
    ax.text(1.5 * w + gap, -0.45, t["breakeven"].format(**v), ha="center", va="center",
            fontsize=7)
    ax.set_xlim(-0.2, 3 * w + 2 * gap + 0.2)
    ax.set_ylim(-0.8, 2.1)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
