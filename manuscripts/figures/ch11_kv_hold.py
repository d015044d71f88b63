"""Keeping a Qwen3-8B session's KV cache through a tool call on an H100: GPU-seconds of hold,
offload and recompute against the tool's duration (32,768-token context), and the latency each
adds when the session resumes, against the context length."""
from calculations import queueing

SIZE = (6.4, 3.4)
CONTEXT = 32768
TOOL_S = [i * 0.5 for i in range(0, 121)]
CONTEXTS = [2048 * 2 ** (i / 4) for i in range(0, 17)]
COLORS = {"hold": "#C44E52", "offload": "#55A868", "recompute": "#4C72B0"}


def draw(fig, t):
    eff = queueing.h100_prefill_eff()
    ks = [queueing.kv_hold("qwen3-8b", "h100", CONTEXT, s, compute_eff=eff) for s in TOOL_S]
    ax = fig.add_subplot(1, 2, 1)
    ax.plot(TOOL_S, [k.hold_gpu_s for k in ks], color=COLORS["hold"], lw=1.8, label=t["hold"])
    ax.plot(TOOL_S, [k.offload_gpu_s for k in ks], color=COLORS["offload"], lw=1.8, label=t["offload"])
    ax.plot(TOOL_S, [k.recompute_gpu_s for k in ks], color=COLORS["recompute"], lw=1.8, label=t["recompute"])
    ax.axvline(ks[0].break_even_s, color="0.5", lw=0.8, ls="--")
    ax.set_xlabel(t["x1"], fontsize=9)
    ax.set_ylabel(t["y1"], fontsize=9)
    ax.set_xlim(0, 60)
    top = max(k.hold_gpu_s for k in ks) * 1.05
    ax.set_ylim(-0.03 * top, top)
    ax.tick_params(labelsize=8)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", frameon=False)
    ax2 = fig.add_subplot(1, 2, 2)
    kc = [queueing.kv_hold("qwen3-8b", "h100", int(c), 30.0, compute_eff=eff) for c in CONTEXTS]
    ax2.plot(CONTEXTS, [k.offload_resume_s for k in kc], color=COLORS["offload"], lw=1.8, label=t["offload"])
    ax2.plot(CONTEXTS, [k.recompute_s for k in kc], color=COLORS["recompute"], lw=1.8, label=t["recompute"])
    ax2.set_xscale("log", base=2)
    ax2.set_yscale("log")
    ax2.set_xlabel(t["x2"], fontsize=9)
    ax2.set_ylabel(t["y2"], fontsize=9)
    ax2.tick_params(labelsize=8)
    ax2.grid(True, which="major", alpha=0.3)
    ax2.legend(fontsize=7, loc="upper left", frameon=False)
