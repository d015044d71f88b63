"""Chapter 9's multi-tier KV store: how long each tier (HBM, host DRAM, local SSD, remote
storage) keeps a prefix under a steady stream of new KV, what capacity a cache lifetime (TTL)
needs, and the time to bring a cached prefix back to the GPU layer by layer, overlapped with
the prefill of the new tokens, against loading it all first.

Standard library only, like the rest of `calculations/`.
"""
from __future__ import annotations

import math

from .errors import CalcError

__all__ = ["KVTierError", "new_kv_bytes_per_s", "residence_s", "capacity_for_ttl", "layerwise"]


class KVTierError(CalcError):
    """Bad argument to a KV-tier formula."""


def _pos(v, name, zero_ok=False):
    if (not isinstance(v, (int, float)) or isinstance(v, bool) or math.isnan(v)
            or v < 0 or (v == 0 and not zero_ok) or math.isinf(v)):
        raise KVTierError(f"{name} must be a {'non-negative' if zero_ok else 'positive'} "
                          f"number, got {v!r}")


def new_kv_bytes_per_s(input_tokens_s: float, hit_share: float, kv_bytes_per_token: float) -> float:
    """KV bytes a node writes per second: the input tokens that missed the cache (the hits
    were written before) times the KV per token."""
    _pos(input_tokens_s, "input_tokens_s")
    if not 0 <= hit_share < 1:
        raise KVTierError(f"hit_share must be in [0, 1), got {hit_share!r}")
    _pos(kv_bytes_per_token, "kv_bytes_per_token")
    return input_tokens_s * (1 - hit_share) * kv_bytes_per_token


def residence_s(capacity_bytes: float, write_bytes_s: float) -> float:
    """How long a prefix stays in a tier that evicts the oldest first (FIFO or LRU without
    reuse) when `write_bytes_s` of new KV arrives: capacity / write rate."""
    _pos(capacity_bytes, "capacity_bytes")
    _pos(write_bytes_s, "write_bytes_s")
    return capacity_bytes / write_bytes_s


def capacity_for_ttl(ttl_s: float, write_bytes_s: float) -> float:
    """Capacity that keeps every prefix for `ttl_s` seconds: TTL x write rate."""
    _pos(ttl_s, "ttl_s")
    _pos(write_bytes_s, "write_bytes_s")
    return ttl_s * write_bytes_s


def layerwise(kv_bytes: float, compute_s: float, layers: int, bandwidth: float) -> dict:
    """A cached prefix's KV (`kv_bytes`, split evenly over `layers`) comes back over a link of
    `bandwidth` while the new tokens' prefill (`compute_s`, split evenly) runs. Serial: load
    everything, then compute. Layer-wise: layer i's compute starts once its KV has arrived and
    layer i - 1's compute is done; loads run back to back. Returns both totals and the
    layer-wise schedule as (layer, load_start, load_end, compute_start, compute_end)."""
    _pos(kv_bytes, "kv_bytes")
    _pos(compute_s, "compute_s")
    _pos(bandwidth, "bandwidth")
    if not isinstance(layers, int) or layers < 1:
        raise KVTierError(f"layers must be a positive integer, got {layers!r}")
    load_s = kv_bytes / bandwidth
    dl, dc = load_s / layers, compute_s / layers
    schedule, done = [], 0.0
    for i in range(layers):
        ls, le = i * dl, (i + 1) * dl
        cs = max(le, done)
        done = cs + dc
        schedule.append((i, ls, le, cs, done))
    return {"load_s": load_s, "compute_s": compute_s, "serial_s": load_s + compute_s,
            "layerwise_s": done, "saved_s": load_s + compute_s - done,
            "layer_load_s": dl, "layer_compute_s": dc, "schedule": schedule}
