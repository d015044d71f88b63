"""Expert load per GPU at the layout's granularity (@sec-distributed-inference-imbalance): the
chapter's skewed loads (`skew` 0.6 over DeepSeek-V3's 256 routed experts) placed by
`D.place_experts` on EP320 without copies (`ep_bal0`), with the 64 spare GPUs holding copies
(`ep_bal_red`, one slot per GPU), the same 320 slots on 160 GPUs (two per GPU, `ep_bal_pair`)
and DeepSeek's online EP144 with 32 copies (`ep_bal_day6`). Each curve is the GPUs' loads over
the unit's mean, sorted, against the GPU's rank as a share of the unit. A plot."""
from calculations import distributed as D, models

SIZE = (6.4, 3.4)
SKEW, EP, EXTRA, DAY6_EP, DAY6_RED = 0.6, 320, 64, 144, 32   # the chapter's skew, ex_ep, ep_red, pub_ep, pub_redundant
LAYOUTS = ((EP, 0, "-"), (EP, EXTRA, "--"), (EP // 2, EXTRA, "-."), (DAY6_EP, DAY6_RED, ":"))


def curves():
    loads = D.zipf_loads(models.get("deepseek-v3").num_experts, SKEW)
    out = []
    for gpus, red, ls in LAYOUTS:
        p = D.place_experts(loads, gpus, red)
        mean = sum(loads) / gpus
        ys = sorted((x / mean for x in p["gpu_loads"]), reverse=True)
        out.append((gpus, red, ls, ys, p["max_over_mean"], p["slots_per_gpu"]))
    return out


def draw(fig, t):
    ax = fig.add_subplot()
    for gpus, red, ls, ys, top, slots in curves():
        xs = [(i + 0.5) / gpus for i in range(gpus)]
        ax.step(xs, ys, where="mid", ls=ls, lw=1.4, label=t["series"].format(
            ep=t.num(gpus, "int"), red=t.num(red, "int"), slots=t.num(slots, "int"),
            top=t.num(top, "num digits=2")))
    ax.axhline(1.0, color="#777777", lw=0.8)
    ax.set_yscale("log")
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.set_xlim(0, 1)
    ax.legend(fontsize=7.5, frameon=False)
    ax.set_title(t["title"].format(skew=t.num(SKEW, "num digits=1")), fontsize=9)
