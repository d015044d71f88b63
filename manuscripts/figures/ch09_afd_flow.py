"""Attention-FFN disaggregation for DeepSeek-V3 decode (@sec-distributed-inference-afd): an
attention pool holding the KV cache and an expert pool with one expert per GPU; every MoE layer
sends each token's hidden state to its `ds_topk` experts in FP8 (`afd_disp` per attention GPU
and layer) and gets the results back in BF16 (`afd_comb`); per step `afd_step_bytes`, or
`afd_step_s` on one `nic_gbps` Gb/s NIC. An expert needs `tok_for_ridge` tokens per step to
reach the H100's FP8 ridge point, i.e. the batches of `afd_attn_gpus` attention GPUs. The
chapter's inputs, computed as its cell does."""
import math

from bookkit.diagrams.flow import Box, Flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import arrows_both_ways, clear_under_text
from calculations import distributed as D, hardware, models

SIZE = (6.4, 2.7)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("afd_b", "ds_topk", "afd_disp", "afd_comb", "afd_step_bytes", "afd_step_s",
         "tok_for_ridge", "afd_attn_gpus", "nic_gbps")
BATCH, GBPS = 64, 400                      # the chapter's ex_b (= afd_b), nic_gbps


def numbers(t):
    ds, h100 = models.get("deepseek-v3"), hardware.get("h100")
    k, hidden, layers = ds.experts_per_token, ds.hidden_size, ds.num_moe_layers
    disp, comb = BATCH * k * hidden * 1, BATCH * k * hidden * 2
    step = (disp + comb) * layers
    ridge_tok = h100.peak_flops("fp8") / h100.hbm_bandwidth / 2
    return {
        "b": t.num(BATCH, "int", name="afd_b"), "k": t.num(k, "int", name="ds_topk"),
        "disp": t.num(disp, "si unit=MB digits=2", name="afd_disp"),
        "comb": t.num(comb, "si unit=MB digits=2", name="afd_comb"),
        "step": t.num(step, "si unit=MB digits=0", name="afd_step_bytes",
                      expr="(afd_disp + afd_comb) * ds_moe_layers"),
        "step_s": t.num(step / D.gbit_s(GBPS), "si unit=ms digits=1", name="afd_step_s"),
        "gbps": t.num(GBPS, "int", name="nic_gbps"),
        "tok": t.num(ridge_tok, "num digits=0", name="tok_for_ridge"),
        "gpus": t.num(math.ceil(ridge_tok * ds.num_experts / (BATCH * k)), "int",
                      name="afd_attn_gpus"),
    }


def draw(fig, t):
    v = numbers(t)
    w, gap = 3.4, 3.8
    items = [("attn", t["attn"], t["attn_note"].format(**v)),
             ("ffn", t["ffn"], t["ffn_note"].format(**v))]
    # boxes 1.8 high (two-line notes), the pools side by side
    flow = Flow(tuple(Box(i, k * (w + gap), 0, w, 1.8, label, note)
                      for k, (i, label, note) in enumerate(items)), ())
    ax = fig.add_subplot()
    draw_flow(ax, flow, fontsize=7.5)
    # what is dispatched to the experts and what comes back, each labelled on its own side
    arrows_both_ways(ax, w, w + gap, t["disp_label"].format(**v), t["comb_label"].format(**v))
    ax.text(w + gap / 2, -0.55, t["step_note"].format(**v), ha="center", va="center", fontsize=7)
    ax.set_xlim(-0.2, 2 * w + gap + 0.2)
    ax.set_ylim(-1.1, 2.2)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
