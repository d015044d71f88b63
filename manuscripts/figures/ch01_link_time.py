"""Time to move a message of n bytes, t = latency + n / bandwidth, on the paths of the chapter's
latency table (@sec-getting-started-latency-numbers): HBM, NVLink, a 400 Gb/s NIC and an NVMe
SSD, with the size at which the transfer time equals the latency marked on each, and one
Qwen3-8B token's KV cache as a vertical line. Latencies and bandwidths are the chapter's."""
from calculations import collectives, formulas, hardware, kernels, models, serving

SIZE = (6.4, 3.8)
NIC_GBIT = 400          # the chapter's nic_gbit
SSD_LAT = 60e-6         # the chapter's ssd_lat


def paths():
    h100 = hardware.get("h100")
    lat = collectives.data()["nccl"]["latency_model_us"]
    hbm_lat = kernels.H100_LATENCY_CYCLES["hbm"] / kernels.H100_BOOST_CLOCK_HZ
    return [("hbm", hbm_lat, h100.hbm_bandwidth),
            ("nvlink", lat["ring_ll_nvlink_step"] * 1e-6, h100.link_unidirectional),
            ("nic", lat["ring_ll_net_step"] * 1e-6, collectives.gbps_to_bytes(NIC_GBIT)),
            ("ssd", SSD_LAT, serving.NVME_GEN5_READ)]


def draw(fig, t):
    ax = fig.add_subplot()
    sizes = [2 ** (i / 4) for i in range(24, 4 * 31)]
    for i, (key, lat, bw) in enumerate(paths()):
        ax.plot(sizes, [lat + n / bw for n in sizes], linewidth=1.6, color=f"C{i}",
                label=t[key].format(lat=t.num(lat, "si unit=μs digits=2"),
                                    bw=t.num(bw, "si unit=GB/s digits=0")))
        ax.plot([lat * bw], [2 * lat], marker="o", markersize=4, color=f"C{i}")
    kv = formulas.kv_bytes_per_token(models.get("qwen3-8b"))
    ax.axvline(kv, color="#333333", linewidth=0.8, linestyle=":")
    ax.annotate(t["kv"].format(kv=t.num(kv, "si unit=kB digits=1")), (kv, 3e-3),
                xytext=(3, 0), textcoords="offset points", fontsize=7.5)
    ax.set_xscale("log", base=10)
    ax.set_yscale("log", base=10)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="upper left")
