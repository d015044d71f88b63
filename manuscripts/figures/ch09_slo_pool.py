"""The TPOT target sizes the decode pool (@sec-distributed-inference-pool-sizing): DeepSeek-V3
decoded by an EP144 unit with 32 redundant experts on H100s (`D.ep_decode`, the chapter's KV
length and NIC), its TPOT scaled by the measured/model ratio `slo_cal` (so that `pub_b`
sequences per GPU give `pub_tpot_hi`); for each target the largest batch per GPU that meets it
(`pool_shift.max_batch_for_tpot`), the node's output rate, and DeepSeek's average output rate
over it: the decode nodes needed. Dots at the chapter's targets of 20, 30, 40, 50 tokens/s. A
plot."""
from calculations import distributed as D, formulas, hardware, models, pool_shift as PS

SIZE = (6.4, 3.2)
CTX, EP, RED, USABLE = 4989, 144, 32, 0.9          # the chapter's ds_ctx, pub_ep, pub_redundant, ep_usable
OUT_RATE = 168e9 / 86400                           # DeepSeek's day: output tokens per second
NODE_TPS, USERS = 14.8e3, (20, 22)                 # the published decode rate per node, per user
RATES = (20, 30, 40, 50)                           # the chapter's targets (tokens/s per user)


def model():
    ds, h100 = models.get("deepseek-v3"), hardware.get("h100")
    nic = D.gbit_s(400)
    step = lambda b: D.ep_decode(ds, h100, EP, b, CTX, nic_bw=nic, redundant=RED)
    batch = round(NODE_TPS / 8 / (sum(USERS) / 2))
    cal = (1 / USERS[0]) / step(batch).tpot_s
    cap = max(b for b in range(1, 400) if D.ep_decode(ds, h100, EP, b, CTX, nic_bw=nic,
                                                      redundant=RED, usable=USABLE).fits)
    return (lambda b: cal * step(b).tpot_s), cap


def nodes_for(tpot, cap, target):
    b = PS.max_batch_for_tpot(tpot, target, cap)
    return b, (OUT_RATE / (8 * b / tpot(b)) if b else float("nan"))


def draw(fig, t):
    tpot, cap = model()
    ax = fig.add_subplot()
    xs = [ms / 1000 for ms in range(12, 61)]
    pts = [(x, nodes_for(tpot, cap, x)[1]) for x in xs]
    ax.plot([x * 1e3 for x, _ in pts], [n for _, n in pts], lw=1.6, color="#1f77b4")
    lines = []
    for r in RATES:
        b, n = nodes_for(tpot, cap, 1 / r)
        ax.plot([1e3 / r], [n], "o", color="#d62728", ms=5)
        ax.annotate(t.num(r, "int"), (1e3 / r, n), textcoords="offset points", xytext=(0, -12),
                    ha="center", fontsize=7)
        lines.append(t["point"].format(rate=t.num(r, "int"), b=t.num(b, "int"),
                                       n=t.num(n, "num digits=0")))
    ax.text(0.98, 0.95, "\n".join(lines), transform=ax.transAxes, ha="right", va="top",
            fontsize=7.5)
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.set_ylim(0, None)
    ax.set_title(t["title"], fontsize=9)
