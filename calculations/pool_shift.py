"""Chapter 9's live reconfiguration of a disaggregated fleet: a fixed number of nodes is split
into whole prefill units and whole decode units; when the traffic's mix of input and output
changes, the split that serves the most traffic changes, and some units change pools. What
moves when a node changes pool (the KV of its sequences, the routed experts of its new layout)
and how long the bytes take over one NIC per GPU.

Standard library only, like the rest of `calculations/`.
"""
from __future__ import annotations

import math

from .errors import CalcError

__all__ = ["PoolShiftError", "best_split", "shift_bytes_per_gpu", "shift_seconds",
           "max_batch_for_tpot"]


class PoolShiftError(CalcError):
    """Bad argument to a pool-shift formula."""


def _pos(v, name, zero_ok=False, integer=False):
    if (not isinstance(v, (int, float)) or isinstance(v, bool) or math.isnan(v) or math.isinf(v)
            or v < 0 or (v == 0 and not zero_ok) or (integer and int(v) != v)):
        kind = "integer" if integer else "number"
        raise PoolShiftError(f"{name} must be a {'non-negative' if zero_ok else 'positive'} "
                             f"{kind}, got {v!r}")


def best_split(fleet_nodes: int, prefill_need: float, decode_need: float,
               prefill_unit_nodes: int, decode_unit_nodes: int) -> dict:
    """The split of `fleet_nodes` into whole units that serves the largest share of a traffic
    that needs `prefill_need` prefill nodes and `decode_need` decode nodes (continuous, at full
    traffic). For each number of decode units D the prefill pool takes every whole prefill unit
    left, P = floor((fleet - D x decode_unit) / prefill_unit); the share of the traffic served is
    min(P x prefill_unit / prefill_need, D x decode_unit / decode_need); ties go to the split with
    fewer decode units. When the fleet can serve all the traffic, the split is the fewest whole
    units that do, and the other nodes are idle (handed back, as DeepSeek does at night).
    Returns the units, nodes, idle nodes and served share."""
    _pos(fleet_nodes, "fleet_nodes", integer=True)
    _pos(prefill_need, "prefill_need")
    _pos(decode_need, "decode_need")
    _pos(prefill_unit_nodes, "prefill_unit_nodes", integer=True)
    _pos(decode_unit_nodes, "decode_unit_nodes", integer=True)
    if fleet_nodes < prefill_unit_nodes + decode_unit_nodes:
        raise PoolShiftError(f"a fleet of {fleet_nodes} nodes cannot hold one prefill unit "
                             f"({prefill_unit_nodes}) and one decode unit ({decode_unit_nodes})")
    full_p = math.ceil(prefill_need / prefill_unit_nodes)
    full_d = math.ceil(decode_need / decode_unit_nodes)
    if full_p * prefill_unit_nodes + full_d * decode_unit_nodes <= fleet_nodes:
        # the fleet serves all of it: the fewest units that do, the rest of the nodes idle
        best = {"prefill_units": full_p, "decode_units": full_d, "served": 1.0}
    else:
        best = None
        for d in range(1, fleet_nodes // decode_unit_nodes + 1):
            p = (fleet_nodes - d * decode_unit_nodes) // prefill_unit_nodes
            if p < 1:
                break
            served = min(p * prefill_unit_nodes / prefill_need, d * decode_unit_nodes / decode_need)
            if best is None or served > best["served"] + 1e-12:
                best = {"prefill_units": p, "decode_units": d, "served": served}
    p, d = best["prefill_units"], best["decode_units"]
    best.update(prefill_nodes=p * prefill_unit_nodes, decode_nodes=d * decode_unit_nodes,
                idle_nodes=fleet_nodes - p * prefill_unit_nodes - d * decode_unit_nodes)
    return best


def shift_bytes_per_gpu(direction: str, expert_bytes: float, prefill_experts: int,
                        decode_experts: int, kv_bytes: float) -> dict:
    """Bytes one GPU moves when its node changes pool. The replicated weights (attention,
    shared expert, embeddings) are the same in both layouts and stay. To decode: the GPU drops
    its prefill experts and loads its `decode_experts` routed experts (each `expert_bytes`, all
    layers); its prefill work is finished, not moved. To prefill: the KV of the sequences it was
    decoding (`kv_bytes`) leaves first, to another decode unit, then its `prefill_experts` come
    in (the new experts need the memory the KV held). Both go through the GPU's one NIC."""
    _pos(expert_bytes, "expert_bytes")
    _pos(prefill_experts, "prefill_experts", integer=True)
    _pos(decode_experts, "decode_experts", integer=True)
    _pos(kv_bytes, "kv_bytes", zero_ok=True)
    if direction == "to-decode":
        return {"kv_out": 0.0, "experts_in": decode_experts * expert_bytes}
    if direction == "to-prefill":
        return {"kv_out": float(kv_bytes), "experts_in": prefill_experts * expert_bytes}
    raise PoolShiftError(f"direction is 'to-decode' or 'to-prefill', got {direction!r}")


def shift_seconds(moved: dict, nic_bw: float) -> dict:
    """Seconds for the bytes of `shift_bytes_per_gpu` over one NIC of `nic_bw` B/s, in sequence
    (one link, and the experts need the KV's memory): KV out, experts in, total."""
    _pos(nic_bw, "nic_bw")
    kv_s = moved["kv_out"] / nic_bw
    ex_s = moved["experts_in"] / nic_bw
    return {"kv_s": kv_s, "experts_s": ex_s, "total_s": kv_s + ex_s}


def max_batch_for_tpot(tpot_of_batch, target_s: float, batch_max: int) -> int:
    """The largest batch b in 1..batch_max whose TPOT, `tpot_of_batch(b)` (seconds, rising
    with b), is at most `target_s`; 0 when even b = 1 misses the target. Bisection: about
    log2(batch_max) calls."""
    _pos(target_s, "target_s")
    _pos(batch_max, "batch_max", integer=True)
    lo, hi = 0, int(batch_max)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if tpot_of_batch(mid) <= target_s:
            lo = mid
        else:
            hi = mid - 1
    return lo
