"""Device, edge and cloud (chapter 12): what fits on a device, bandwidth-bound decode, energy per token, cascades and cost per token.

Standard library only. `add_commands` registers this module's `calc.py` subcommands.

Units: bytes are exact ints where they come from parameter counts, rates are per second in
base units (B/s, FLOP/s), power in W, energy in J, money in USD.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, asdict
from typing import Optional

from .errors import CalcError

__all__ = [
    "DeviceError", "EdgeDevice", "DATA_FILE", "devices", "ids", "get", "cloud_price",
    "quantized_bits_per_weight", "quantized_weight_bytes", "decode_bytes_per_token", "Fit", "fit",
    "decode_tokens_per_s", "prefill_time_s", "energy_per_token_j", "tokens_per_wh",
    "cloud_ttft_s", "upload_time_s", "Cascade", "cascade", "cascade_break_even", "cascade_latency_break_even",
    "draft_verify_tokens_per_round", "draft_verify_tokens_per_s",
    "cloud_cost_per_token", "device_cost_per_token", "OnDevice", "on_device",
]

DATA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "edge_devices.json")


class DeviceError(CalcError):
    """A user-facing problem with an edge device or an argument."""


def _pos(v, name, zero_ok=False):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v < 0 or (v == 0 and not zero_ok):
        raise DeviceError(f"{name} must be a {'non-negative' if zero_ok else 'positive'} number, got {v!r}")
    return v


def _frac(v, name, zero_ok=True):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 <= v <= 1) or (v == 0 and not zero_ok):
        raise DeviceError(f"{name} must be in [0, 1], got {v!r}")
    return v


# ================================================================= registry
@dataclass(frozen=True)
class EdgeDevice:
    id: str
    name: str
    kind: str                      # phone | laptop | gpu | edge
    memory_gb: float
    bandwidth_gb_s: float
    prefill_tops: Optional[float]  # dense peak used for prefill, 10^12 ops/s
    prefill_precision: str
    npu_tops_headline: Optional[float]
    power_w: float
    battery_wh: Optional[float]
    os_reserve_gb: float
    price_usd: Optional[float]
    status: str = ""
    sources: tuple = field(default=(), compare=False, hash=False)
    derived: dict = field(default_factory=dict, compare=False, hash=False)
    measured: Optional[dict] = field(default=None, compare=False, hash=False)

    @property
    def memory_bytes(self) -> int:
        return int(round(self.memory_gb * 10 ** 9))

    @property
    def bandwidth(self) -> float:
        """Peak DRAM bandwidth, B/s."""
        return self.bandwidth_gb_s * 1e9

    @property
    def prefill_peak(self) -> float:
        """Dense peak used for prefill, ops/s (FLOP/s)."""
        if self.prefill_tops is None:
            raise DeviceError(f"{self.id}: no compute peak published ({self.prefill_precision})")
        return self.prefill_tops * 1e12

    @property
    def reserve_bytes(self) -> int:
        return int(round(self.os_reserve_gb * 10 ** 9))

    @property
    def usable_bytes(self) -> int:
        return self.memory_bytes - self.reserve_bytes

    def summary(self) -> dict:
        return {"id": self.id, "name": self.name, "kind": self.kind, "memory_gb": self.memory_gb,
                "bandwidth_gb_s": self.bandwidth_gb_s, "prefill_tops": self.prefill_tops,
                "prefill_precision": self.prefill_precision, "npu_tops_headline": self.npu_tops_headline,
                "power_w": self.power_w, "battery_wh": self.battery_wh, "os_reserve_gb": self.os_reserve_gb,
                "price_usd": self.price_usd, "status": self.status,
                "sources": [dict(s) for s in self.sources], "derived": dict(self.derived)}


_CACHE: dict = {}


def _load() -> dict:
    if "data" not in _CACHE:
        with open(DATA_FILE, encoding="utf-8") as f:
            _CACHE["data"] = json.load(f)
    return _CACHE["data"]


def _from_dict(d: dict) -> EdgeDevice:
    for k in ("id", "name", "kind", "memory_gb", "bandwidth_gb_s", "power_w", "os_reserve_gb"):
        if d.get(k) is None:
            raise DeviceError(f"edge device {d.get('id', '?')}: missing {k!r}")
    if not d.get("sources"):
        raise DeviceError(f"edge device {d['id']}: every device needs a source")
    return EdgeDevice(d["id"], d["name"], d["kind"], d["memory_gb"], d["bandwidth_gb_s"], d.get("prefill_tops"),
                      d.get("prefill_precision", ""), d.get("npu_tops_headline"), d["power_w"], d.get("battery_wh"),
                      d["os_reserve_gb"], d.get("price_usd"), d.get("status", ""),
                      tuple(d.get("sources", ())), dict(d.get("derived", {})), d.get("measured"))


def devices() -> list:
    """Every edge device in ``data/edge_devices.json``, in file order."""
    return [_from_dict(d) for d in _load()["devices"]]


def ids() -> list:
    return [d["id"] for d in _load()["devices"]]


def get(name) -> EdgeDevice:
    """An edge device by id (case-insensitive). An EdgeDevice passes through."""
    if isinstance(name, EdgeDevice):
        return name
    key = str(name).lower()
    for d in _load()["devices"]:
        if d["id"] == key:
            return _from_dict(d)
    import difflib
    close = difflib.get_close_matches(key, ids(), n=3)
    raise DeviceError(f"unknown edge device {name!r}" + (f" (did you mean {', '.join(close)}?)" if close else
                                                          f" (choose from {', '.join(ids())})"))


def cloud_price() -> dict:
    """The cited cloud GPU price: {'h100_usd_per_gpu_hour': ..., 'h100_price_source': {...}}."""
    return dict(_load()["cloud"])


# ============================================================ weights, fit
def quantized_bits_per_weight(bits: int = 4, group: int = 128, scale_bits: int = 16, zero_bits: int = 0) -> float:
    """Stored bits per weight with group-wise quantization: each `group` weights share one
    scale (and optionally one zero point): bits + (scale_bits + zero_bits) / group."""
    _pos(bits, "bits")
    _pos(group, "group")
    _pos(scale_bits, "scale_bits", zero_ok=True)
    _pos(zero_bits, "zero_bits", zero_ok=True)
    return bits + (scale_bits + zero_bits) / group


def _qbytes(params: int, bits, group, scale_bits, zero_bits) -> int:
    """Exact bytes of `params` weights: packed values plus one scale (and zero) per group."""
    groups = -(-params // group)
    total_bits = params * bits + groups * (scale_bits + zero_bits)
    return -(-total_bits // 8)


def quantized_weight_bytes(m, bits: int = 4, group: int = 128, scale_bits: int = 16, zero_bits: int = 0) -> int:
    """Resident bytes of every parameter of `m` stored at `bits` with group-wise scales
    (embedding and output head included: a runtime keeps both in memory)."""
    quantized_bits_per_weight(bits, group, scale_bits, zero_bits)
    return _qbytes(m.params_total, bits, group, scale_bits, zero_bits)


def decode_bytes_per_token(m, context: int, bits: int = 4, group: int = 128, scale_bits: int = 16,
                           zero_bits: int = 0, kv_dtype: str = "fp16", batch: int = 1) -> dict:
    """Bytes one decode step reads from memory at batch `batch`, each sequence holding `context`
    tokens: every weight except the input embedding (one row per token is read), plus each
    sequence's KV cache. Returns {'weights', 'embedding_rows', 'kv', 'total'} (ints)."""
    from . import formulas
    _pos(context, "context", zero_ok=True)
    _pos(batch, "batch")
    read_params = m.params_active_no_embedding          # layers + output head
    w = _qbytes(read_params, bits, group, scale_bits, zero_bits)
    emb = batch * _qbytes(m.hidden_size, bits, min(group, m.hidden_size), scale_bits, zero_bits)
    kv = formulas.kv_cache_bytes(m, context, batch, kv_dtype) if context else 0
    return {"weights": w, "embedding_rows": emb, "kv": kv, "total": w + emb + kv}


@dataclass
class Fit:
    device: str
    model: str
    context: int
    bits: int
    weight_bytes: int
    kv_bytes: int
    activation_bytes: int
    reserve_bytes: int
    total_bytes: int           # weights + KV + activations + OS reserve
    capacity_bytes: int
    fits: bool
    max_context: int           # longest context that still fits (0 if the weights alone do not)

    def to_dict(self) -> dict:
        return asdict(self)


def fit(device, m, context: int = 4096, bits: int = 4, group: int = 128, scale_bits: int = 16,
        zero_bits: int = 0, kv_dtype: str = "fp16", activation_bytes: Optional[int] = None) -> Fit:
    """Does `m` at `bits` with a `context`-token KV cache fit in the device's memory once the OS
    reserve is subtracted? Activations default to one 512-token prefill chunk's working set."""
    from . import formulas
    d = get(device)
    _pos(context, "context", zero_ok=True)
    w = quantized_weight_bytes(m, bits, group, scale_bits, zero_bits)
    kv = formulas.kv_cache_bytes(m, context, 1, kv_dtype) if context else 0
    act = formulas.inference_activation_bytes(m, 1, chunk=512, dtype="fp16") if activation_bytes is None \
        else int(activation_bytes)
    total = w + kv + act + d.reserve_bytes
    room = d.memory_bytes - d.reserve_bytes - w - act
    per_tok = formulas.kv_bytes_per_token(m, kv_dtype)
    max_ctx = max(0, room // per_tok) if room > 0 else 0
    return Fit(d.id, m.id, context, bits, w, kv, act, d.reserve_bytes, total, d.memory_bytes,
               total <= d.memory_bytes, int(max_ctx))


# ========================================================== speed, energy
def decode_tokens_per_s(bandwidth: float, bytes_per_token: float, memory_eff: float = 1.0) -> float:
    """Upper bound on decode steps per second when each step reads `bytes_per_token` bytes:
    bandwidth x memory_eff / bytes_per_token."""
    _pos(bandwidth, "bandwidth")
    _pos(bytes_per_token, "bytes_per_token")
    _frac(memory_eff, "memory_eff", zero_ok=False)
    return bandwidth * memory_eff / bytes_per_token


def prefill_time_s(flops: float, peak: float, compute_eff: float = 1.0) -> float:
    """Compute-bound prefill time: FLOPs / (peak x compute_eff)."""
    _pos(flops, "flops", zero_ok=True)
    _pos(peak, "peak")
    _frac(compute_eff, "compute_eff", zero_ok=False)
    return flops / (peak * compute_eff)


def energy_per_token_j(power_w: float, seconds_per_token: float) -> float:
    """J/token = power x time per token (for a batch, pass the step time divided by the batch)."""
    _pos(power_w, "power_w")
    _pos(seconds_per_token, "seconds_per_token")
    return power_w * seconds_per_token


def tokens_per_wh(j_per_token: float) -> float:
    """Tokens per watt-hour: 3600 J / (J per token)."""
    _pos(j_per_token, "j_per_token")
    return 3600.0 / j_per_token


# ================================================================ network
def upload_time_s(nbytes: float, uplink_bit_s: float) -> float:
    """Serialization time of `nbytes` over an uplink of `uplink_bit_s` bits per second."""
    _pos(nbytes, "nbytes", zero_ok=True)
    _pos(uplink_bit_s, "uplink_bit_s")
    return 8.0 * nbytes / uplink_bit_s


def cloud_ttft_s(rtt_s: float, prefill_s: float, queue_s: float = 0.0, upload_bytes: float = 0.0,
                 uplink_bit_s: Optional[float] = None, first_step_s: float = 0.0) -> float:
    """Time to first token of a remote request: one round trip (request out, first token back)
    + serializing the request over the uplink + queueing + prefill + the first decode step."""
    _pos(rtt_s, "rtt_s", zero_ok=True)
    _pos(prefill_s, "prefill_s", zero_ok=True)
    _pos(queue_s, "queue_s", zero_ok=True)
    _pos(first_step_s, "first_step_s", zero_ok=True)
    up = upload_time_s(upload_bytes, uplink_bit_s) if (upload_bytes and uplink_bit_s) else 0.0
    if upload_bytes and not uplink_bit_s:
        raise DeviceError("upload_bytes needs uplink_bit_s")
    return rtt_s + up + queue_s + prefill_s + first_step_s


# ========================================================= splitting work
@dataclass
class Cascade:
    defer_rate: float
    cost: float              # expected cost per request
    latency_s: float         # expected latency per request
    cloud_only_cost: float
    cloud_only_latency_s: float
    cloud_share: float       # fraction of requests that reach the cloud (= defer_rate)

    def to_dict(self) -> dict:
        return asdict(self)


def cascade(defer_rate: float, local_cost: float, cloud_cost: float, local_latency_s: float,
            cloud_latency_s: float, defer_after_s: Optional[float] = None,
            defer_cost: Optional[float] = None) -> Cascade:
    """A two-stage cascade: every request starts on the local model; a fraction `defer_rate` is
    sent on to the cloud. A request answered locally costs `local_cost` and takes
    `local_latency_s`; a deferred one has already spent `defer_after_s` and `defer_cost` locally
    (defaults: the whole local answer) and then pays the cloud's cost and latency.
    Expected cost = (1-d) local + d (defer_cost + cloud); latency likewise."""
    _frac(defer_rate, "defer_rate")
    for v, n in ((local_cost, "local_cost"), (cloud_cost, "cloud_cost"), (local_latency_s, "local_latency_s"),
                 (cloud_latency_s, "cloud_latency_s")):
        _pos(v, n, zero_ok=True)
    da = local_latency_s if defer_after_s is None else _pos(defer_after_s, "defer_after_s", zero_ok=True)
    dc = local_cost if defer_cost is None else _pos(defer_cost, "defer_cost", zero_ok=True)
    d = defer_rate
    cost = (1 - d) * local_cost + d * (dc + cloud_cost)
    lat = (1 - d) * local_latency_s + d * (da + cloud_latency_s)
    return Cascade(d, cost, lat, cloud_cost, cloud_latency_s, d)


def cascade_latency_break_even(local_latency_s: float, cloud_latency_s: float,
                               defer_after_s: Optional[float] = None) -> Optional[float]:
    """Deferral rate at which the cascade's expected latency equals sending everything to the
    cloud: (1-d) L + d (A + C) = C, so d* = (C - L) / (A + C - L). None if no rate in [0, 1]
    does it (the local answer alone is already slower than the cloud)."""
    a = local_latency_s if defer_after_s is None else defer_after_s
    den = a + cloud_latency_s - local_latency_s
    if den <= 0:
        return None
    d = (cloud_latency_s - local_latency_s) / den
    return d if 0 <= d <= 1 else None


def cascade_break_even(local, cloud) -> float:
    """Deferral rate at which a cascade whose deferred requests paid the full local cost costs
    as much as sending everything to the cloud: local + d x cloud = cloud, so
    d* = 1 - local / cloud (0 if local >= cloud)."""
    _pos(local, "local", zero_ok=True)
    _pos(cloud, "cloud")
    return max(0.0, 1.0 - local / cloud)


def draft_verify_tokens_per_round(alpha: float, k: int) -> float:
    """Expected tokens produced per speculative round with k drafted tokens, each accepted
    independently with probability alpha: (1 - alpha^(k+1)) / (1 - alpha) (k+1 when alpha = 1)."""
    _frac(alpha, "alpha")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise DeviceError(f"k must be a positive integer, got {k!r}")
    if alpha == 1:
        return float(k + 1)
    return (1 - alpha ** (k + 1)) / (1 - alpha)


def draft_verify_tokens_per_s(alpha: float, k: int, draft_step_s: float, rtt_s: float, verify_s: float) -> float:
    """Tokens/s when a device drafts k tokens (k x draft_step_s) and the cloud verifies them in
    one pass (verify_s) behind one round trip (rtt_s) per round."""
    _pos(draft_step_s, "draft_step_s", zero_ok=True)
    _pos(rtt_s, "rtt_s", zero_ok=True)
    _pos(verify_s, "verify_s", zero_ok=True)
    rnd = k * draft_step_s + rtt_s + verify_s
    if rnd <= 0:
        raise DeviceError("a round must take some time")
    return draft_verify_tokens_per_round(alpha, k) / rnd


# =================================================================== cost
def cloud_cost_per_token(usd_per_gpu_hour: float, tokens_per_s: float, utilization: float = 1.0) -> float:
    """USD per token of a rented GPU: price per hour / (tokens per second x 3600 x utilization)."""
    _pos(usd_per_gpu_hour, "usd_per_gpu_hour")
    _pos(tokens_per_s, "tokens_per_s")
    _frac(utilization, "utilization", zero_ok=False)
    return usd_per_gpu_hour / (tokens_per_s * 3600.0 * utilization)


def device_cost_per_token(price_usd: float, lifetime_tokens: float, power_w: float = 0.0,
                          tokens_per_s: Optional[float] = None, usd_per_kwh: float = 0.0) -> float:
    """USD per token of an owned device: purchase price / lifetime tokens, plus electricity
    (power x time per token x price per kWh) when tokens_per_s and usd_per_kwh are given."""
    _pos(price_usd, "price_usd", zero_ok=True)
    _pos(lifetime_tokens, "lifetime_tokens")
    _pos(power_w, "power_w", zero_ok=True)
    _pos(usd_per_kwh, "usd_per_kwh", zero_ok=True)
    energy = 0.0
    if usd_per_kwh and power_w:
        if not tokens_per_s:
            raise DeviceError("electricity cost needs tokens_per_s")
        energy = power_w / tokens_per_s / 3.6e6 * usd_per_kwh
    return price_usd / lifetime_tokens + energy


# ============================================================ one summary
@dataclass
class OnDevice:
    device: str
    model: str
    bits: int
    prompt_tokens: int
    context: int
    fits: bool
    weight_bytes: int
    bytes_per_token: int
    decode_tokens_per_s: float
    prefill_flops: int
    prefill_s: Optional[float]
    ttft_s: Optional[float]
    joules_per_token: float
    tokens_per_wh: float
    battery_tokens: Optional[float]

    def to_dict(self) -> dict:
        return asdict(self)


def on_device(device, m, prompt_tokens: int = 2048, context: Optional[int] = None, bits: int = 4,
              group: int = 128, memory_eff: float = 1.0, compute_eff: float = 1.0,
              kv_dtype: str = "fp16") -> OnDevice:
    """Fit, bandwidth-bound decode speed (at `context` tokens, default the prompt), compute-bound
    prefill and time to first token, energy per token and tokens per battery charge."""
    from . import formulas
    d = get(device)
    ctx = prompt_tokens if context is None else context
    f = fit(d, m, ctx, bits, group, kv_dtype=kv_dtype)
    b = decode_bytes_per_token(m, ctx, bits, group, kv_dtype=kv_dtype)["total"]
    tps = decode_tokens_per_s(d.bandwidth, b, memory_eff)
    pf = formulas.prefill_flops(m, prompt_tokens)
    pre = prefill_time_s(pf, d.prefill_peak, compute_eff) if d.prefill_tops else None
    ttft = pre + 1.0 / tps if pre is not None else None
    j = energy_per_token_j(d.power_w, 1.0 / tps)
    tpwh = tokens_per_wh(j)
    return OnDevice(d.id, m.id, bits, prompt_tokens, ctx, f.fits, f.weight_bytes, b, tps, pf, pre, ttft, j, tpwh,
                    tpwh * d.battery_wh if d.battery_wh else None)


# =================================================================== CLI
def _cmd_devices(args):
    from . import tables
    rows = [d.summary() for d in devices()]
    cols = [("id", "device", "str"), ("kind", "kind", "str"), ("memory_gb", "memory GB", "float"),
            ("bandwidth_gb_s", "GB/s", "float"), ("prefill_tops", "prefill TOPS (dense)", "float"),
            ("prefill_precision", "precision", "str"), ("power_w", "W", "float"),
            ("battery_wh", "battery Wh", "float"), ("os_reserve_gb", "OS reserve GB", "float"),
            ("price_usd", "price USD", "float"), ("status", "status", "str")]
    return tables.render(rows, cols, args.format, raw=rows)


def _model(args):
    from . import models
    if getattr(args, "config", None):
        return models.load_config(args.config)
    return models.get(args.model or "qwen3-8b")


def _cmd_on_device(args):
    from . import tables
    m = _model(args)
    ids_ = args.device or ids()
    rows = [on_device(i, m, args.prompt, args.context, args.bits, args.group, args.memory_eff,
                      args.compute_eff).to_dict() for i in ids_]
    cols = [("device", "device", "str"), ("fits", "fits", "str"), ("weight_bytes", "weights", "bytes"),
            ("bytes_per_token", "bytes/token", "bytes"), ("decode_tokens_per_s", "tokens/s bound", "float"),
            ("prefill_s", f"prefill {args.prompt} s", "float"), ("ttft_s", "TTFT s", "float"),
            ("joules_per_token", "J/token", "float"), ("tokens_per_wh", "tokens/Wh", "float"),
            ("battery_tokens", "tokens/charge", "float")]
    return tables.render(rows, cols, args.format, raw=rows,
                         title=f"{m.id} at {args.bits} bits (group {args.group}), prompt {args.prompt}")


def _cmd_cascade(args):
    from . import tables
    c = cascade(args.defer, args.local_cost, args.cloud_cost, args.local_latency, args.cloud_latency,
                defer_after_s=args.defer_after)
    items = [("defer_rate", "deferral rate", c.defer_rate, "float"), ("cost", "expected cost", c.cost, "float"),
             ("latency_s", "expected latency s", c.latency_s, "float"),
             ("cloud_only_cost", "cloud-only cost", c.cloud_only_cost, "float"),
             ("cloud_only_latency_s", "cloud-only latency s", c.cloud_only_latency_s, "float"),
             ("break_even_cost", "deferral rate where cost breaks even",
              cascade_break_even(args.local_cost, args.cloud_cost) if args.cloud_cost else None, "float"),
             ("break_even_latency", "deferral rate where latency breaks even",
              cascade_latency_break_even(args.local_latency, args.cloud_latency, args.defer_after), "float")]
    raw = c.to_dict()
    raw["break_even_cost"] = items[5][2]
    raw["break_even_latency"] = items[6][2]
    return tables.render_kv(items, args.format, raw=raw, title="two-stage cascade (local first, defer to cloud)")


def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
    from calculations import cliargs
    number = cliargs.nonneg_number

    frac = cliargs.probability

    pos_frac = cliargs.fraction

    pos_int = cliargs.positive

    s = sub.add_parser("devices", help="edge devices: phones, laptops, consumer GPUs, edge modules")
    common(s, model=False)
    s.set_defaults(func=_cmd_devices)

    s = sub.add_parser("on-device", help="fit, decode tokens/s, prefill, TTFT and energy on edge devices")
    common(s, model=True)
    s.add_argument("--device", "-d", nargs="*", help="edge device ids (default: all)")
    s.add_argument("--prompt", "-p", type=pos_int, default=2048, help="prompt tokens (default 2048)")
    s.add_argument("--context", "-c", type=pos_int, help="tokens in the KV cache while decoding (default: prompt)")
    s.add_argument("--bits", type=pos_int, default=4, help="weight bits (default 4)")
    s.add_argument("--group", type=pos_int, default=128, help="weights per quantization scale (default 128)")
    s.add_argument("--memory-eff", type=pos_frac, default=1.0)
    s.add_argument("--compute-eff", type=pos_frac, default=1.0)
    s.set_defaults(func=_cmd_on_device)

    s = sub.add_parser("cascade", help="expected cost and latency of a local-first cascade")
    common(s, model=False)
    s.add_argument("--defer", type=frac, required=True, help="fraction of requests sent on to the cloud")
    s.add_argument("--local-cost", type=number, default=0.0)
    s.add_argument("--cloud-cost", type=number, required=True)
    s.add_argument("--local-latency", type=number, default=0.0, help="seconds")
    s.add_argument("--cloud-latency", type=number, default=0.0, help="seconds")
    s.add_argument("--defer-after", type=number, help="seconds spent locally before deferring (default: local latency)")
    s.set_defaults(func=_cmd_cascade)
