"""Overlapping the all-to-all with computation by two micro-batches (@sec-distributed-inference-ep-example):
DeepSeek-V3 decode at EP `ex_ep` with `ex_b` sequences per GPU. Per MoE layer the GPU works
`ex_mem_s / layers` (memory-bound) and the NIC moves `ex_a2a_s / layers`. Top: one batch, the
two take turns (`ex_tpot` per token). Bottom: the batch split in two micro-batches A and B;
while one is on the NIC the other computes, and a layer costs the larger of the two
(`ex_tpot_ovl`). Three layers drawn; times from `D.ep_decode` with the chapter's inputs."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import distributed as D, hardware, models

SIZE = (6.4, 3.0)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("ex_ep", "ex_b", "ex_mem_s", "ex_a2a_s", "ex_tpot", "ex_tpot_ovl")
EP, BATCH, CONTEXT, GBPS, SHOWN = 320, 64, 4989, 400, 3     # the chapter's ex_ep, ex_b, ds_ctx, nic_gbps


def decode():
    ds = models.get("deepseek-v3")
    r = D.ep_decode(ds, hardware.get("h100"), EP, BATCH, CONTEXT, nic_bw=D.gbit_s(GBPS),
                    usable=0.9)
    return r, ds.num_moe_layers


def bars():
    r, layers = decode()
    us = 1e6
    g, c = r.gpu_s / layers * us, r.a2a_s / layers * us
    out, at = [], 0.0
    for _ in range(SHOWN):                      # one batch: compute, then send, in turn
        out += [(0, at, at + g, "F", ""), (1, at + g, at + g + c, "B", "")]
        at += g + c
    gpu_free = nic_free = 0.0
    ready = {"A": 0.0, "B": 0.0}                # when each micro-batch's data is back
    for _ in range(SHOWN):
        for mb in ("A", "B"):
            s = max(gpu_free, ready[mb])
            out.append((2, s, s + g / 2, "F", mb))
            gpu_free = s + g / 2
            cs = max(nic_free, gpu_free)
            out.append((3, cs, cs + c / 2, "B", mb))
            nic_free = ready[mb] = cs + c / 2
    return out


def numbers(t):
    r, _ = decode()
    return {
        "ep": t.num(EP, "int", name="ex_ep"), "b": t.num(BATCH, "int", name="ex_b"),
        "mem": t.num(r.memory_s, "si unit=ms digits=1", name="ex_mem_s"),
        "a2a": t.num(r.a2a_s, "si unit=ms digits=1", name="ex_a2a_s"),
        "tpot": t.num(r.tpot_s, "si unit=ms digits=1", name="ex_tpot"),
        "ovl": t.num(r.tpot_overlap_s, "si unit=ms digits=1", name="ex_tpot_ovl"),
        "shown": t.num(SHOWN, "int"),
    }


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(4, bars()), [t["one_gpu"], t["one_nic"], t["two_gpu"],
                                            t["two_nic"]],
                  {"F": t["compute"].format(**v), "B": t["a2a"].format(**v)}, t["time"].format(**v),
                  bar_height=0.6, fontsize=6.5)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
