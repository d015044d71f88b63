"""SOL against the roofline (@sec-accelerators-sol): H100's BF16 roofline, with two kernels at
their achieved FLOP/s: the chapter's n = 4096 square matmul run at the measured MAMF rate (its
compute SOL is its height under the flat roof) and a batch-1 decode GEMV that keeps one 16-byte
load per thread in flight (Little's law caps its memory SOL far below the slanted roof)."""
from calculations import hardware, kernels

SIZE = (6.4, 3.8)
MAMF_H100 = 794.5e12          # the chapter's cited measurement
N = 4096
THREADS, LOAD_BYTES = 256, 16


def points():
    h100 = hardware.get("h100")
    peak, bw = h100.peak_flops("bf16"), h100.hbm_bandwidth
    mm_i = 2 * N ** 3 / (3 * N * N * 2)
    latency = kernels.H100_LATENCY_CYCLES["hbm"] / kernels.H100_BOOST_CLOCK_HZ
    need = bw * latency / kernels.H100_SMS
    gemv_sol = min(1.0, THREADS * LOAD_BYTES / need)
    return peak, bw, (mm_i, MAMF_H100, MAMF_H100 / peak), (1.0, gemv_sol * bw * 1.0, gemv_sol)


def draw(fig, t):
    peak, bw, mm, gemv = points()
    ax = fig.add_subplot()
    xs = [0.25 * 1.2 ** k for k in range(60)]
    ax.loglog(xs, [min(peak, bw * x) / 1e12 for x in xs], color="#333333", lw=1.2,
              label=t["roof"])
    ax.loglog([mm[0]], [mm[1] / 1e12], "o", color="tab:blue", ms=7,
              label=t["mm"].format(sol=t.num(mm[2], "pct digits=0", name="sol_mm_c")))
    ax.loglog([gemv[0]], [gemv[1] / 1e12], "s", color="tab:orange", ms=7,
              label=t["gemv"].format(sol=t.num(gemv[2], "pct digits=0", name="sol_gemv_m")))
    ax.vlines([mm[0]], mm[1] / 1e12, peak / 1e12, colors="tab:blue", linestyles=":", lw=1)
    ax.vlines([gemv[0]], gemv[1] / 1e12, bw * gemv[0] / 1e12, colors="tab:orange",
              linestyles=":", lw=1)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_xlim(0.25, 8000)
    ax.grid(True, which="major", color="#cccccc", lw=0.5)
    ax.legend(fontsize=7.5, loc="lower right", frameon=False)
