"""Recovering a stream from its token log (@sec-distributed-inference-token-log): replica A
decodes a DeepSeek-V3 answer at `pub_tpot_hi` per token and dies after token `gen` of a
`prompt`-token prompt; the gateway has logged every token sent (`log_bytes`, token ids), so
replica B prefills prompt + generated (`fr_tokens` tokens, `fr_prefill_mfu` on one H100 at the
chapter's 50 % utilisation), rebuilding the lost KV (`fr_kv`), and streams on from token
gen + 1. Without the log the answer is regenerated from scratch (`fr_regen`). Times from
`D.failure_redo` with the chapter's inputs; the time to notice the failure is left out, as in
the chapter."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import distributed as D, hardware, models

SIZE = (6.4, 2.7)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("prompt", "gen", "fr_tokens", "fr_kv", "fr_prefill_mfu", "pub_tpot_hi", "fr_regen",
         "log_bytes")
PROMPT, GEN, MFU, TPOT = 4096, 1000, 0.5, 1 / 20     # the chapter's prompt, gen, mfu_prefill, pub_tpot_hi
TOKEN_ID_BYTES = 4                                   # the chapter's tok_id_bytes
BEFORE, AFTER = 4, 3                                 # decode steps drawn before and after


def arithmetic():
    ds, h100 = models.get("deepseek-v3"), hardware.get("h100")
    peak = D.failure_redo(ds, h100, PROMPT, GEN, tpot_s=TPOT)
    redo_s = D.failure_redo(ds, h100, PROMPT, GEN, mfu=MFU)["redo_prefill_s"]
    return peak, redo_s


def bars(t):
    """(row, start, end, kind, label) in ms; row 0 replica A, 1 the gateway, 2 replica B."""
    _, redo_s = arithmetic()
    ms, step = 1e3, TPOT * 1e3
    fail = BEFORE * step
    out = [(0, k * step, (k + 1) * step, "F", t.num(GEN - BEFORE + 1 + k, "int"))
           for k in range(BEFORE)]
    out.append((1, 0.0, fail, "W", t["log_bar"].format(gen=t.num(GEN, "int"))))
    out.append((2, fail, fail + redo_s * ms, "B", t["prefill_bar"].format(
        tokens=t.num(PROMPT + GEN, "int"))))
    resume = fail + redo_s * ms
    out += [(2, resume + k * step, resume + (k + 1) * step, "F", t.num(GEN + 1 + k, "int"))
            for k in range(AFTER)]
    return out, fail


def numbers(t):
    peak, redo_s = arithmetic()
    return {
        "prompt": t.num(PROMPT, "int", name="prompt"),
        "gen": t.num(GEN, "int", name="gen"),
        "tokens": t.num(peak["redo_tokens"], "int", name="fr_tokens"),
        "kv": t.num(peak["kv_lost_bytes"], "si unit=MB digits=0", name="fr_kv"),
        "redo": t.num(redo_s, "si unit=ms digits=0", name="fr_prefill_mfu",
                      expr="D.failure_redo(ds, h100, prompt, gen, mfu=mfu_prefill)['redo_prefill_s']"),
        "tpot": t.num(TPOT, "si unit=ms digits=0", name="pub_tpot_hi"),
        "regen": t.num(peak["regenerate_s"], "si unit=s digits=0", name="fr_regen"),
        "first": t.num(GEN - BEFORE + 1, "int"), "next": t.num(GEN + 1, "int"),
        "before": t.num(BEFORE, "int"), "mfu": t.num(MFU, "pct digits=0", name="mfu_prefill"),
        "log": t.num(peak["redo_tokens"] * TOKEN_ID_BYTES, "si unit=kB digits=1",
                     name="log_bytes", expr="fr_tokens * tok_id_bytes"),
    }


def draw(fig, t):
    v = numbers(t)
    rows, fail = bars(t)
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(3, rows), [t["replica_a"], t["gateway"], t["replica_b"]],
                  {"F": t["decode"].format(**v), "B": t["prefill"], "W": t["log"].format(**v)},
                  t["time"].format(**v), bar_height=0.55, fontsize=6.5)
    ax.axvline(fail, color="#555555", lw=0.9, ls="--")
    ax.text(fail - 0.05 * TPOT * 1e3, 2.42, t["fail"].format(**v), ha="right", va="bottom",
            fontsize=7)
    # replica A's row is empty after the failure: the alternative without a log goes there
    ax.text(fail + 0.15 * TPOT * 1e3, 2, t["regen_note"].format(**v), ha="left", va="center",
            fontsize=7)
    ax.set_ylim(-0.6, 2.75)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
