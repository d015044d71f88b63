"""Emptying one decode unit into the prefill pool (@sec-distributed-inference-reconfig): per GPU
of the leaving EP144 unit, the KV of its `pub_b` sequences moves out over one 400 Gb/s NIC
(`shift_pre_kv_s`), then the 9 prefill experts come in (`shift_pre_ex_s`); the other
`shift_d_rest` decode units receive the KV and go on at `shift_b_after` sequences per GPU,
their TPOT rising to `shift_tpot_after`; the answers being moved pause for the migration
(`shift_stall_steps` decode steps at `pub_tpot_hi`). Times from the chapter's formulas."""
import math

from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import distributed as D, formulas, hardware, models, pool_shift as PS

SIZE = (6.4, 2.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("shift_pre_kv_s", "shift_pre_ex_s", "shift_pre_s", "shift_d_rest", "shift_b_after",
         "shift_tpot_after", "shift_stall_steps")
CTX, EP, RED, D0 = 4989, 144, 32, 8          # the chapter's ds_ctx, pub_ep, pub_redundant, shift_d0
NODE_TPS, USERS = 14.8e3, (20, 22)           # DeepSeek's decode rate per node, per user
DEC_EXPERTS, PRE_EXPERTS = 2, 9


def numbers(t):
    ds, h100 = models.get("deepseek-v3"), hardware.get("h100")
    nic = D.gbit_s(400)
    batch = round(NODE_TPS / 8 / (sum(USERS) / 2))
    tpot_hi = 1 / USERS[0]
    step = lambda b: D.ep_decode(ds, h100, EP, b, CTX, nic_bw=nic, redundant=RED).tpot_s
    cal = tpot_hi / step(batch)
    expert = D.weight_split(ds)["per_expert_all_layers"]
    kv = batch * CTX * formulas.kv_bytes_per_token(ds, "bf16")
    sec = PS.shift_seconds(PS.shift_bytes_per_gpu("to-prefill", expert, PRE_EXPERTS, DEC_EXPERTS, kv), nic)
    after = math.ceil(batch * D0 / (D0 - 1))
    return sec, {
        "kv_s": t.num(sec["kv_s"], "si unit=ms digits=0", name="shift_pre_kv_s"),
        "ex_s": t.num(sec["experts_s"], "si unit=ms digits=0", name="shift_pre_ex_s"),
        "total": t.num(sec["total_s"], "si unit=ms digits=0", name="shift_pre_s"),
        "rest": t.num(D0 - 1, "int", name="shift_d_rest"),
        "b": t.num(after, "int", name="shift_b_after"),
        "tpot": t.num(cal * step(after), "si unit=ms digits=1", name="shift_tpot_after"),
        "stall": t.num(sec["kv_s"] / tpot_hi, "num digits=0", name="shift_stall_steps",
                       expr="shift_pre_kv_s / pub_tpot_hi"),
    }


def draw(fig, t):
    sec, v = numbers(t)
    kv, ex = sec["kv_s"] * 1e3, sec["experts_s"] * 1e3
    end = kv + ex + 400.0                     # drawn a little past the switch
    bars = [(0, 0, kv, "B", t["kv_out"].format(**v)), (0, kv, kv + ex, "W", t["experts"].format(**v)),
            (0, kv + ex, end, "F", t["prefill"]),
            (1, 0, kv, "B", t["kv_in"]), (1, kv, end, 3, t["decode_more"].format(**v))]
    ax = fig.add_subplot()
    draw_timeline(ax, timeline(2, bars), [t["unit"], t["others"].format(**v)],
                  {"B": t["k_kv"], "W": t["k_experts"], "F": t["k_prefill"], 3: t["k_decode"]},
                  t["time"], bar_height=0.6, fontsize=6.5)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
