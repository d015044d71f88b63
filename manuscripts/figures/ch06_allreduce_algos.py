"""One all-reduce over 8 H100s on NVLink 4 against the message size (@sec-supernodes-tp, the
small-message paragraph): ring, two-shot, one-shot and in-switch reduction in the chapter's
alpha-beta model (`scaleup.allreduce_time`, 1 us per step); vertical marks at Llama-3.1-70B's
batch-1 message, the one-shot/two-shot crossover and vLLM's switch point (256 KiB)."""
from calculations import models, scaleup

SIZE = (6.4, 4.4)
TP = 8


def draw(fig, t):
    nv4 = scaleup.link("nvlink4")
    msg_b1 = models.get("llama-3.1-70b").hidden_size * 2
    alpha, w = nv4.latency_s, nv4.unidirectional
    cross = alpha * w * TP / ((TP - 1) * (TP - 2))
    sizes = [2 ** (12 + i / 4) for i in range(4 * 13 + 1)]          # 4 KiB .. 32 MiB
    ax = fig.add_subplot()
    styles = {"ring": ("-", "#C44E52"), "twoshot": ("--", "#4C72B0"), "oneshot": ("-.", "#55A868"),
              "switch": (":", "#8172B3")}
    for algo, (ls, color) in styles.items():
        ax.plot([s / 1e3 for s in sizes],
                [scaleup.allreduce_time(s, TP, nv4, algorithm=algo) * 1e6 for s in sizes],
                ls=ls, color=color, lw=1.6, label=t[algo])
    marks = ((msg_b1, t["b1"].format(v=t.num(msg_b1 / 1e3, "num digits=1"))),
             (cross, t["cross"].format(v=t.num(cross / 1e3, "num digits=0"))),
             (256 * 1024, t["vllm"].format(v=t.num(256 * 1024 / 1e3, "num digits=0"))))
    for s, label in marks:
        ax.axvline(s / 1e3, color="#888888", lw=0.8, ls=":")
        ax.text(s / 1e3 * 1.08, 0.97, label, rotation=90, va="top", ha="left", fontsize=7,
                transform=ax.get_xaxis_transform())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=4, frameon=False)
