"""Scale-up domains (chapter 6): links and switches in one domain, tensor- and expert-parallel communication per layer, which models fit in a domain.

Standard library only. `add_commands` registers this module's `calc.py` subcommands.

Conventions (same as the rest of the package):

- Bandwidths are bytes per second, **one direction** unless a name says otherwise
  (`Link.unidirectional`; `Link.bidirectional` is both directions added).
- A ring all-reduce of S bytes over n devices sends `2 (n-1)/n x S` bytes out of each
  device, in `2 (n-1)` steps; its time is `steps x latency + volume / unidirectional`
  (the alpha-beta model). An in-switch reduction (NVLink SHARP-style) sends S and
  receives S per device in 2 steps.
- Megatron-style tensor parallelism does two all-reduces of the hidden state per
  transformer layer (after attention and after the MLP), each of
  `tokens x hidden x activation bytes`.
- Expert-parallel all-to-all: each token goes to its top-k routed experts (dispatch)
  and their outputs come back (combine), `top_k x hidden` values each way; the share
  that leaves the device is `(ep - 1) / ep` under balanced routing.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, asdict, field
from typing import Optional

from calculations.errors import CalcError

__all__ = [
    "DATA_FILE", "ScaleupError", "Link", "Domain", "links", "domains", "link", "domain", "measurement",
    "ring_allreduce_volume", "allreduce_time", "TPLayerComm", "tp_layer_comm", "TPDecode",
    "tp_decode", "tp_breakeven_batch", "tp_compute_ratio", "EPComm", "ep_alltoall", "DomainFit", "domain_fit",
    "add_commands",
]

DATA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "links.json")
GB = 10**9


class ScaleupError(CalcError):
    pass


# ------------------------------------------------------------------ registry
@dataclass(frozen=True)
class Link:
    id: str
    name: str
    kind: str
    unidirectional: float          # B/s, one direction, per device
    bidirectional: float           # B/s, both directions added
    latency_s: float               # fixed cost of one step of a collective (assumed)
    max_domain: Optional[int]
    links_per_device: Optional[int] = None
    per_link_unidirectional: Optional[float] = None
    measured_unidirectional: Optional[float] = None
    sources: tuple = ()
    derived: dict = field(default_factory=dict)

    def summary(self) -> dict:
        return {"id": self.id, "name": self.name, "kind": self.kind,
                "uni_gb_s": self.unidirectional / GB, "bidi_gb_s": self.bidirectional / GB,
                "links": self.links_per_device,
                "per_link_uni_gb_s": None if self.per_link_unidirectional is None
                else self.per_link_unidirectional / GB,
                "latency_us": self.latency_s * 1e6, "max_domain": self.max_domain,
                "sources": [s["url"] for s in self.sources]}


@dataclass(frozen=True)
class Domain:
    id: str
    name: str
    link_id: Optional[str]
    devices: int
    hardware: Optional[str]        # id in the accelerator registry, if registered
    device_memory_bytes: int
    system_power_w: Optional[float]
    topology: str = ""
    stated: dict = field(default_factory=dict)
    sources: tuple = ()
    derived: dict = field(default_factory=dict)

    @property
    def memory_bytes(self) -> int:
        """Pooled device memory of the whole domain."""
        return self.devices * self.device_memory_bytes

    @property
    def link(self) -> Optional[Link]:
        return link(self.link_id) if self.link_id else None

    @property
    def aggregate_bidirectional(self) -> Optional[float]:
        """devices x per-device both-ways bandwidth (what vendors call the domain's NVLink bandwidth)."""
        lk = self.link
        return None if lk is None else self.devices * lk.bidirectional

    @property
    def power_per_device_w(self) -> Optional[float]:
        return None if self.system_power_w is None else self.system_power_w / self.devices

    def summary(self) -> dict:
        agg = self.aggregate_bidirectional
        return {"id": self.id, "name": self.name, "link": self.link_id, "devices": self.devices,
                "hardware": self.hardware, "device_memory_gb": self.device_memory_bytes / GB,
                "memory_tb": self.memory_bytes / 1e12,
                "aggregate_bidi_tb_s": None if agg is None else agg / 1e12,
                "system_power_kw": None if self.system_power_w is None else self.system_power_w / 1e3,
                "power_per_device_w": self.power_per_device_w, "topology": self.topology,
                "sources": [s["url"] for s in self.sources]}


_LINKS: Optional[dict] = None
_DOMAINS: Optional[dict] = None
_MEASURED: Optional[dict] = None


def _gb(v):
    return None if v is None else float(v) * GB


def _load() -> None:
    global _LINKS, _DOMAINS, _MEASURED
    if _LINKS is not None:
        return
    with open(DATA_FILE, encoding="utf-8") as f:
        data = json.load(f)
    lk = {}
    for d in data["links"]:
        for need in ("id", "name", "unidirectional_gb_s", "bidirectional_gb_s", "latency_us", "sources"):
            if need not in d:
                raise ScaleupError(f"links.json: link {d.get('id')!r} lacks {need!r}")
        lk[d["id"]] = Link(d["id"], d["name"], d.get("kind", ""), _gb(d["unidirectional_gb_s"]),
                           _gb(d["bidirectional_gb_s"]), d["latency_us"] * 1e-6, d.get("max_domain"),
                           d.get("links_per_device"), _gb(d.get("per_link_unidirectional_gb_s")),
                           _gb(d.get("measured_unidirectional_gb_s")), tuple(d["sources"]),
                           dict(d.get("derived", {})))
    dm = {}
    for d in data["domains"]:
        stated = {k: v for k, v in d.items() if k.endswith("_stated") or k in ("power_shelf_kw", "racks")}
        pw = d.get("system_power_kw")
        dm[d["id"]] = Domain(d["id"], d["name"], d.get("link"), int(d["devices"]), d.get("hardware"),
                             int(round(d["device_memory_gb"] * GB)), None if pw is None else pw * 1e3,
                             d.get("topology", ""), stated, tuple(d["sources"]), dict(d.get("derived", {})))
    ms = {}
    for d in data.get("measurements", []):
        if not d.get("sources"):
            raise ScaleupError(f"links.json: measurement {d.get('id')!r} lacks sources")
        ms[d["id"]] = dict(d)
    _LINKS, _DOMAINS, _MEASURED = lk, dm, ms


def links() -> list:
    _load()
    return list(_LINKS.values())


def domains() -> list:
    _load()
    return list(_DOMAINS.values())


def _lookup(table, name, what):
    if isinstance(name, (Link, Domain)):
        return name
    _load()
    t = _LINKS if table == "link" else _DOMAINS
    key = str(name).strip().lower()
    if key in t:
        return t[key]
    import difflib
    close = difflib.get_close_matches(key, list(t), n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else f" (known: {', '.join(t)})"
    raise ScaleupError(f"unknown {what} {name!r}{hint}")


def measurement(name) -> dict:
    """A published measurement kept next to the links (a dict with its `sources`)."""
    _load()
    key = str(name).strip().lower()
    if key not in _MEASURED:
        raise ScaleupError(f"unknown measurement {name!r} (known: {', '.join(_MEASURED)})")
    return dict(_MEASURED[key])


def link(name) -> Link:
    """A link by id (`nvlink4`, `nvlink5`, `pcie5`, `ub-cm384`, ...)."""
    return _lookup("link", name, "link")


def domain(name) -> Domain:
    """A scale-up domain by id (`hgx-h100`, `gb200-nvl72`, `cloudmatrix-384`, ...)."""
    return _lookup("domain", name, "domain")


# --------------------------------------------------------------- collectives
def _pos(v, name, zero_ok=False):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or (v == 0 and not zero_ok):
        raise ScaleupError(f"{name} must be a positive number, got {v!r}")


def ring_allreduce_volume(size_bytes, n: int) -> float:
    """Bytes each device sends (and receives) in a ring all-reduce of `size_bytes`: 2 (n-1)/n x S."""
    _pos(size_bytes, "size", zero_ok=True)
    _pos(n, "devices")
    return 2 * (n - 1) / n * size_bytes


def allreduce_time(size_bytes, n: int, lk, algorithm: str = "ring", latency_s: Optional[float] = None,
                   bandwidth: Optional[float] = None) -> float:
    """Alpha-beta time of one all-reduce of `size_bytes` over `n` devices on link `lk`.

    ring:    2 (n-1) steps x latency + 2 (n-1)/n x S / unidirectional
    switch:  2 steps x latency + S / unidirectional (reduction done inside the switch)
    oneshot: 1 step x latency + (n-1) x S / unidirectional (every device reads all n-1 peers'
             whole buffers over the all-to-all fabric and reduces locally: the engines' choice
             for small messages, e.g. TensorRT-LLM's oneShotAllReduceKernel)
    twoshot: 2 steps x latency + 2 (n-1)/n x S / unidirectional (a reduce-scatter and an
             all-gather, each one direct exchange with every peer)
    """
    lk = link(lk) if not isinstance(lk, Link) else lk
    _pos(n, "devices")
    if n == 1:
        return 0.0
    a = lk.latency_s if latency_s is None else latency_s
    b = lk.unidirectional if bandwidth is None else bandwidth
    if algorithm == "ring":
        return 2 * (n - 1) * a + ring_allreduce_volume(size_bytes, n) / b
    if algorithm == "switch":
        return 2 * a + size_bytes / b
    if algorithm == "oneshot":
        return a + (n - 1) * size_bytes / b
    if algorithm == "twoshot":
        return 2 * a + ring_allreduce_volume(size_bytes, n) / b
    raise ScaleupError(f"algorithm must be 'ring', 'switch', 'oneshot' or 'twoshot', got {algorithm!r}")


def _act_bytes(dtype: str) -> int:
    from calculations import formulas
    return formulas.nbytes(1, dtype)


@dataclass
class TPLayerComm:
    model: str
    link: str
    devices: int
    tokens: int
    allreduce_bytes: int           # one all-reduce's message: tokens x hidden x bytes
    volume_per_layer: float        # bytes sent per device per layer (two all-reduces)
    time_per_layer_s: float
    latency_part_s: float          # the steps x latency share of time_per_layer_s
    layers: int
    time_s: float                  # all layers

    def to_dict(self) -> dict:
        return asdict(self)


def tp_layer_comm(m, tokens: int, n: int, lk, act_dtype: str = "bf16", algorithm: str = "ring",
                  latency_s: Optional[float] = None, bandwidth: Optional[float] = None) -> TPLayerComm:
    """Megatron-style TP: two all-reduces of tokens x hidden activations per layer."""
    from calculations import models
    m = models.get(m) if isinstance(m, str) else m
    lk = link(lk)
    _pos(tokens, "tokens")
    size = tokens * m.hidden_size * _act_bytes(act_dtype)
    t_one = allreduce_time(size, n, lk, algorithm, latency_s, bandwidth)
    t_lat = allreduce_time(0, n, lk, algorithm, latency_s, bandwidth)
    vol = 2 * (ring_allreduce_volume(size, n) if algorithm == "ring" else (size if n > 1 else 0))
    return TPLayerComm(m.id, lk.id, n, tokens, size, vol, 2 * t_one, 2 * t_lat, m.num_layers,
                       2 * t_one * m.num_layers)


@dataclass
class TPDecode:
    model: str
    hardware: str
    link: str
    devices: int
    batch: int
    context: int
    weight_bytes_per_device: float   # weights read per decode step on one device
    kv_bytes_per_device: float
    work_time_s: float               # per-device roofline time (compute or memory), ideal split
    comm_time_s: float               # all layers, latency included
    comm_latency_s: float            # latency share of comm_time_s
    time_s: float                    # per-token latency bound = work + comm (no overlap)
    comm_share: float
    tokens_per_s: float

    def to_dict(self) -> dict:
        return asdict(self)


def tp_decode(m, hw, n: int, lk, batch: int = 1, context: int = 4096, dtype: str = "bf16",
              algorithm: str = "ring", latency_s: Optional[float] = None) -> TPDecode:
    """One decode step under n-way tensor parallelism: the per-device share of the
    single-device roofline time (formulas.decode_step) plus two all-reduces per layer
    with latency. No overlap of communication and work is assumed (a bound for
    TP decode, where each all-reduce sits on the critical path)."""
    from calculations import formulas, models, hardware
    m = models.get(m) if isinstance(m, str) else m
    hw = hardware.get(hw) if isinstance(hw, str) else hw
    lk = link(lk)
    one = formulas.decode_step(m, batch=batch, context=context, hw=hw, dtype=dtype)
    fw_act = "bf16" if dtype not in ("fp32", "fp16") else dtype
    comm = tp_layer_comm(m, batch, n, lk, fw_act, algorithm, latency_s)
    work = one.time_s / n
    total = work + comm.time_s
    lat = comm.latency_part_s * m.num_layers
    return TPDecode(m.id, hw.id, lk.id, n, batch, context, one.weight_bytes / n, one.kv_read_bytes / n,
                    work, comm.time_s, lat, total, comm.time_s / total, batch / total)


def tp_breakeven_batch(m, hw, n: int, lk, context: int = 4096, dtype: str = "bf16",
                       algorithm: str = "ring", latency_s: Optional[float] = None,
                       max_batch: int = 1 << 16) -> Optional[int]:
    """Smallest batch at which the TP communication time reaches the per-device work time
    (communication then takes half the step or more). None if it never does up to max_batch."""
    b = 1
    while b <= max_batch:
        d = tp_decode(m, hw, n, lk, b, context, dtype, algorithm, latency_s)
        if d.comm_time_s >= d.work_time_s:
            lo, hi = b // 2 + 1 if b > 1 else 1, b
            while lo < hi:  # refine between the last two powers of two
                mid = (lo + hi) // 2
                dm = tp_decode(m, hw, n, lk, mid, context, dtype, algorithm, latency_s)
                if dm.comm_time_s >= dm.work_time_s:
                    hi = mid
                else:
                    lo = mid + 1
            return lo
        b *= 2
    return None


def tp_compute_ratio(m, hw, n: int, lk, dtype: str = "bf16") -> float:
    """Large-batch limit of (TP all-reduce time) / (per-device matmul time), latency ignored.
    Both grow linearly with the batch, so their ratio is a property of model, chip and link:
    about (n-1) F / (3 h W) for a dense transformer (P ~ 12 h^2 L). Above 1, communication
    outlasts the compute it parallelises whatever the batch."""
    from calculations import models, hardware
    m = models.get(m) if isinstance(m, str) else m
    hw = hardware.get(hw) if isinstance(hw, str) else hw
    _pos(n, "devices")
    act = "bf16" if dtype not in ("fp32", "fp16") else dtype
    comm = tp_layer_comm(m, 1, n, lk, act, latency_s=0).time_s
    compute = 2 * m.params_active_no_embedding / (n * hw.peak_flops(dtype))
    return comm / compute


# ------------------------------------------------------------- expert parallel
@dataclass
class EPComm:
    model: str
    link: str
    inter_link: Optional[str]
    ep: int
    devices_per_node: Optional[int]
    tokens: int                    # tokens per device in this step
    top_k: int
    dispatch_bytes_per_token: int  # top_k x hidden x dispatch dtype
    combine_bytes_per_token: int   # top_k x hidden x combine dtype
    remote_fraction: float         # share of a token's experts on other devices
    offnode_fraction: float        # share on other nodes (0 inside one domain)
    dispatch_bytes_per_layer: float     # sent by one device in one MoE layer
    combine_bytes_per_layer: float
    bytes_per_device_per_layer: float   # dispatch + combine
    moe_layers: int
    bytes_per_device: float        # all MoE layers of one step
    dispatch_time_s: float         # one layer
    combine_time_s: float          # one layer
    time_per_layer_s: float
    time_s: float                  # all MoE layers

    def to_dict(self) -> dict:
        return asdict(self)


def ep_alltoall(m, tokens: int, ep: int, lk, dispatch_dtype: str = "fp8", combine_dtype: str = "bf16",
                remote_fraction: Optional[float] = None, latency_s: Optional[float] = None,
                bandwidth: Optional[float] = None, devices_per_node: Optional[int] = None,
                inter_link=None) -> EPComm:
    """Dispatch + combine for `tokens` tokens held by one device, experts spread evenly over
    `ep` devices (balanced routing: a share (ep-1)/ep of each token's top-k copies leaves
    the device). Each of dispatch and combine costs latency + bytes / one-way bandwidth.

    With `devices_per_node` g and `inter_link`, the ep devices sit in nodes of g joined by
    `lk` inside a node and `inter_link` between nodes: a share (ep-g)/ep crosses nodes,
    (g-1)/ep stays on `lk`; the two run in parallel, the slower one sets the time, and the
    latency is the inter-node link's."""
    from calculations import models, formulas
    m = models.get(m) if isinstance(m, str) else m
    if not m.num_moe_layers:
        raise ScaleupError(f"{m.id} has no MoE layers: expert parallelism does not apply")
    lk = link(lk)
    _pos(tokens, "tokens")
    _pos(ep, "ep")
    k, h = m.experts_per_token, m.hidden_size
    disp = formulas.nbytes(k * h, dispatch_dtype)
    comb = formulas.nbytes(k * h, combine_dtype)
    frac = (ep - 1) / ep if remote_fraction is None else remote_fraction
    if not 0 <= frac <= 1:
        raise ScaleupError(f"remote fraction must be in [0, 1], got {frac!r}")
    ilk = None
    off = 0.0
    if devices_per_node is not None or inter_link is not None:
        if devices_per_node is None or inter_link is None:
            raise ScaleupError("give both devices_per_node and inter_link, or neither")
        _pos(devices_per_node, "devices_per_node")
        ilk = link(inter_link)
        g = min(devices_per_node, ep)
        off = (ep - g) / ep
    on = frac - off
    if on < -1e-12:
        raise ScaleupError("remote fraction is smaller than the off-node share")
    a = lk.latency_s if latency_s is None else latency_s
    b = lk.unidirectional if bandwidth is None else bandwidth
    if ilk is not None and off > 0:
        a = ilk.latency_s if latency_s is None else latency_s

    def one(nbytes_per_token):
        if ep == 1 or frac == 0:
            return 0.0
        t_on = tokens * nbytes_per_token * on / b
        t_off = tokens * nbytes_per_token * off / ilk.unidirectional if ilk is not None and off > 0 else 0.0
        return a + max(t_on, t_off)

    d_bytes = tokens * disp * frac
    c_bytes = tokens * comb * frac
    td, tc = one(disp), one(comb)
    per_layer = d_bytes + c_bytes
    return EPComm(m.id, lk.id, None if ilk is None else ilk.id, ep, devices_per_node, tokens, k, disp, comb,
                  frac, off, d_bytes, c_bytes, per_layer, m.num_moe_layers, per_layer * m.num_moe_layers,
                  td, tc, td + tc, (td + tc) * m.num_moe_layers)


# ----------------------------------------------------------------- memory fit
@dataclass
class DomainFit:
    model: str
    domain: str
    devices: int
    context: int
    batch: int
    dtype: str
    kv_dtype: str
    weight_bytes: int
    kv_bytes: int
    activation_bytes: int
    total_bytes: int
    capacity_bytes: int
    usable_fraction: float
    fits: bool
    max_batch: int
    weight_share: float            # weights / usable capacity

    def to_dict(self) -> dict:
        return asdict(self)


def domain_fit(m, dom, context: int = 8192, batch: int = 1, dtype: str = "bf16",
               kv_dtype: Optional[str] = None, usable_fraction: float = 0.9) -> DomainFit:
    """Resident weights (all parameters in `dtype`) + KV for batch x context + activations
    against the domain's pooled memory x usable_fraction. Same accounting as
    formulas.memory_plan, but for any domain, registered accelerator or not."""
    from calculations import formulas, models
    m = models.get(m) if isinstance(m, str) else m
    dom = domain(dom)
    if not 0 < usable_fraction <= 1:
        raise ScaleupError(f"usable fraction must be in (0, 1], got {usable_fraction!r}")
    _pos(batch, "batch")
    _pos(context, "context", zero_ok=True)
    w_dt = formulas._dtype(dtype)
    a_dt = w_dt if w_dt in ("fp32", "fp16") else "bf16"
    kv_dt = formulas._dtype(kv_dtype) if kv_dtype else a_dt
    weights = formulas.nbytes(m.params_total, w_dt)
    kv = formulas.kv_cache_bytes(m, context, batch, kv_dt)
    act = formulas.inference_activation_bytes(m, batch, 1, a_dt)
    total = weights + kv + act
    cap = dom.memory_bytes
    usable = int(cap * usable_fraction)
    per_seq = formulas.kv_cache_bytes(m, context, 1, kv_dt) + formulas.inference_activation_bytes(m, 1, 1, a_dt)
    max_b = max(0, (usable - weights) // per_seq) if usable > weights else 0
    return DomainFit(m.id, dom.id, dom.devices, context, batch, w_dt, kv_dt, weights, kv, act, total, cap,
                     usable_fraction, total <= usable, int(max_b), weights / usable)


# ----------------------------------------------------------------------- CLI
def _model_arg(args):
    from calculations import models
    if getattr(args, "config", None):
        return models.load_config(args.config)
    if not getattr(args, "model", None):
        raise ScaleupError("give --model ID (see `calc.py models`) or --config PATH")
    return models.get(args.model)


def _hw_arg(args, default):
    from calculations import hardware
    if getattr(args, "hardware_config", None):
        return hardware.load(args.hardware_config)
    return hardware.get(args.hardware or default)


def cmd_links(args):
    from calculations import tables
    if args.domains:
        rows = [d.summary() for d in domains()]
        cols = [("id", "id", "str"), ("name", "name", "str"), ("link", "link", "str"),
                ("devices", "devices", "int"), ("device_memory_gb", "GB/device", "float"),
                ("memory_tb", "pooled TB", "float"), ("aggregate_bidi_tb_s", "agg. TB/s both ways", "float"),
                ("system_power_kw", "kW", "float"), ("power_per_device_w", "W/device", "float")]
    else:
        rows = [lk.summary() for lk in links()]
        cols = [("id", "id", "str"), ("name", "name", "str"), ("kind", "kind", "str"),
                ("uni_gb_s", "GB/s one-way", "float"), ("bidi_gb_s", "GB/s both ways", "float"),
                ("links", "links", "int"), ("per_link_uni_gb_s", "GB/s/link one-way", "float"),
                ("latency_us", "latency us (assumed)", "float"), ("max_domain", "max domain", "int")]
    if args.format in ("csv", "json"):
        cols.append(("sources", "sources", "str"))
    return tables.render(rows, cols, args.format)


def cmd_tp_comm(args):
    from calculations import tables
    m = _model_arg(args)
    hw = _hw_arg(args, "h100")
    rows = []
    for n in args.devices:
        d = tp_decode(m, hw, n, args.link, args.batch, args.context, args.dtype, args.algorithm,
                      None if args.latency_us is None else args.latency_us * 1e-6)
        r = d.to_dict()
        r["allreduce_bytes"] = args.batch * m.hidden_size * _act_bytes("bf16")
        rows.append(r)
    cols = [("model", "model", "str"), ("hardware", "hw", "str"), ("link", "link", "str"),
            ("devices", "TP", "int"), ("batch", "batch", "int"), ("allreduce_bytes", "msg bytes", "int"),
            ("work_time_s", "work/device", "sec"), ("comm_time_s", "all-reduces", "sec"),
            ("comm_latency_s", "of which latency", "sec"), ("time_s", "step", "sec"),
            ("comm_share", "comm share", "float"), ("tokens_per_s", "tokens/s", "float")]
    return tables.render(rows, cols, args.format)


def cmd_ep_comm(args):
    from calculations import tables
    m = _model_arg(args)
    rows = []
    for lk in args.link:
        e = ep_alltoall(m, args.tokens, args.ep, lk, args.dispatch_dtype, args.combine_dtype,
                        args.remote_fraction, devices_per_node=args.node_size,
                        inter_link=args.inter_link if args.node_size else None)
        rows.append(e.to_dict())
    cols = [("model", "model", "str"), ("link", "link", "str"), ("inter_link", "between nodes", "str"), ("ep", "EP", "int"),
            ("tokens", "tokens/device", "int"), ("dispatch_bytes_per_token", "dispatch B/token", "int"),
            ("combine_bytes_per_token", "combine B/token", "int"), ("remote_fraction", "remote", "float"),
            ("bytes_per_device_per_layer", "B/device/layer", "bytes"), ("bytes_per_device", "B/device/step", "bytes"),
            ("dispatch_time_s", "dispatch", "sec"), ("combine_time_s", "combine", "sec"),
            ("time_per_layer_s", "per layer", "sec"), ("time_s", "all MoE layers", "sec")]
    return tables.render(rows, cols, args.format)


def cmd_domain_fit(args):
    from calculations import models, tables
    ms = [_model_arg(args)] if (args.model or args.config) else models.all()
    rows = []
    for m in ms:
        for d in args.domain:
            rows.append(domain_fit(m, d, args.context, args.batch, args.dtype, args.kv_dtype,
                                   args.usable).to_dict())
    cols = [("model", "model", "str"), ("domain", "domain", "str"), ("devices", "devices", "int"),
            ("weight_bytes", "weights", "bytes"), ("kv_bytes", "KV", "bytes"),
            ("total_bytes", "total", "bytes"), ("capacity_bytes", "capacity", "bytes"),
            ("fits", "fits", "str"), ("max_batch", "max batch", "int"), ("weight_share", "weights/usable", "float")]
    return tables.render(rows, cols, args.format)


def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
    from calculations import cliargs
    from calculations.calc import positive, nonneg, _fraction, DTYPES

    _frac0 = cliargs.probability

    _nonneg_float = cliargs.nonneg_number

    s = sub.add_parser("links", help="scale-up links (NVLink, PCIe, CXL, ICI, UB) and domains (--domains)")
    common(s, model=False)
    s.add_argument("--domains", action="store_true", help="list scale-up domains instead of links")
    s.set_defaults(func=cmd_links)

    s = sub.add_parser("tp-comm", help="tensor-parallel decode: work per device + two all-reduces per layer")
    common(s, hw=True)
    s.add_argument("--link", default="nvlink4", help="link id (see `links`)")
    s.add_argument("--devices", "-n", type=positive, nargs="+", default=[8], help="TP degrees")
    s.add_argument("--batch", "-b", type=positive, default=1)
    s.add_argument("--context", "-c", type=nonneg, default=4096)
    s.add_argument("--dtype", choices=DTYPES, default="bf16")
    s.add_argument("--algorithm", choices=("ring", "switch", "oneshot", "twoshot"), default="ring")
    s.add_argument("--latency-us", type=_nonneg_float, help="override the link's per-step latency")
    s.set_defaults(func=cmd_tp_comm)

    s = sub.add_parser("ep-comm", help="expert-parallel all-to-all bytes and time per decode step")
    common(s)
    s.add_argument("--link", nargs="+", default=["nvlink5", "ib-ndr-400"], help="link ids to compare")
    s.add_argument("--ep", type=positive, default=64, help="devices the experts are spread over")
    s.add_argument("--tokens", "-t", type=positive, default=128, help="tokens per device in the step")
    s.add_argument("--dispatch-dtype", choices=DTYPES, default="fp8")
    s.add_argument("--combine-dtype", choices=DTYPES, default="bf16")
    s.add_argument("--remote-fraction", type=_frac0, help="share of experts off-device (default (ep-1)/ep)")
    s.add_argument("--node-size", type=positive, help="devices per node joined by --link; nodes joined by --inter-link")
    s.add_argument("--inter-link", default="ib-ndr-400", help="link between nodes (with --node-size)")
    s.set_defaults(func=cmd_ep_comm)

    s = sub.add_parser("domain-fit", help="weights + KV of a model (or all models) against a domain's pooled memory")
    common(s)
    s.add_argument("--domain", nargs="+", default=["hgx-h100", "gb200-nvl72"], help="domain ids (see `links --domains`)")
    s.add_argument("--context", "-c", type=nonneg, default=8192)
    s.add_argument("--batch", "-b", type=positive, default=1)
    s.add_argument("--dtype", choices=DTYPES, default="bf16")
    s.add_argument("--kv-dtype", choices=DTYPES)
    s.add_argument("--usable", type=_fraction, default=0.9, help="usable fraction of memory")
    s.set_defaults(func=cmd_domain_fit)
