"""Scheduling (chapter 11): Little's law, M/M/c and Erlang C, sizing for a tail-latency SLO, GPU sharing and KV holding costs.

Standard library only. `add_commands` registers this module's `calc.py` subcommands.

Conventions: rates are per second, times in seconds, bytes exact integers (GB = 10^9).
A "server" is whatever serves one request at a time: a GPU running one prefill, a MIG
instance, a sandbox. Erlang C is computed from the Erlang B recursion
B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1)), which never forms a^c or c! and so stays
finite for thousands of servers.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from calculations import formulas, hardware, models
from calculations.errors import CalcError

__all__ = [
    "QueueError", "little", "erlang_b", "erlang_c", "MMC", "mmc", "wait_tail", "wait_percentile",
    "response_tail", "response_percentile", "servers_for_wait", "servers_naive", "sqrt_staffing_beta",
    "mgc_mean_wait", "pooling", "prefill_service_time", "size_service", "MIG_PROFILES_H100",
    "mig_profile", "mig_fit", "p_node_free", "mtbi_scaled", "servers_for_blocking", "young_interval", "cold_start", "KVHold", "kv_hold",
    "H100_PCIE_BIDIR", "H100_PCIE_UNI", "H100_BF16_MEASURED", "h100_prefill_eff", "FIRECRACKER_BOOT_S", "FIRECRACKER_VMM_MIB", "add_commands",
]

# ---------------------------------------------------------------- cited facts
# NVIDIA H100 product page, H100 SXM column: "PCIe Gen5: 128GB/s" (both directions added).
H100_PCIE_BIDIR = 128e9
H100_PCIE_UNI = H100_PCIE_BIDIR / 2
# Firecracker SPECIFICATION.md: <= 125 ms from InstanceStart to the guest's /sbin/init,
# VMM threads' memory overhead <= 5 MiB (1 vCPU, 128 MiB guest).
FIRECRACKER_BOOT_S = 0.125
FIRECRACKER_VMM_MIB = 5
# stas00/ml-engineering, compute/accelerator/README.md: maximum achievable matmul FLOPS measured
# on an H100 SXM in BF16 (also used in chapter 4). Divided by the dense peak it is the compute
# efficiency this chapter assumes for a prefill.
H100_BF16_MEASURED = 794.5e12

# The Llama 3 Herd of Models (arXiv:2407.21783), section 3.3.4: a 54-day snapshot of pre-training
# on up to 16,384 H100s had 466 job interruptions, 419 of them unexpected.
LLAMA3_GPUS = 16384
LLAMA3_SNAPSHOT_DAYS = 54
LLAMA3_UNEXPECTED_INTERRUPTIONS = 419
# DeepSeek-V3 Technical Report (arXiv:2412.19437), section 3.1: trained on 2048 H800 GPUs.
DSV3_TRAIN_GPUS = 2048


def mtbi_scaled(gpus, ref_gpus=LLAMA3_GPUS, ref_days=LLAMA3_SNAPSHOT_DAYS,
                ref_events=LLAMA3_UNEXPECTED_INTERRUPTIONS) -> float:
    """Mean time between interruptions (s) of a job on `gpus` devices, scaling a reference
    fleet's interruption rate in proportion to the device count."""
    per_gpu_rate = ref_events / (ref_days * 86400.0) / ref_gpus
    return 1.0 / (per_gpu_rate * _servers(gpus))


def servers_for_blocking(offered_load, target) -> int:
    """Fewest servers with Erlang B blocking <= target (a loss system: no queue; a blocked
    arrival falls back to a cold start). Erlang B depends on the holding time only via its mean."""
    a = _pos(offered_load, "offered load")
    _prob(target, "blocking target")
    # Erlang B's recursion carried from c - 1 servers to c (what `erlang_b(c, a)` recomputes
    # from 1 each time: the same operations, so the same floats, in linear instead of
    # quadratic time; chapter 11 asks for thousands of servers).
    c, b = 0, 1.0
    while True:
        c += 1
        b = a * b / (c + a * b)
        if b <= target:
            return c


def h100_prefill_eff() -> float:
    """Measured best BF16 matmul rate over the dense peak of the H100 SXM (about 0.80)."""
    return H100_BF16_MEASURED / hardware.get("h100").peak_flops("bf16")

# NVIDIA MIG user guide, "Supported MIG Profiles" (H100 80GB: same slice geometry as A100 80GB):
# profile -> (memory slices of 8, compute slices of 7, max instances of that profile on one GPU).
MIG_PROFILES_H100 = {
    "1g.10gb": (1, 1, 7),
    "1g.20gb": (2, 1, 4),
    "2g.20gb": (2, 2, 3),
    "3g.40gb": (4, 3, 2),
    "4g.40gb": (4, 4, 1),
    "7g.80gb": (8, 7, 1),
}
MIG_MEMORY_SLICES = 8
MIG_COMPUTE_SLICES = 7


class QueueError(CalcError):
    pass


def _pos(v, name, zero_ok=False):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or math.isinf(v):
        raise QueueError(f"{name} must be a finite number, got {v!r}")
    if v < 0 or (v == 0 and not zero_ok):
        raise QueueError(f"{name} must be {'non-negative' if zero_ok else 'positive'}, got {v!r}")
    return v


def _servers(c):
    if isinstance(c, bool) or not isinstance(c, int) or c < 1:
        raise QueueError(f"servers must be a positive integer, got {c!r}")
    return c


def _prob(p, name="percentile"):
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p < 1:
        raise QueueError(f"{name} must be in (0, 1), got {p!r}")
    return p


# ------------------------------------------------------------------- Little
def little(arrival_rate, time_in_system):
    """L = lambda W: mean number in the system from arrival rate and mean time in it."""
    return _pos(arrival_rate, "arrival rate", True) * _pos(time_in_system, "time in system", True)


# ------------------------------------------------------------------ Erlang
def erlang_b(servers: int, offered_load: float) -> float:
    """Blocking probability of M/G/c/c (Erlang B) by the stable recursion."""
    c = _servers(servers)
    a = _pos(offered_load, "offered load", True)
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return b


def erlang_c(servers: int, offered_load: float) -> float:
    """Probability that an arrival waits in M/M/c (Erlang C). 1.0 when a >= c (unstable)."""
    c = _servers(servers)
    a = _pos(offered_load, "offered load", True)
    if a >= c:
        return 1.0
    b = erlang_b(c, a)
    return b / (1.0 - (a / c) * (1.0 - b))


@dataclass
class MMC:
    arrival_rate: float
    service_rate: float
    servers: int
    offered_load: float      # a = lambda / mu (erlangs)
    utilization: float       # rho = a / c
    p_wait: float            # Erlang C
    mean_wait: float         # Wq = C / (c mu - lambda)
    mean_response: float     # W = Wq + 1/mu
    mean_queue: float        # Lq = lambda Wq
    mean_in_system: float    # L = lambda W
    decay_rate: float        # c mu - lambda: P(W > t) = C exp(-decay t)

    def to_dict(self) -> dict:
        return asdict(self)


def mmc(arrival_rate, service_rate, servers) -> MMC:
    lam = _pos(arrival_rate, "arrival rate", True)
    mu = _pos(service_rate, "service rate")
    c = _servers(servers)
    a = lam / mu
    if a >= c:
        raise QueueError(f"unstable: offered load {a:.4g} erlangs needs more than {c} servers")
    pw = erlang_c(c, a)
    theta = c * mu - lam
    wq = pw / theta
    w = wq + 1.0 / mu
    return MMC(lam, mu, c, a, a / c, pw, wq, w, lam * wq, lam * w, theta)


def wait_tail(arrival_rate, service_rate, servers, t) -> float:
    """P(W > t) = C exp(-(c mu - lambda) t) for the queueing delay W of M/M/c (FCFS)."""
    q = mmc(arrival_rate, service_rate, servers)
    return q.p_wait * math.exp(-q.decay_rate * _pos(t, "t", True))


def wait_percentile(arrival_rate, service_rate, servers, p=0.99) -> float:
    """Queueing delay not exceeded with probability p: max(0, ln(C / (1 - p)) / (c mu - lambda))."""
    q = mmc(arrival_rate, service_rate, servers)
    tail = 1.0 - _prob(p)
    if q.p_wait <= tail:
        return 0.0
    return math.log(q.p_wait / tail) / q.decay_rate


def response_tail(arrival_rate, service_rate, servers, t) -> float:
    """P(T > t) for the time in system T = W + S of M/M/c (S exponential, independent of W)."""
    q = mmc(arrival_rate, service_rate, servers)
    t = _pos(t, "t", True)
    mu, th, c = q.service_rate, q.decay_rate, q.p_wait
    if abs(th - mu) <= 1e-12 * mu:
        h = (1.0 + mu * t) * math.exp(-mu * t)
    else:
        h = (th * math.exp(-mu * t) - mu * math.exp(-th * t)) / (th - mu)
    return (1.0 - c) * math.exp(-mu * t) + c * h


def response_percentile(arrival_rate, service_rate, servers, p=0.99) -> float:
    """Time in system not exceeded with probability p (bisection on response_tail)."""
    tail = 1.0 - _prob(p)
    q = mmc(arrival_rate, service_rate, servers)
    lo, hi = 0.0, 1.0 / q.service_rate + 1.0 / q.decay_rate
    while response_tail(arrival_rate, service_rate, servers, hi) > tail:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if response_tail(arrival_rate, service_rate, servers, mid) > tail:
            lo = mid
        else:
            hi = mid
    return hi


def servers_for_wait(arrival_rate, service_rate, wait_target, p=0.99, max_servers=1_000_000) -> int:
    """Fewest servers c with P(W > wait_target) <= 1 - p in M/M/c."""
    lam = _pos(arrival_rate, "arrival rate")
    mu = _pos(service_rate, "service rate")
    t = _pos(wait_target, "wait target", True)
    tail = 1.0 - _prob(p)
    c = max(1, math.floor(lam / mu) + 1)
    while c <= max_servers:
        if wait_tail(lam, mu, c, t) <= tail:
            return c
        c += 1
    raise QueueError("no server count up to max_servers meets the target")


def servers_naive(arrival_rate, service_rate, max_utilization=1.0) -> int:
    """ceil(a / u): the servers a utilization-only estimate asks for (ignores waiting)."""
    a = _pos(arrival_rate, "arrival rate", True) / _pos(service_rate, "service rate")
    u = _pos(max_utilization, "max utilization")
    if u > 1:
        raise QueueError("max utilization must be <= 1")
    return max(1, math.ceil(a / u - 1e-12))


def sqrt_staffing_beta(servers, offered_load) -> float:
    """beta in c = a + beta sqrt(a) (square-root staffing), for comparing sizes across scales."""
    return (_servers(servers) - offered_load) / math.sqrt(_pos(offered_load, "offered load"))


def mgc_mean_wait(arrival_rate, service_rate, servers, cs2=1.0, ca2=1.0) -> float:
    """Allen-Cunneen approximation for G/G/c: Wq ~ Wq(M/M/c) x (ca^2 + cs^2) / 2.
    cs2 = squared coefficient of variation of service time (0 deterministic, 1 exponential)."""
    q = mmc(arrival_rate, service_rate, servers)
    return q.mean_wait * (_pos(ca2, "ca2", True) + _pos(cs2, "cs2", True)) / 2.0


def pooling(arrival_rate, service_rate, wait_target, pools, p=0.99) -> dict:
    """Servers for one shared pool vs `pools` equal pools that each get arrival_rate / pools."""
    pools = _servers(pools)
    each = servers_for_wait(arrival_rate / pools, service_rate, wait_target, p)
    pooled = servers_for_wait(arrival_rate, service_rate, wait_target, p)
    return {"pools": pools, "servers_each": each, "servers_split": each * pools, "servers_pooled": pooled,
            "saved": each * pools - pooled,
            "utilization_split": arrival_rate / service_rate / (each * pools),
            "utilization_pooled": arrival_rate / service_rate / pooled}


# ----------------------------------------------------------- LLM service sizing
def prefill_service_time(m, hw, prompt_tokens, compute_eff=1.0, dtype="bf16") -> float:
    """Seconds one device spends on one prompt's prefill: whole-pass roofline at compute_eff."""
    fw = formulas.forward(m, prompt_tokens, hw=hw, dtype=dtype, compute_eff=compute_eff)
    return fw.totals.roofline_time_s


def size_service(m, hw, arrival_rate, prompt_tokens, ttft_target, p=0.99, compute_eff=1.0,
                 max_utilization=1.0, pools=1) -> dict:
    """GPUs for the prefill of a chat service: TTFT = queueing delay + own prefill time, with the
    delay's p-quantile held within ttft_target - prefill (M/M/c, one prefill per GPU at a time)."""
    m = models.get(m) if isinstance(m, str) else m
    hw = hardware.get(hw)
    s = prefill_service_time(m, hw, prompt_tokens, compute_eff)
    budget = _pos(ttft_target, "TTFT target") - s
    if budget < 0:
        raise QueueError(f"TTFT target {ttft_target:.4g} s is below the prefill time {s:.4g} s itself")
    mu = 1.0 / s
    a = arrival_rate / mu
    c = servers_for_wait(arrival_rate, mu, budget, p)
    q = mmc(arrival_rate, mu, c)
    out = {"model": m.id, "hardware": hw.id, "arrival_rate": arrival_rate, "prompt_tokens": prompt_tokens,
           "compute_eff": compute_eff, "prefill_s": s, "service_rate": mu, "offered_load": a,
           "ttft_target": ttft_target, "percentile": p, "wait_budget": budget,
           "servers_naive": servers_naive(arrival_rate, mu, 1.0),
           "servers_naive_capped": servers_naive(arrival_rate, mu, max_utilization),
           "max_utilization": max_utilization, "servers": c, "utilization": q.utilization,
           "p_wait": q.p_wait, "mean_wait": q.mean_wait,
           "wait_quantile": wait_percentile(arrival_rate, mu, c, p),
           "ttft_quantile": wait_percentile(arrival_rate, mu, c, p) + s,
           "beta": sqrt_staffing_beta(c, a)}
    if pools > 1:
        pl = pooling(arrival_rate, mu, budget, pools, p)
        out.update(pools=pools, servers_split=pl["servers_split"], servers_each=pl["servers_each"])
    return out


# ----------------------------------------------------------------- GPU sharing
def mig_profile(name, hw="h100") -> dict:
    """One MIG instance of an H100 80GB: memory, compute and (proportional) bandwidth share."""
    hw = hardware.get(hw)
    if hw.id != "h100":
        raise QueueError("MIG profile table recorded for the H100 80GB only")
    if name not in MIG_PROFILES_H100:
        raise QueueError(f"unknown MIG profile {name!r}; known: {', '.join(MIG_PROFILES_H100)}")
    mem, comp, n = MIG_PROFILES_H100[name]
    return {"profile": name, "memory_slices": mem, "compute_slices": comp, "max_instances": n,
            "memory_fraction": mem / MIG_MEMORY_SLICES, "compute_fraction": comp / MIG_COMPUTE_SLICES,
            "memory_bytes": hw.hbm_bytes * mem // MIG_MEMORY_SLICES,
            "bandwidth": hw.hbm_bandwidth * mem / MIG_MEMORY_SLICES,
            "peak_flops": hw.peak_flops("bf16") * comp / MIG_COMPUTE_SLICES}


def mig_fit(m, profile, hw="h100", dtype="bf16", instances=None) -> dict:
    """Serve model m on `instances` (default: max) MIG instances of `profile`: weights per
    instance, KV room left per instance and in total (vs the whole GPU), and the weight-read
    bound on one decode step in one instance."""
    m = models.get(m) if isinstance(m, str) else m
    hw = hardware.get(hw)
    pr = mig_profile(profile, hw)
    n = pr["max_instances"] if instances is None else _servers(instances)
    if n * pr["memory_slices"] > MIG_MEMORY_SLICES or n * pr["compute_slices"] > MIG_COMPUTE_SLICES:
        raise QueueError(f"{n} x {profile} exceeds one GPU")
    w = formulas.nbytes(m.params_total, dtype)
    kv_each = pr["memory_bytes"] - w
    fits = kv_each > 0
    whole = hw.hbm_bytes - w
    return dict(pr, model=m.id, instances=n, weight_bytes=w, fits=fits,
                kv_room_each=kv_each if fits else 0, kv_room_total=n * kv_each if fits else 0,
                kv_room_whole_gpu=whole, weight_read_s=w / pr["bandwidth"],
                weight_read_whole_s=w / hw.hbm_bandwidth)


# --------------------------------------------------------- training clusters
def p_node_free(utilization, gpus_per_node=8) -> float:
    """Probability an n-GPU node is entirely free when each GPU is busy independently with
    probability `utilization` (scattered single-GPU jobs): (1 - u)^n."""
    u = _pos(utilization, "utilization", True)
    if u > 1:
        raise QueueError("utilization must be <= 1")
    return (1.0 - u) ** _servers(gpus_per_node)


def young_interval(checkpoint_s, mtbi_s) -> float:
    """Young's first-order optimal checkpoint interval sqrt(2 delta M): delta = time to write a
    checkpoint, M = mean time between interruptions (failures or preemptions)."""
    return math.sqrt(2.0 * _pos(checkpoint_s, "checkpoint time") * _pos(mtbi_s, "mean time between interruptions"))


def cold_start(image_bytes, registry_bw, weight_bytes, storage_bw, host_to_gpu_bw, init_s=0.0) -> dict:
    """Cold start of a model server, stage by stage (bytes/s): image pull, weight read from
    storage, host-to-GPU copy, then initialization (graph capture, warm-up)."""
    pull = _pos(image_bytes, "image bytes", True) / _pos(registry_bw, "registry bandwidth")
    read = _pos(weight_bytes, "weight bytes", True) / _pos(storage_bw, "storage bandwidth")
    copy = weight_bytes / _pos(host_to_gpu_bw, "host-to-GPU bandwidth")
    init = _pos(init_s, "init time", True)
    return {"pull_s": pull, "read_s": read, "copy_s": copy, "init_s": init,
            "serial_s": pull + read + copy + init,
            "streamed_s": pull + max(read, copy) + init}


# -------------------------------------------------------- KV through a tool call
@dataclass
class KVHold:
    model: str
    hardware: str
    context: int
    tool_s: float
    kv_bytes: int
    weight_bytes: int
    free_bytes: int            # HBM left after weights
    share: float               # kv_bytes / free_bytes
    hold_gpu_s: float          # share x tool_s
    hold_resume_s: float       # 0
    transfer_s: float          # one way over the host link
    offload_gpu_s: float       # share x (out + back) transfers
    offload_resume_s: float    # reload when the tool returns
    host_bytes: int
    recompute_s: float         # prefill of the context again
    recompute_gpu_s: float     # the whole GPU for that time
    recompute_flops: int
    break_even_s: float        # tool time at which hold costs what recompute costs

    def to_dict(self) -> dict:
        return asdict(self)


def kv_hold(m, hw, context, tool_s, host_bw=None, compute_eff=1.0, kv_dtype="bf16", dtype="bf16") -> KVHold:
    """Three ways to keep a session's KV cache across a tool call of tool_s seconds:
    hold it in HBM, offload it to host memory and back (host_bw bytes/s one way, default
    the H100's PCIe Gen5 x16 one-way), or drop it and re-run the prefill."""
    m = models.get(m) if isinstance(m, str) else m
    hw = hardware.get(hw)
    t = _pos(tool_s, "tool time", True)
    bw = H100_PCIE_UNI if host_bw is None else _pos(host_bw, "host bandwidth")
    kv = formulas.kv_cache_bytes(m, context, 1, kv_dtype)
    w = formulas.nbytes(m.params_total, dtype)
    free = hw.hbm_bytes - w
    if free <= 0 or kv > free:
        raise QueueError("the KV cache does not fit next to the weights on one device")
    share = kv / free
    xfer = kv / bw
    fw = formulas.forward(m, context, hw=hw, dtype=dtype, kv_dtype=kv_dtype, compute_eff=compute_eff)
    rec = fw.totals.roofline_time_s
    return KVHold(m.id, hw.id, context, t, kv, w, free, share, share * t, 0.0, xfer, share * 2 * xfer, xfer,
                  kv, rec, rec, fw.totals.flops, rec / share)


# ------------------------------------------------------------------- commands
def _rate_args(sp):
    sp.add_argument("--rate", type=float, required=True, help="arrivals per second (lambda)")
    g = sp.add_mutually_exclusive_group(required=True)
    g.add_argument("--service-time", type=float, help="mean service time per request, seconds (1/mu)")
    g.add_argument("--service-rate", type=float, help="requests per second one server completes (mu)")


def cmd_erlang(args):
    from calculations import tables
    mu = args.service_rate if args.service_rate else 1.0 / _pos(args.service_time, "service time")
    a = args.rate / mu
    cs = args.servers or list(range(math.floor(a) + 1, math.floor(a) + 9))
    rows = []
    for c in cs:
        if a >= c:
            rows.append({"servers": c, "utilization": a / c, "p_wait": 1.0, "mean_wait": None,
                         "wait_p": None, "response_p": None})
            continue
        q = mmc(args.rate, mu, c)
        rows.append({"servers": c, "utilization": q.utilization, "p_wait": q.p_wait, "mean_wait": q.mean_wait,
                     "mean_response": q.mean_response, "mean_queue": q.mean_queue,
                     "wait_p": wait_percentile(args.rate, mu, c, args.percentile),
                     "response_p": response_percentile(args.rate, mu, c, args.percentile)})
    pc = f"p{args.percentile * 100:g}"
    cols = [("servers", "servers", "int"), ("utilization", "utilization", "float"),
            ("p_wait", "P(wait) Erlang C", "float"), ("mean_wait", "mean wait", "sec"),
            ("wait_p", f"{pc} wait", "sec"), ("response_p", f"{pc} time in system", "sec"),
            ("mean_queue", "mean queue", "float")]
    title = f"M/M/c: lambda {args.rate:g}/s, mu {mu:.4g}/s, offered load {a:.4g} erlangs"
    return tables.render(rows, cols, args.format, title="" if args.format == "csv" else title)


def _model(args):
    if getattr(args, "config", None):
        return models.load_config(args.config)
    if not getattr(args, "model", None):
        raise QueueError("give --model ID (see `calc.py models`) or --config PATH to a config.json")
    return models.get(args.model)


def _hw(args, default=None):
    if getattr(args, "hardware_config", None):
        return hardware.load(args.hardware_config)
    if getattr(args, "hardware", None) or default:
        return hardware.get(args.hardware or default)
    raise QueueError("give --hardware ID (see `calc.py hardware`) or --hardware-config PATH")


def _cmd_size_service(args):
    from calculations import tables
    r = size_service(_model(args), _hw(args), args.rate, args.prompt_tokens, args.ttft, args.percentile,
                     args.compute_eff, args.max_utilization, args.pools)
    pc = f"p{args.percentile * 100:g}"
    items = [("model", "model", r["model"], "str"), ("hardware", "hardware", r["hardware"], "str"),
             ("arrival_rate", "arrivals per second", r["arrival_rate"], "float"),
             ("prompt_tokens", "prompt tokens", r["prompt_tokens"], "int"),
             ("prefill_s", f"prefill time per request (compute eff {r['compute_eff']:g})", r["prefill_s"], "sec"),
             ("offered_load", "offered load (busy GPUs on average)", r["offered_load"], "float"),
             ("servers_naive", "GPUs, utilization-only ceil(a)", r["servers_naive"], "int"),
             ("servers_naive_capped", f"GPUs at <= {r['max_utilization']:g} utilization", r["servers_naive_capped"], "int"),
             ("servers", f"GPUs for {pc} TTFT <= {r['ttft_target']:g} s (Erlang C)", r["servers"], "int"),
             ("utilization", "utilization at that size", r["utilization"], "float"),
             ("p_wait", "P(wait)", r["p_wait"], "float"),
             ("wait_quantile", f"{pc} queueing delay", r["wait_quantile"], "sec"),
             ("ttft_quantile", f"{pc} TTFT = delay + prefill", r["ttft_quantile"], "sec"),
             ("beta", "beta in c = a + beta sqrt(a)", r["beta"], "float")]
    if "pools" in r:
        items.append(("servers_split", f"GPUs if split into {r['pools']} separate pools", r["servers_split"], "int"))
    return tables.render_kv(items, args.format, raw=r, title=f"{r['model']} prefill pool on {r['hardware']}")


def _cmd_kv_hold(args):
    from calculations import tables
    k = kv_hold(_model(args), _hw(args), args.context, args.tool_seconds,
                args.host_gbs * 1e9 if args.host_gbs else None, args.compute_eff, args.kv_dtype)
    if args.format == "json":
        return tables.dumps(k.to_dict())
    rows = [{"strategy": "hold in HBM", "gpu_s": k.hold_gpu_s, "resume_s": k.hold_resume_s,
             "hbm_bytes": k.kv_bytes, "host_bytes": 0},
            {"strategy": "offload to host", "gpu_s": k.offload_gpu_s, "resume_s": k.offload_resume_s,
             "hbm_bytes": 0, "host_bytes": k.host_bytes},
            {"strategy": "drop and recompute", "gpu_s": k.recompute_gpu_s, "resume_s": k.recompute_s,
             "hbm_bytes": 0, "host_bytes": 0}]
    cols = [("strategy", "strategy", "str"), ("gpu_s", "GPU-seconds", "float"),
            ("resume_s", "added latency", "sec"), ("hbm_bytes", "HBM held during tool", "bytes"),
            ("host_bytes", "host memory", "bytes")]
    title = (f"{k.model} on {k.hardware}: {k.context} tokens of KV = {k.kv_bytes:,} B "
             f"({k.share:.1%} of free HBM), tool call {k.tool_s:g} s; hold beats recompute below "
             f"{k.break_even_s:.3g} s")
    return tables.render(rows, cols, args.format, title="" if args.format == "csv" else title)


def _cmd_mig(args):
    from calculations import tables
    m = _model(args)
    rows = [mig_fit(m, p, _hw(args, "h100"), args.dtype) for p in MIG_PROFILES_H100]
    cols = [("profile", "profile", "str"), ("instances", "instances", "int"),
            ("memory_bytes", "memory each", "bytes"), ("compute_fraction", "compute share", "float"),
            ("bandwidth", "bandwidth each B/s", "si"), ("fits", "weights fit", "str"),
            ("kv_room_each", "KV room each", "bytes"), ("kv_room_total", "KV room, all instances", "bytes"),
            ("weight_read_s", "weight read per decode step", "sec")]
    return tables.render(rows, cols, args.format, title="" if args.format == "csv" else
                         f"{m.id} ({args.dtype}) on MIG instances of one H100 80GB")


def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
    s = sub.add_parser("erlang", help="M/M/c (Erlang C): P(wait), mean and percentile waits per server count")
    common(s, model=False)
    _rate_args(s)
    s.add_argument("--servers", "-c", type=int, nargs="*", help="server counts (default: 8 stable ones)")
    s.add_argument("--percentile", type=float, default=0.99)
    s.set_defaults(func=cmd_erlang)

    s = sub.add_parser("size-service", help="GPUs for a prefill pool to meet a TTFT percentile (Erlang C)")
    common(s, hw=True, hw_required=True)
    s.add_argument("--rate", type=float, required=True, help="requests per second")
    s.add_argument("--prompt-tokens", type=int, default=2048)
    s.add_argument("--ttft", type=float, required=True, help="TTFT target at the percentile, seconds")
    s.add_argument("--percentile", type=float, default=0.99)
    s.add_argument("--compute-eff", type=float, default=1.0, help="achievable fraction of peak FLOPs")
    s.add_argument("--max-utilization", type=float, default=0.8, help="for the naive capped estimate")
    s.add_argument("--pools", type=int, default=1, help="also size N separate equal pools")
    s.set_defaults(func=_cmd_size_service)

    s = sub.add_parser("kv-hold", help="hold, offload or recompute a session's KV through a tool call")
    common(s, hw=True, hw_required=True)
    s.add_argument("--context", "-c", type=int, default=32768, help="tokens in the session's KV cache")
    s.add_argument("--tool-seconds", type=float, default=30.0)
    s.add_argument("--host-gbs", type=float, help="host link GB/s one way (default: H100 PCIe Gen5 x16, 64)")
    s.add_argument("--compute-eff", type=float, default=1.0)
    s.add_argument("--kv-dtype", default="bf16")
    s.set_defaults(func=_cmd_kv_hold)

    s = sub.add_parser("mig", help="a model on each MIG profile of an H100 80GB")
    common(s, hw=True)
    s.add_argument("--dtype", default="bf16")
    s.set_defaults(func=_cmd_mig)
