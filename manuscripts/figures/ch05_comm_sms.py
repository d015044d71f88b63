"""Communication and compute sharing SMs (@sec-operators-runtime-comm-sms): one MoE layer of a
DeepSeek-V3-class model under expert parallelism (EP 8x2, 8192 tokens per GPU). Serial, the
expert compute fills all 132 SMs of the H100 and the dispatch + combine then runs at the link
rate; overlapped, 12 SMs run the communication kernel while compute runs, slower, on the rest
(`kernels.sm_split_overlap`, DeepEP's measured 90 GB/s with 12 SMs)."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import hardware, kernels, models

SIZE = (6.4, 2.8)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("cs_compute_s", "cs_comm_s", "cs_serial_s", "cs_overlap_s", "cs_slow_v2", "cs_sms_v2",
         "cs_extra_v2", "h100_sms")
TOKENS = 8192           # the chapter's cs_tokens
LINK_BW = 90e9          # the chapter's cs_link_bw (DeepEP V2, SM90, EP 8x2, measured)
COMM_SMS = 12           # the chapter's cs_sms_v2


def schedule():
    ds = models.get("deepseek-v3")
    h100 = hardware.get("h100")
    sms = kernels.H100_SMS
    nbytes = TOKENS * ds.experts_per_token * ds.hidden_size * (1 + 2)
    flops = TOKENS * ds.experts_per_token * 3 * 2 * ds.hidden_size * ds.moe_intermediate_size
    compute = flops / h100.peak_flops("fp8")
    r = kernels.sm_split_overlap(compute, nbytes, sms, COMM_SMS, LINK_BW, LINK_BW / COMM_SMS)
    ms = 1e3
    bars = [(0, 0, compute * ms, "F", ""),
            (1, compute * ms, r["serial_s"] * ms, "B", ""),
            (2, 0, r["compute_slow_s"] * ms, "F", ""),
            (3, 0, r["comm_s"] * ms, "B", "")]
    return timeline(4, bars), compute, r, sms


def numbers(t):
    _, compute, r, sms = schedule()
    return {"compute": t.num(compute, "si unit=ms digits=2", name="cs_compute_s"),
            "comm": t.num(r["comm_s"], "si unit=ms digits=1", name="cs_comm_s"),
            "serial": t.num(r["serial_s"], "si unit=ms digits=1", name="cs_serial_s"),
            "overlap": t.num(r["overlapped_s"], "si unit=ms digits=1", name="cs_overlap_s"),
            "slow": t.num(r["compute_slow_s"], "si unit=ms digits=2", name="cs_slow_v2"),
            "s": t.num(COMM_SMS, "int", name="cs_sms_v2"),
            "rest": t.num(sms - COMM_SMS, "int"),
            "sms": t.num(sms, "int", name="h100_sms"),
            "extra": t.num(r["compute_slow_s"] / compute - 1, "pct digits=0", name="cs_extra_v2")}


def draw(fig, t):
    tl, *_ = schedule()
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["serial_compute"].format(**v), t["serial_comm"].format(**v),
                           t["split_compute"].format(**v), t["split_comm"].format(**v)],
                  {"F": t["compute"], "B": t["comm"]}, t["time"], fontsize=7)
    ax.axhline(1.5, color="#888888", lw=0.6, ls=":")
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
