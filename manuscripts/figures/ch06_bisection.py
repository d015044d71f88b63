"""All-to-all bandwidth per chip against the size of the domain (@sec-supernodes-nvl72, the
bisection paragraph): each chip can receive at most its own one-way link bandwidth (injection),
and with uniform traffic a quarter of all bytes cross each direction of the bisection, so the
per-chip rate is min(injection, 4 x bisection / chips). A k x k x k torus of TPU v5p chips
(bisection 2k^2 links one way) against a non-blocking NVLink 5 switch domain and 8-GPU H100
nodes joined by one 400 Gb/s NIC per GPU, where each NIC also carries the (n - 8)/n of its GPU's
bytes that leave the server (`calculations.scaleup`)."""
from calculations import scaleup

SIZE = (6.4, 4.4)


def draw(fig, t):
    ici, nv5 = scaleup.link("tpu-v5p-ici"), scaleup.link("nvlink5")
    nv4, ib = scaleup.link("nvlink4"), scaleup.link("ib-ndr-400")
    gb = 1e9
    ks = range(4, 17)
    torus_n = [k ** 3 for k in ks]
    torus = [min(ici.unidirectional, 4 * 2 * k * k * ici.per_link_unidirectional / k ** 3) / gb for k in ks]
    nvl_n = [8, 18, 36, 72]
    nvl = [min(nv5.unidirectional, 4 * (n // 2) * nv5.unidirectional / n) / gb for n in nvl_n]
    node_n = [8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
    # one node: NVLink 4; more nodes: half the GPUs send across the cut through their NICs
    # and each GPU's NIC carries the share (n - 8)/n of its bytes that leaves its server
    node = [nv4.unidirectional / gb if n == 8 else
            min(nv4.unidirectional, 4 * (n // 2) * ib.unidirectional / n,
                ib.unidirectional * n / (n - 8)) / gb for n in node_n]
    ax = fig.add_subplot()
    ax.plot(torus_n, torus, "o-", color="#4C72B0", ms=3.5, label=t["torus"])
    ax.plot(nvl_n, nvl, "s-", color="#55A868", label=t["nvl"])
    ax.plot(node_n, node, "^--", color="#C44E52", ms=4, label=t["nodes"])
    cube = torus_n.index(64)
    ax.annotate(t["cube"], (64, torus[cube]), textcoords="offset points", xytext=(6, 6), fontsize=7.5)
    ax.annotate(t["nvl72"], (72, nvl[-1]), textcoords="offset points", xytext=(6, -12), fontsize=7.5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"], fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
