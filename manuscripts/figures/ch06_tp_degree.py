"""Per-token latency bound of Llama-3.1-70B decode (batch 1, 4096-token context, BF16) against
the tensor-parallel degree: per-GPU share of the roofline time plus two all-reduces per layer
(ring or in-switch reduction), on H100/NVLink 4 and GB200/NVLink 5."""
from calculations import scaleup

SIZE = (6.4, 4.6)
MODEL = "llama-3.1-70b"


def draw(fig, t):
    ax = fig.add_subplot()
    ns = [1, 2, 4, 8, 12, 18, 24, 36, 72]
    h = [scaleup.tp_decode(MODEL, "h100", n, "nvlink4", 1, 4096).time_s * 1e3 for n in ns if n <= 8]
    ring = [scaleup.tp_decode(MODEL, "gb200", n, "nvlink5", 1, 4096).time_s * 1e3 for n in ns]
    sw = [scaleup.tp_decode(MODEL, "gb200", n, "nvlink5", 1, 4096, algorithm="switch").time_s * 1e3 for n in ns]
    work = [scaleup.tp_decode(MODEL, "gb200", n, "nvlink5", 1, 4096).work_time_s * 1e3 for n in ns]
    ax.plot([n for n in ns if n <= 8], h, "s-", color="#4C72B0", label=t["h100"])
    ax.plot(ns, ring, "o-", color="#C44E52", label=t["ring"])
    ax.plot(ns, sw, "^-", color="#55A868", label=t["switch"])
    ax.plot(ns, work, ":", color="gray", lw=1.4, label=t["work"])
    i = ring.index(min(ring))
    ax.annotate(f"{ring[i]:.2f} ms", (ns[i], ring[i]), textcoords="offset points", xytext=(-8, 10),
                fontsize=8, color="#C44E52", ha="center")
    ax.annotate(f"{sw[-1]:.2f} ms", (ns[-1], sw[-1]), textcoords="offset points", xytext=(-4, 8),
                fontsize=8, color="#55A868", ha="right")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(ns)
    ax.set_xticklabels([str(n) for n in ns], fontsize=8)
    ax.minorticks_off()
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, frameon=False)
    fig.subplots_adjust(left=0.12, right=0.97, top=0.93, bottom=0.3)
