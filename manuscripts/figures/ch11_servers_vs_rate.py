"""GPUs for the prefill of a Qwen3-8B chat service on H100s against the arrival rate:
Erlang C sizing for a p99 TTFT target vs the utilization-only and 80 %-utilization rules,
and the utilization each Erlang size runs at."""
import math

from calculations import queueing

SIZE = (6.4, 3.4)
PROMPT = 2048
TTFT = 0.1
RATES = [10 * 1.2 ** i for i in range(0, 27)]


def draw(fig, t):
    eff = queueing.h100_prefill_eff()
    rs = [queueing.size_service("qwen3-8b", "h100", lam, PROMPT, TTFT, 0.99, eff, 0.8) for lam in RATES]
    ax = fig.add_subplot(1, 2, 1)
    ax.plot(RATES, [r["servers"] for r in rs], color="#4C72B0", lw=1.8, label=t["erlang"])
    ax.plot(RATES, [r["servers_naive"] for r in rs], color="#C44E52", lw=1.2, ls="--", label=t["naive"])
    ax.plot(RATES, [r["servers_naive_capped"] for r in rs], color="#8172B2", lw=1.2, ls=":", label=t["cap"])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(t["x"], fontsize=9)
    ax.set_ylabel(t["y"], fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", frameon=False)
    ax2 = fig.add_subplot(1, 2, 2)
    ax2.plot(RATES, [r["utilization"] for r in rs], color="#4C72B0", lw=1.8)
    ax2.axhline(0.8, color="#8172B2", lw=1.0, ls=":")
    ax2.set_xscale("log")
    ax2.set_ylim(0, 1.0)
    ax2.set_xlabel(t["x"], fontsize=9)
    ax2.set_ylabel(t["u"], fontsize=9)
    ax2.tick_params(labelsize=8)
    ax2.grid(True, which="major", alpha=0.3)
