"""What moves when a GPU leaves the decode pool for the prefill pool
(@sec-distributed-inference-reconfig): one H100's memory in DeepSeek's online decode layout
(EP144 with 32 redundant experts: the replicated weights `ds_replicated`, `day6_decode_experts`
routed experts of `shift_expert` each, the KV of `pub_b` sequences of the chapter's mean KV
length, `shift_pre_kv`) and in the prefill layout (EP32: `day6_prefill_experts` experts,
`shift_pre_in`). The replicated part stays; the KV leaves over the GPU's NIC first
(`shift_pre_kv_s`), then the prefill experts come in (`shift_pre_ex_s`), in sequence: one link,
and the experts need the memory the KV held. Sizes to scale, from `distributed.weight_split`."""
from bookkit.diagrams.blocks import memory_map
from bookkit.diagrams.draw import draw_memory_map
from calculations import distributed as D, formulas, hardware, models, pool_shift as PS

SIZE = (6.4, 3.2)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("ds_replicated", "shift_expert", "day6_decode_experts", "day6_prefill_experts", "pub_b",
         "shift_pre_kv", "shift_pre_kv_s", "shift_pre_in", "shift_pre_ex_s", "shift_pre_s")
CTX = 4989                       # the chapter's ds_ctx (DeepSeek's mean KV length per token)
DEC_EXPERTS, PRE_EXPERTS = 2, 9  # (256 + 32) / 144 and (256 + 32) / 32
NODE_TPS, USER_TPS = 14.8e3 / 8, 21   # DeepSeek's decode tokens/s per GPU, per user (mid of 20-22)


def numbers(t):
    ds, h100 = models.get("deepseek-v3"), hardware.get("h100")
    split = D.weight_split(ds)
    rep, expert = split["replicated"], split["per_expert_all_layers"]   # FP8: 1 byte a parameter
    batch = round(NODE_TPS / USER_TPS)
    kv = batch * CTX * formulas.kv_bytes_per_token(ds, "bf16")
    moved = PS.shift_bytes_per_gpu("to-prefill", expert, PRE_EXPERTS, DEC_EXPERTS, kv)
    sec = PS.shift_seconds(moved, D.gbit_s(400))
    sizes = {"rep": rep, "dec_ex": DEC_EXPERTS * expert, "kv": kv, "pre_ex": PRE_EXPERTS * expert,
             "cap": h100.hbm_bytes}
    return sizes, {
        "rep": t.num(rep, "si unit=GB digits=1", name="ds_replicated"),
        "expert": t.num(expert, "si unit=GB digits=2", name="shift_expert"),
        "nd": t.num(DEC_EXPERTS, "int", name="day6_decode_experts"),
        "np": t.num(PRE_EXPERTS, "int", name="day6_prefill_experts"),
        "b": t.num(batch, "int", name="pub_b"),
        "kv": t.num(kv, "si unit=GB digits=1", name="shift_pre_kv", expr="pub_b * ds_kv_seq"),
        "kv_s": t.num(sec["kv_s"], "si unit=ms digits=0", name="shift_pre_kv_s",
                      expr="shift_pre_kv / nic_bw"),
        "ex": t.num(moved["experts_in"], "si unit=GB digits=1", name="shift_pre_in",
                    expr="day6_prefill_experts * shift_expert"),
        "ex_s": t.num(sec["experts_s"], "si unit=ms digits=0", name="shift_pre_ex_s",
                      expr="shift_pre_in / nic_bw"),
        "total_s": t.num(sec["total_s"], "si unit=ms digits=0", name="shift_pre_s"),
    }


def draw(fig, t):
    sz, v = numbers(t)
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    draw_memory_map(left, memory_map(sz["cap"], [("rep", sz["rep"]), ("ex", sz["dec_ex"]),
                                                 ("kv", sz["kv"])]),
                    [t["rep"].format(**v), t["dec_ex"].format(**v), t["kv"].format(**v)],
                    t["free"], fontsize=7)
    draw_memory_map(right, memory_map(sz["cap"], [("rep", sz["rep"]), ("ex", sz["pre_ex"])]),
                    [t["rep"].format(**v), t["pre_ex"].format(**v)], t["free"], fontsize=7)
    left.set_title(t["before"], fontsize=8.5)
    right.set_title(t["after"].format(**v), fontsize=8.5)
    fig.suptitle(t["title"].format(**v), fontsize=9)


def describe(t):
    _, v = numbers(t)
    return t["alt"].format(**v)
