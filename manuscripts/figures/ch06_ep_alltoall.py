"""DeepSeek-V3 expert-parallel dispatch + combine time per MoE layer (128 tokens per GPU, FP8
dispatch, BF16 combine) against the expert-parallel size: inside one NVLink 5 domain, across
8-GPU NVLink 4 nodes joined by 400 Gb/s NICs, and over the NICs alone; DeepEP's published
low-latency measurements (H800, 400 Gb/s) as points."""
from calculations import scaleup

SIZE = (6.4, 4.6)


def draw(fig, t):
    ax = fig.add_subplot()
    m = "deepseek-v3"
    eps = [8, 16, 32, 64, 128, 256]
    nvl = [e for e in eps if e <= 72] + [72]
    nvl = sorted(set(nvl))
    ax.plot(nvl, [scaleup.ep_alltoall(m, 128, e, "nvlink5").time_per_layer_s * 1e6 for e in nvl],
            "o-", color="#55A868", label=t["nvl"])
    ax.plot(eps, [scaleup.ep_alltoall(m, 128, e, "nvlink4", devices_per_node=8,
                                      inter_link="ib-ndr-400").time_per_layer_s * 1e6 for e in eps],
            "s-", color="#4C72B0", label=t["nodes"])
    ax.plot(eps, [scaleup.ep_alltoall(m, 128, e, "ib-ndr-400").time_per_layer_s * 1e6 for e in eps],
            "--", color="#C44E52", label=t["ib"])
    meas = scaleup.measurement("deepep-low-latency-h800")
    ax.plot(meas["ep"], [a + b for a, b in zip(meas["dispatch_us"], meas["combine_us"])], "kx", ms=8,
            mew=1.6, ls="none", label=t["meas"])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(eps)
    ax.set_xticklabels([str(e) for e in eps], fontsize=8)
    ax.minorticks_off()
    ax.set_ylim(10, 2000)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, frameon=False)
    fig.subplots_adjust(left=0.13, right=0.97, top=0.93, bottom=0.3)
