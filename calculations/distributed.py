"""Distributed inference (chapter 9): parallel layouts for serving, prefill/decode disaggregation, expert imbalance, cold start and recovery.

Standard library only. `add_commands` registers this module's `calc.py` subcommands.

Conventions (see README): bytes are exact ints where they count whole tensors;
bandwidths are one direction in B/s (a 400 Gb/s NIC is 50e9 B/s); times are
lower bounds (a link or a roofline at 100 % unless an efficiency is given).
The small collective formulas are kept here on purpose (ring all-reduce:
each device sends 2 (n-1)/n x the buffer; all-to-all: (n-1)/n of what it
routes leaves the device).
"""
from __future__ import annotations

from calculations import cliargs

import json
import math
import os
from dataclasses import dataclass, asdict
from typing import Optional

from . import formulas, hardware as _hw, models as _models
from .errors import CalcError

__all__ = [
    "DistributedError", "StorageTier", "EPDecode", "Disaggregation", "STORAGE_FILE",
    "LLAMA3_UNEXPECTED_INTERRUPTIONS", "LLAMA3_GPUS", "LLAMA3_DAYS",
    "gbit_s", "storage_tiers", "storage_tier",
    "tp_allreduce_bytes_per_step", "tp_allreduce_time", "pp_handoff_bytes_per_step",
    "pp_bubble_fraction", "pp_decode", "ep_a2a_bytes_per_step", "per_token_comm",
    "weight_split", "ep_decode", "experts_hit_fraction",
    "kv_transfer_bytes", "prefill_seconds", "disaggregation", "colocated_tpot",
    "zipf_loads", "place_experts", "binomial_max_over_mean",
    "load_seconds", "cold_start", "failure_redo", "unit_failure_rate_per_hour", "unit_mtbf_hours",
    "add_commands",
]

STORAGE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "storage.json")

# Llama 3 (arXiv 2407.21783, section 3.3.4): 419 unexpected interruptions in a
# 54-day snapshot of pre-training on 16,384 H100 GPUs.
LLAMA3_UNEXPECTED_INTERRUPTIONS = 419
LLAMA3_GPUS = 16384
LLAMA3_DAYS = 54


class DistributedError(CalcError):
    """Bad argument to a chapter-9 formula (user-facing, no traceback)."""


def _pos(v, name, zero_ok=False, integer=False):
    bad = isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v < 0 or (v == 0 and not zero_ok)
    if integer and not isinstance(v, int):
        bad = True
    if bad:
        raise DistributedError(f"{name} must be a {'non-negative' if zero_ok else 'positive'}"
                               f" {'integer' if integer else 'number'}, got {v!r}")
    return v


def gbit_s(gbits: float) -> float:
    """A line rate in Gb/s as bytes per second (400 -> 50e9)."""
    _pos(gbits, "Gb/s")
    return gbits * 1e9 / 8


# =================================================================== storage tiers
@dataclass(frozen=True)
class StorageTier:
    id: str
    name: str
    kind: str            # local-nvme, network-storage, host-to-device, peer-gpu-rdma
    scope: str           # drive, node or gpu: what one `bandwidth` figure belongs to
    bandwidth: float     # B/s, one direction
    source_title: str
    source_url: str
    derived: str = ""
    notes: str = ""


_TIERS = None


def storage_tiers() -> list:
    global _TIERS
    if _TIERS is None:
        with open(STORAGE_FILE, encoding="utf-8") as f:
            data = json.load(f)
        _TIERS = [StorageTier(t["id"], t["name"], t["kind"], t["scope"], t["bandwidth_gb_s"] * 1e9,
                              t["source"]["title"], t["source"]["url"], t.get("derived", ""), t.get("notes", ""))
                  for t in data["tiers"]]
    return list(_TIERS)


def storage_tier(tier_id: str) -> StorageTier:
    for t in storage_tiers():
        if t.id == str(tier_id).lower():
            return t
    raise DistributedError(f"unknown storage tier {tier_id!r} (choose from "
                           f"{', '.join(t.id for t in storage_tiers())})")


# ====================================================== per-token cost of TP / PP / EP / DP
def _act_bytes(dtype):
    return formulas.nbytes(1, dtype)


def tp_allreduce_bytes_per_step(m, tp: int, batch: int = 1, dtype: str = "bf16") -> float:
    """Bytes each device sends in one decode step under tensor parallelism:
    two ring all-reduces of the hidden state per layer (after attention and
    after the MLP), each 2 (n-1)/n x batch x hidden x bytes."""
    _pos(tp, "tp", integer=True)
    _pos(batch, "batch", integer=True)
    size = batch * m.hidden_size * _act_bytes(dtype)
    return m.num_layers * 2 * (2 * (tp - 1) / tp) * size


def tp_allreduce_time(m, tp: int, batch: int, link_bw: float, dtype: str = "bf16",
                      latency_s: float = 0.0) -> float:
    """Seconds per decode step spent in TP all-reduces: bandwidth term over the
    one-way link plus 2 (n-1) hops of fixed latency per all-reduce."""
    _pos(link_bw, "link_bw")
    _pos(latency_s, "latency_s", zero_ok=True)
    if tp == 1:
        return 0.0
    return (tp_allreduce_bytes_per_step(m, tp, batch, dtype) / link_bw
            + m.num_layers * 2 * 2 * (tp - 1) * latency_s)


def pp_handoff_bytes_per_step(m, stages: int, batch: int = 1, dtype: str = "bf16") -> int:
    """Bytes crossing stage boundaries in one decode step under pipeline
    parallelism: the hidden state once per boundary."""
    _pos(stages, "stages", integer=True)
    return (stages - 1) * batch * m.hidden_size * _act_bytes(dtype)


def pp_bubble_fraction(stages: int, microbatches: int) -> float:
    """Idle fraction of a pipeline that is filled and drained once:
    (p - 1) / (m + p - 1). In steady-state serving with >= p micro-batches in
    flight it tends to 0."""
    _pos(stages, "stages", integer=True)
    _pos(microbatches, "microbatches", integer=True)
    return (stages - 1) / (microbatches + stages - 1)


def pp_decode(step_s: float, stages: int, microbatches: int, hop_s: float = 0.0) -> dict:
    """One decode step whose whole-model time on one device is `step_s`, cut
    into `stages` equal stages with `microbatches` in flight. Per-token latency
    does not fall (each token still crosses every stage, plus hops); steady
    throughput rises with min(microbatches, stages)."""
    _pos(step_s, "step_s")
    _pos(hop_s, "hop_s", zero_ok=True)
    _pos(microbatches, "microbatches", integer=True)
    stage_s = step_s / stages
    latency = stages * stage_s + (stages - 1) * hop_s
    busy = min(microbatches, stages)
    return {"stage_s": stage_s, "latency_s": latency, "throughput_gain": busy,
            "utilization": busy / stages}


def ep_a2a_bytes_per_step(m, ep: int, tokens: int = 1, dispatch_dtype: str = "fp8",
                          combine_dtype: str = "bf16") -> float:
    """Bytes one device sends in one decode step under expert parallelism for
    `tokens` tokens it owns: per MoE layer each token goes to top-k experts
    (dispatch, FP8 in DeepSeek's deployment) and comes back weighted (combine,
    BF16); a fraction (ep-1)/ep of the destinations is another device."""
    _pos(ep, "ep", integer=True)
    _pos(tokens, "tokens", integer=True)
    if not m.is_moe:
        raise DistributedError(f"{m.id} has no routed experts")
    per_layer = tokens * m.experts_per_token * m.hidden_size * (
        _act_bytes(dispatch_dtype) + _act_bytes(combine_dtype))
    return m.num_moe_layers * per_layer * (ep - 1) / ep


def per_token_comm(m, tp: int = 8, pp: int = 8, ep: int = 8, dtype: str = "bf16") -> list:
    """The four forms side by side for one token of one sequence: bytes a
    device sends per generated token, the collective, and how often."""
    rows = [
        {"form": "TP", "degree": tp, "collective": "all-reduce (ring)", "per_token": "2 per layer",
         "bytes": tp_allreduce_bytes_per_step(m, tp, 1, dtype), "ops": 2 * m.num_layers},
        {"form": "PP", "degree": pp, "collective": "point-to-point send", "per_token": "1 per stage boundary",
         "bytes": float(pp_handoff_bytes_per_step(m, pp, 1, dtype)), "ops": pp - 1},
    ]
    if m.is_moe:
        rows.append({"form": "EP", "degree": ep, "collective": "all-to-all dispatch + combine",
                     "per_token": "2 per MoE layer", "bytes": ep_a2a_bytes_per_step(m, ep, 1),
                     "ops": 2 * m.num_moe_layers})
    rows.append({"form": "DP", "degree": 1, "collective": "none (whole replica)", "per_token": "0",
                 "bytes": 0.0, "ops": 0})
    return rows


# =========================================================== expert-parallel decode
def weight_split(m) -> dict:
    """Parameters that every data-parallel attention rank holds (attention,
    dense MLPs, shared experts, routers, norms, embedding, head) versus the
    routed experts that expert parallelism shards."""
    routed = m.num_moe_layers * m.num_experts * m.expert_params()
    return {"routed": routed, "replicated": m.params_total - routed,
            "per_expert_all_layers": m.num_moe_layers * m.expert_params()}


def experts_hit_fraction(tokens_routed: int, n_experts: int, k: int) -> float:
    """Expected fraction of experts receiving at least one token when
    `tokens_routed` tokens each pick k of n experts uniformly: 1 - (1 - k/n)^tokens."""
    _pos(tokens_routed, "tokens", zero_ok=True, integer=True)
    return 1.0 - (1.0 - k / n_experts) ** tokens_routed


@dataclass
class EPDecode:
    model: str
    hardware: str
    ep: int
    batch_per_gpu: int
    context: int
    redundant: int
    experts_per_gpu: int
    weight_bytes_per_gpu: int       # resident (capacity)
    kv_bytes_per_gpu: int           # resident KV of the GPU's own sequences
    memory_bytes_per_gpu: int
    capacity_bytes: int
    fits: bool
    weight_read_bytes: float        # read in one decode step
    kv_read_bytes: int
    bytes_read: float
    flops: float
    compute_s: float
    memory_s: float
    gpu_s: float                    # roofline of the local work
    a2a_bytes: float                # sent by one GPU in one step
    a2a_s: float
    tpot_s: float                   # gpu_s + a2a_s (no overlap)
    tpot_overlap_s: float           # max(gpu_s, a2a_s) (perfect two-micro-batch overlap)
    tokens_per_s_per_gpu: float
    bound: str

    def to_dict(self) -> dict:
        return asdict(self)


def ep_decode(m, hw, ep: int, batch_per_gpu: int, context: int, weight_dtype: str = "fp8",
              kv_dtype: str = "bf16", nic_bw: float = 50e9, a2a_latency_s: float = 0.0,
              redundant: int = 0, imbalance: float = 1.0, usable: float = 1.0) -> EPDecode:
    """One decode step of a routed-expert MoE served with data-parallel attention
    and `ep`-way expert parallelism (DeepSeek's decode layout). Each GPU holds
    the replicated weights plus ceil((E + redundant) / ep) experts per MoE
    layer, decodes `batch_per_gpu` sequences of `context` tokens, and exchanges
    dispatch/combine traffic over one NIC of `nic_bw` B/s. `imbalance` is the
    max/mean expert load of the hottest GPU (1 = perfect balance); it scales
    the expert FLOPs and the bytes that GPU receives. `usable` is the share of HBM
    the engine leaves for weights and KV (0.9 is vLLM's default
    gpu_memory_utilization): the fit check is against hbm_bytes x usable, since an
    80 GiB card cannot give all 85.9 GB to the model."""
    hw = _hw.get(hw)
    if not 0 < usable <= 1:
        raise DistributedError(f"usable is a share of device memory in (0, 1], got {usable!r}")
    _pos(ep, "ep", integer=True)
    _pos(batch_per_gpu, "batch_per_gpu", integer=True)
    _pos(context, "context", zero_ok=True, integer=True)
    _pos(redundant, "redundant", zero_ok=True, integer=True)
    if not imbalance >= 1.0:
        raise DistributedError(f"imbalance is max/mean load and must be >= 1, got {imbalance!r}")
    if not m.is_moe:
        raise DistributedError(f"{m.id} has no routed experts")
    split = weight_split(m)
    wb = formulas.nbytes(1, weight_dtype)
    experts_per_gpu = -(-(m.num_experts + redundant) // ep)
    weight_params = split["replicated"] + experts_per_gpu * split["per_expert_all_layers"]
    weight_bytes = weight_params * wb
    kv_tok = formulas.kv_bytes_per_token(m, kv_dtype)
    kv_bytes = batch_per_gpu * context * kv_tok
    mem = weight_bytes + kv_bytes
    # bytes read in one step: replicated weights except the input embedding (a
    # lookup of `batch` rows), the local experts that receive a token, the KV.
    hit = experts_hit_fraction(ep * batch_per_gpu, m.num_experts, m.experts_per_token)
    weight_read = ((split["replicated"] - m.params_embedding) * wb
                   + experts_per_gpu * hit * split["per_expert_all_layers"] * wb)
    kv_read = batch_per_gpu * context * kv_tok
    bytes_read = weight_read + kv_read
    fw = formulas.forward(m, 1, batch=batch_per_gpu, context=context, dtype=weight_dtype, kv_dtype=kv_dtype)
    expert_flops = 2 * batch_per_gpu * m.experts_per_token * m.expert_params() * m.num_moe_layers
    flops = fw.totals.flops + (imbalance - 1.0) * expert_flops
    prec = formulas.compute_precision(hw, weight_dtype)[0]
    compute_s = flops / hw.peak_flops(prec)
    memory_s = bytes_read / hw.hbm_bandwidth
    gpu_s = max(compute_s, memory_s)
    a2a_bytes = ep_a2a_bytes_per_step(m, ep, batch_per_gpu) * imbalance
    a2a_s = a2a_bytes / nic_bw + (m.num_moe_layers * 2 * a2a_latency_s if ep > 1 else 0.0)
    tpot = gpu_s + a2a_s
    bound = "communication" if a2a_s > gpu_s else ("compute" if compute_s >= memory_s else "memory")
    return EPDecode(m.id, hw.id, ep, batch_per_gpu, context, redundant, experts_per_gpu, weight_bytes, kv_bytes,
                    mem, int(hw.hbm_bytes * usable), mem <= hw.hbm_bytes * usable, weight_read, kv_read, bytes_read, flops, compute_s,
                    memory_s, gpu_s, a2a_bytes, a2a_s, tpot, max(gpu_s, a2a_s), batch_per_gpu / tpot, bound)


# ================================================================ disaggregation
def kv_transfer_bytes(m, tokens: int, kv_dtype: str = "bf16") -> int:
    """KV bytes of `tokens` cached tokens (all layers): what a prefill instance
    ships to a decode instance."""
    _pos(tokens, "tokens", integer=True)
    return tokens * formulas.kv_bytes_per_token(m, kv_dtype)


def prefill_seconds(m, hw, tokens: int, dtype: str = "fp8", gpus: int = 1, mfu: float = 1.0) -> float:
    """Compute-bound prefill time of a fresh `tokens`-token prompt (causal
    attention) on `gpus` devices at a fraction `mfu` of the dense peak."""
    hw = _hw.get(hw)
    _pos(gpus, "gpus", integer=True)
    if not 0 < mfu <= 1:
        raise DistributedError(f"mfu must be in (0, 1], got {mfu!r}")
    prec = formulas.compute_precision(hw, dtype)[0]
    return formulas.prefill_flops(m, tokens) / (hw.peak_flops(prec) * gpus * mfu)


@dataclass
class Disaggregation:
    model: str
    prompt_tokens: int
    kv_bytes: int
    link_bw: float
    transfer_s: float
    recompute_s: float
    recompute_over_transfer: float
    breakeven_bw: float            # link bandwidth at which transfer = recompute

    def to_dict(self) -> dict:
        return asdict(self)


def disaggregation(m, hw, prompt_tokens: int, link_bw: float = 50e9, dtype: str = "fp8",
                   kv_dtype: str = "bf16", mfu: float = 1.0, latency_s: float = 0.0) -> Disaggregation:
    """Ship a prompt's KV from a prefill GPU to a decode GPU over one link of
    `link_bw` B/s, or recompute it on the decode GPU: both per GPU, so the
    comparison holds whatever the number of GPUs in each pool."""
    _pos(link_bw, "link_bw")
    kv = kv_transfer_bytes(m, prompt_tokens, kv_dtype)
    t = kv / link_bw + latency_s
    r = prefill_seconds(m, hw, prompt_tokens, dtype, 1, mfu)
    return Disaggregation(m.id, prompt_tokens, kv, link_bw, t, r, r / t, kv / r)


def colocated_tpot(decode_step_s: float, prefill_s: float, prefill_rate: float) -> dict:
    """Prefills and decode steps sharing one GPU without chunking: a prefill of
    `prefill_s` seconds arriving `prefill_rate` times per second stalls every
    running sequence. Average TPOT = t_d / (1 - rate x t_p); a step that meets a
    prefill takes t_d + t_p."""
    _pos(decode_step_s, "decode_step_s")
    _pos(prefill_s, "prefill_s", zero_ok=True)
    _pos(prefill_rate, "prefill_rate", zero_ok=True)
    busy = prefill_rate * prefill_s
    if busy >= 1:
        raise DistributedError(f"prefill alone occupies the GPU ({busy:.2f} >= 1): unstable")
    return {"prefill_share": busy, "avg_tpot_s": decode_step_s / (1 - busy),
            "worst_tpot_s": decode_step_s + prefill_s}


# ================================================================ expert imbalance
def zipf_loads(n_experts: int, s: float) -> list:
    """Deterministic skewed expert loads, load_i proportional to 1/(i+1)^s,
    normalised to mean 1 (s = 0 is perfectly balanced)."""
    _pos(n_experts, "n_experts", integer=True)
    _pos(s, "s", zero_ok=True)
    raw = [1.0 / (i + 1) ** s for i in range(n_experts)]
    mean = sum(raw) / n_experts
    return [x / mean for x in raw]


def place_experts(loads: list, gpus: int, redundant: int = 0) -> dict:
    """Greedy placement in the spirit of DeepSeek's EPLB: give each of the
    `redundant` extra slots to the expert with the highest load per replica
    (its load is split evenly among replicas), then put replicas, heaviest
    first, on the least-loaded GPU with a free slot. Returns the max/mean GPU
    load ratio (1 = balanced) and the replica counts."""
    _pos(gpus, "gpus", integer=True)
    _pos(redundant, "redundant", zero_ok=True, integer=True)
    n = len(loads)
    if n == 0:
        raise DistributedError("no expert loads given")
    reps = [1] * n
    for _ in range(redundant):
        j = max(range(n), key=lambda i: loads[i] / reps[i])
        reps[j] += 1
    slots = -(-(n + redundant) // gpus)
    items = sorted(((loads[i] / reps[i], i) for i in range(n) for _ in range(reps[i])), reverse=True)
    gpu_load = [0.0] * gpus
    gpu_used = [0] * gpus
    for w, _i in items:
        g = min((g for g in range(gpus) if gpu_used[g] < slots), key=lambda g: gpu_load[g])
        gpu_load[g] += w
        gpu_used[g] += 1
    mean = sum(loads) / gpus
    return {"max_over_mean": max(gpu_load) / mean, "replicas": reps, "slots_per_gpu": slots,
            "gpu_loads": gpu_load}


def binomial_max_over_mean(tokens: int, n_experts: int, k: int) -> float:
    """Imbalance from sampling alone: `tokens` tokens each pick k of n experts
    uniformly; each expert's count is Binomial(tokens, k/n); the largest of n
    is about mean + sqrt(2 ln n) x std (Gaussian extreme-value estimate)."""
    _pos(tokens, "tokens", integer=True)
    p = k / n_experts
    mu = tokens * p
    sd = math.sqrt(tokens * p * (1 - p))
    return 1.0 + math.sqrt(2 * math.log(n_experts)) * sd / mu


# ===================================================================== cold start
def load_seconds(nbytes: float, bandwidth: float) -> float:
    _pos(nbytes, "bytes", zero_ok=True)
    _pos(bandwidth, "bandwidth")
    return nbytes / bandwidth


def cold_start(bytes_per_gpu: float, tier, gpus_per_node: int = 8, drives_per_node: int = 1,
               pcie: Optional[str] = "pcie-gen5-x16") -> dict:
    """Seconds until one node's GPUs hold their weights: the node reads
    gpus_per_node x bytes_per_gpu from `tier` (a drive figure is multiplied by
    the drives, a per-GPU figure by the GPUs), and each GPU takes its share
    through its host link (`pcie`, None for a peer-GPU copy that lands in HBM
    directly). The slower of the two stages sets the time (they pipeline)."""
    t = tier if isinstance(tier, StorageTier) else storage_tier(tier)
    _pos(gpus_per_node, "gpus_per_node", integer=True)
    _pos(drives_per_node, "drives_per_node", integer=True)
    mult = {"drive": drives_per_node, "gpu": gpus_per_node, "node": 1}[t.scope]
    node_bw = t.bandwidth * mult
    node_bytes = bytes_per_gpu * gpus_per_node
    read_s = node_bytes / node_bw
    h2d_s = 0.0
    if pcie and t.kind != "peer-gpu-rdma":
        h2d_s = bytes_per_gpu / storage_tier(pcie).bandwidth
    return {"tier": t.id, "node_bytes": node_bytes, "node_bw": node_bw, "read_s": read_s,
            "h2d_s": h2d_s, "time_s": max(read_s, h2d_s)}


# ======================================================================== failure
def failure_redo(m, hw, prompt_tokens: int, generated_tokens: int, dtype: str = "fp8",
                 kv_dtype: str = "bf16", mfu: float = 1.0, tpot_s: Optional[float] = None) -> dict:
    """A replica dies after generating `generated_tokens` for a
    `prompt_tokens` prompt. Its KV (prompt + generated) is lost. If the router
    kept the generated text, another replica redoes one prefill of
    prompt + generated tokens; otherwise it redoes the prompt's prefill and
    regenerates every token (at `tpot_s` each, if given)."""
    _pos(generated_tokens, "generated_tokens", zero_ok=True, integer=True)
    total = prompt_tokens + generated_tokens
    kv_lost = kv_transfer_bytes(m, total, kv_dtype)
    redo_prefill_s = prefill_seconds(m, hw, total, dtype, 1, mfu)
    out = {"kv_lost_bytes": kv_lost, "redo_tokens": total, "redo_prefill_s": redo_prefill_s,
           "redo_flops": formulas.prefill_flops(m, total)}
    if tpot_s is not None:
        _pos(tpot_s, "tpot_s")
        out["regenerate_s"] = prefill_seconds(m, hw, prompt_tokens, dtype, 1, mfu) + generated_tokens * tpot_s
    return out


def unit_failure_rate_per_hour(gpus: int, per_gpu_rate: Optional[float] = None) -> float:
    """Probability per hour that a unit of `gpus` GPUs, any one of which takes
    the unit down, is interrupted. Default per-GPU rate: Llama 3's unexpected
    interruptions per GPU-hour."""
    _pos(gpus, "gpus", integer=True)
    if per_gpu_rate is None:
        per_gpu_rate = LLAMA3_UNEXPECTED_INTERRUPTIONS / (LLAMA3_GPUS * LLAMA3_DAYS * 24)
    return 1.0 - (1.0 - per_gpu_rate) ** gpus


def unit_mtbf_hours(gpus: int, per_gpu_rate: Optional[float] = None) -> float:
    if per_gpu_rate is None:
        per_gpu_rate = LLAMA3_UNEXPECTED_INTERRUPTIONS / (LLAMA3_GPUS * LLAMA3_DAYS * 24)
    _pos(gpus, "gpus", integer=True)
    return 1.0 / (gpus * per_gpu_rate)


# ===================================================================== calc.py CLI
def _model(args):
    if getattr(args, "config", None):
        return _models.load_config(args.config)
    return _models.get(args.model or "deepseek-v3")


def _hwarg(args):
    if getattr(args, "hardware_config", None):
        return _hw.load(args.hardware_config)
    return _hw.get(args.hardware or "h100")


def _ints(s):
    import argparse
    try:
        vals = [int(x) for x in str(s).split(",") if x.strip()]
    except ValueError:
        vals = []
    if not vals or any(v <= 0 for v in vals):
        raise argparse.ArgumentTypeError(f"expected positive integers separated by commas, got {s!r}")
    return vals


_posint = cliargs.positive
_nonneg = cliargs.nonneg


_posnum = cliargs.positive_number


def _cmd_ep_decode(args):
    from . import tables
    m, hw = _model(args), _hwarg(args)
    rows = []
    for ep in args.ep:
        for b in args.batch:
            r = ep_decode(m, hw, ep, b, args.context, weight_dtype=args.dtype, kv_dtype=args.kv_dtype,
                          nic_bw=gbit_s(args.nic_gbps), redundant=args.redundant, imbalance=args.imbalance)
            rows.append(r.to_dict())
    cols = [("ep", "EP", "int"), ("batch_per_gpu", "batch/GPU", "int"), ("experts_per_gpu", "experts/GPU", "int"),
            ("weight_bytes_per_gpu", "weights/GPU", "bytes"), ("kv_bytes_per_gpu", "KV/GPU", "bytes"),
            ("fits", "fits", "str"), ("bytes_read", "read/step", "bytes"), ("memory_s", "HBM time", "sec"),
            ("a2a_s", "all-to-all", "sec"), ("tpot_s", "TPOT", "sec"), ("tpot_overlap_s", "TPOT overlap", "sec"),
            ("tokens_per_s_per_gpu", "tok/s/GPU", "float"), ("bound", "bound", "str")]
    return tables.render(rows, cols, args.format)


def _cmd_disagg(args):
    from . import tables
    m, hw = _model(args), _hwarg(args)
    rows = [disaggregation(m, hw, p, gbit_s(args.nic_gbps), dtype=args.dtype, kv_dtype=args.kv_dtype,
                           mfu=args.mfu).to_dict() for p in args.prompt]
    cols = [("prompt_tokens", "prompt", "int"), ("kv_bytes", "KV bytes", "bytes"), ("transfer_s", "transfer", "sec"),
            ("recompute_s", "recompute/GPU", "sec"), ("recompute_over_transfer", "recompute/transfer", "float"),
            ("breakeven_bw", "break-even B/s", "si")]
    return tables.render(rows, cols, args.format)


def _cmd_cold_start(args):
    from . import tables
    m, hw = _model(args), _hwarg(args)
    if args.ep:
        d = ep_decode(m, hw, args.ep, 1, 0, weight_dtype=args.dtype, redundant=args.redundant)
        per_gpu = d.weight_bytes_per_gpu
    else:
        per_gpu = m.params_total * formulas.nbytes(1, args.dtype) / args.gpus
    tiers = args.tier or [t.id for t in storage_tiers() if t.kind != "host-to-device"]
    rows = []
    for tid in tiers:
        r = cold_start(per_gpu, tid, gpus_per_node=args.gpus_per_node, drives_per_node=args.drives)
        r["bytes_per_gpu"] = per_gpu
        rows.append(r)
    cols = [("tier", "tier", "str"), ("bytes_per_gpu", "bytes/GPU", "bytes"), ("node_bytes", "bytes/node", "bytes"),
            ("node_bw", "node B/s", "si"), ("read_s", "read", "sec"), ("h2d_s", "host->GPU", "sec"),
            ("time_s", "load time", "sec")]
    return tables.render(rows, cols, args.format)


def _cmd_balance(args):
    from . import tables
    m = _model(args)
    if not m.is_moe:
        raise DistributedError(f"{m.id} has no routed experts")
    rows = []
    for r in args.redundant:
        p = place_experts(zipf_loads(m.num_experts, args.skew), args.gpus, r)
        rows.append({"gpus": args.gpus, "skew": args.skew, "redundant": r, "slots_per_gpu": p["slots_per_gpu"],
                     "max_over_mean": p["max_over_mean"], "expert_efficiency": 1 / p["max_over_mean"]})
    cols = [("gpus", "GPUs", "int"), ("skew", "Zipf s", "float"), ("redundant", "redundant", "int"),
            ("slots_per_gpu", "slots/GPU", "int"), ("max_over_mean", "max/mean", "float"),
            ("expert_efficiency", "expert throughput", "float")]
    return tables.render(rows, cols, args.format)


def _cmd_failure(args):
    from . import tables
    m, hw = _model(args), _hwarg(args)
    r = failure_redo(m, hw, args.prompt, args.generated, dtype=args.dtype, mfu=args.mfu,
                     tpot_s=args.tpot_ms / 1e3)
    r["unit_mtbf_hours"] = unit_mtbf_hours(args.unit_gpus)
    items = [("kv_lost_bytes", "KV lost", r["kv_lost_bytes"], "bytes"),
             ("redo_tokens", "tokens to re-prefill", r["redo_tokens"], "int"),
             ("redo_prefill_s", "re-prefill (one GPU)", r["redo_prefill_s"], "sec"),
             ("regenerate_s", "regenerate instead", r["regenerate_s"], "sec"),
             ("unit_mtbf_hours", f"MTBF of a {args.unit_gpus}-GPU unit (h)", r["unit_mtbf_hours"], "float")]
    return tables.render_kv(items, args.format, raw=r)


def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
    dts = ("bf16", "fp16", "fp32", "fp8", "int8", "int4", "fp4")

    s = sub.add_parser("ep-decode", help="MoE decode with DP attention + expert parallelism: weights, bytes, "
                       "all-to-all and TPOT per EP size and batch (default deepseek-v3 on h100)")
    common(s, model=True, hw=True)
    s.add_argument("--ep", type=_ints, default=[16, 32, 64, 144, 320], help="EP sizes, comma-separated")
    s.add_argument("--batch", type=_ints, default=[32, 64, 128], help="sequences per GPU, comma-separated")
    s.add_argument("--context", type=_nonneg, default=4989, help="tokens per sequence in the KV cache")
    s.add_argument("--dtype", choices=dts, default="fp8", help="weight dtype")
    s.add_argument("--kv-dtype", choices=dts, default="bf16")
    s.add_argument("--nic-gbps", type=_posnum, default=400.0, help="NIC line rate per GPU in Gb/s")
    s.add_argument("--redundant", type=_nonneg, default=0, help="redundant expert replicas in the unit")
    s.add_argument("--imbalance", type=_posnum, default=1.0, help="max/mean expert load (>= 1)")
    s.set_defaults(func=_cmd_ep_decode)

    s = sub.add_parser("disaggregation", help="ship a prompt's KV over RDMA vs recompute it (per GPU)")
    common(s, model=True, hw=True)
    s.add_argument("--prompt", type=_ints, default=[1024, 4096, 32768], help="prompt lengths, comma-separated")
    s.add_argument("--nic-gbps", type=_posnum, default=400.0)
    s.add_argument("--dtype", choices=dts, default="fp8")
    s.add_argument("--kv-dtype", choices=dts, default="bf16")
    s.add_argument("--mfu", type=_posnum, default=1.0, help="fraction of peak reached by the prefill")
    s.set_defaults(func=_cmd_disagg)

    s = sub.add_parser("cold-start", help="seconds to load weights from NVMe, network storage or a peer GPU")
    common(s, model=True, hw=True)
    s.add_argument("--tier", nargs="*", help="storage tier ids (data/storage.json); default: all")
    s.add_argument("--ep", type=_nonneg, default=0, help="load an EP-sharded decode GPU's weights (0: params/gpus)")
    s.add_argument("--gpus", type=_posint, default=8, help="GPUs sharing the model when --ep is 0")
    s.add_argument("--gpus-per-node", type=_posint, default=8)
    s.add_argument("--drives", type=_posint, default=1, help="NVMe drives per node")
    s.add_argument("--redundant", type=_nonneg, default=0)
    s.add_argument("--dtype", choices=dts, default="fp8")
    s.set_defaults(func=_cmd_cold_start)

    s = sub.add_parser("expert-balance", help="max/mean GPU load under skewed expert popularity, with redundant experts")
    common(s, model=True)
    s.add_argument("--gpus", type=_posint, default=32)
    s.add_argument("--skew", type=float, default=0.5, help="Zipf exponent of expert popularity")
    s.add_argument("--redundant", type=_ints_or_zero, default=[0, 8, 16, 32])
    s.set_defaults(func=_cmd_balance)

    s = sub.add_parser("failure-redo", help="KV lost and work redone when a replica dies mid-request")
    common(s, model=True, hw=True)
    s.add_argument("--prompt", type=_posint, default=4096)
    s.add_argument("--generated", type=_nonneg, default=1000)
    s.add_argument("--tpot-ms", type=_posnum, default=50.0)
    s.add_argument("--dtype", choices=dts, default="fp8")
    s.add_argument("--mfu", type=_posnum, default=1.0)
    s.add_argument("--unit-gpus", type=_posint, default=320)
    s.set_defaults(func=_cmd_failure)


def _ints_or_zero(s):
    import argparse
    try:
        vals = [int(x) for x in str(s).split(",") if x.strip()]
    except ValueError:
        vals = []
    if not vals or any(v < 0 for v in vals):
        raise argparse.ArgumentTypeError(f"expected non-negative integers separated by commas, got {s!r}")
    return vals
