"""Expert imbalance at a deployment's own granularity (chapter 9).

Standard library only. `distributed.place_experts` balances a list of expert loads over a
number of GPUs; this module ties that number to a serving layout, so that the max/mean load
fed into a decode-step estimate is the one of the layout being estimated. A 32-GPU prefill unit
holds 8 experts per GPU and can average a hot expert with cold ones; an EP320 decode unit holds
one expert per GPU, so without redundant copies the GPU holding the hottest expert carries that
expert's whole load.
"""
from __future__ import annotations

from . import distributed as D
from .errors import CalcError

__all__ = ["ExpertLayoutError", "layout_imbalance", "ep_imbalance_penalty"]


class ExpertLayoutError(CalcError):
    """Bad argument to an expert-layout formula."""


def _check(loads, gpus, redundant):
    if not loads or any((isinstance(x, bool) or not isinstance(x, (int, float)) or x < 0) for x in loads):
        raise ExpertLayoutError("loads must be a non-empty list of non-negative numbers")
    if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 1:
        raise ExpertLayoutError(f"gpus must be a positive integer, got {gpus!r}")
    if isinstance(redundant, bool) or not isinstance(redundant, int) or redundant < 0:
        raise ExpertLayoutError(f"redundant must be a non-negative integer, got {redundant!r}")


def layout_imbalance(loads, gpus: int, redundant: int = 0) -> dict:
    """Max/mean GPU load when len(loads) routed experts plus `redundant` copies are placed on
    `gpus` GPUs (greedy, as `distributed.place_experts`). The mean is over all `gpus`, because a
    decode step's expert work is shared by every GPU of the unit: GPUs left without a routed
    expert (more GPUs than expert slots) count as idle capacity, which is what a layout with
    more GPUs than experts pays for when it has no copies to put there."""
    _check(loads, gpus, redundant)
    p = D.place_experts(list(loads), gpus, redundant)
    used = sum(1 for x in p["gpu_loads"] if x > 0)
    return {"gpus": gpus, "experts": len(loads), "redundant": redundant,
            "experts_per_gpu": p["slots_per_gpu"], "gpus_without_expert": gpus - used,
            "max_over_mean": p["max_over_mean"], "replicas": p["replicas"]}


def ep_imbalance_penalty(m, hw, ep: int, batch_per_gpu: int, context: int, loads, redundant: int = 0,
                         nic_bw: float = 50e9, **kw) -> dict:
    """TPOT of an `ep`-way expert-parallel decode unit (`distributed.ep_decode`) with the skewed
    `loads` placed at the unit's own granularity, over the TPOT with perfectly balanced experts
    (same layout, same redundant copies)."""
    if len(loads) != m.num_experts:
        raise ExpertLayoutError(f"{len(loads)} loads given for {m.num_experts} routed experts of {m.id}")
    lay = layout_imbalance(loads, ep, redundant)
    balanced = D.ep_decode(m, hw, ep, batch_per_gpu, context, nic_bw=nic_bw, redundant=redundant, **kw)
    skewed = D.ep_decode(m, hw, ep, batch_per_gpu, context, nic_bw=nic_bw, redundant=redundant,
                         imbalance=lay["max_over_mean"], **kw)
    return {**lay, "tpot_balanced_s": balanced.tpot_s, "tpot_s": skewed.tpot_s,
            "tpot_ratio": skewed.tpot_s / balanced.tpot_s, "bound": skewed.bound}
