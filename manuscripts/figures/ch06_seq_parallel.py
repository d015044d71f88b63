"""Sequence parallelism on top of 8-way tensor parallelism (@sec-supernodes-other-parallel),
for the chapter's 8,192-token prefill of Llama-3.1-70B (@sec-supernodes-tp-prefill): top,
tensor parallelism alone, where LayerNorm, dropout and the residual run on every GPU for all
tokens and the sublayer ends in an all-reduce; bottom, the all-reduce taken apart into a
reduce-scatter and an all-gather, with the per-token operations in between on 1/8 of the
tokens. Bytes are the chapter's cells (`pf_msg`, `sp_act`, `sp_ar_vol`, `sp_half_vol`)."""
from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from calculations import models, scaleup

SIZE = (6.4, 3.4)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('tp_n', 'pf_tokens', 'pf_msg', 'sp_act', 'sp_ar_vol', 'sp_half_vol')
N, TOKENS = 8, 8192          # the chapter's tp_n, pf_tokens


def numbers(t):
    msg = TOKENS * models.get("llama-3.1-70b").hidden_size * 2
    return {
        "n": t.num(N, "int", name="tp_n"), "tok": t.num(TOKENS, "int", name="pf_tokens"),
        "act": t.num(msg, "si unit=MB digits=0", name="pf_msg"),
        "act_sp": t.num(msg / N, "si unit=MB digits=1", name="sp_act"),
        "ar": t.num(scaleup.ring_allreduce_volume(msg, N), "si unit=MB digits=0", name="sp_ar_vol"),
        "half": t.num((N - 1) / N * msg, "si unit=MB digits=0", name="sp_half_vol"),
    }


def draw(fig, t):
    v = numbers(t)
    top = stack_flow([("ln", t["ln"], t["all_tok"].format(**v)),
                      ("mm", t["mm"], t["heads"].format(**v)),
                      ("out", t["out"], t["all_tok"].format(**v))],
                     [("ln", "mm", ""), ("mm", "out", t["ar"].format(**v))],
                     horizontal=True, width=3.2, gap=2.8)
    bottom = stack_flow([("ln", t["ln"], t["part_tok"].format(**v)),
                         ("mm", t["mm"], t["heads"].format(**v)),
                         ("out", t["out"], t["part_tok"].format(**v))],
                        [("ln", "mm", t["ag"].format(**v)), ("mm", "out", t["rs"].format(**v))],
                        horizontal=True, width=3.2, gap=2.8)
    for k, (flow, title) in enumerate(((top, t["tp"]), (bottom, t["sp"]))):
        ax = fig.add_subplot(2, 1, k + 1)
        draw_flow(ax, flow, fontsize=6.5)
        ax.set_title(title.format(**v), fontsize=8)
        clear_under_text(ax)
    fig.suptitle(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
