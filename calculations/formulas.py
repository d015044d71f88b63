"""Formulas: KV cache, per-operator forward pass, roofline, decode, memory, training.

Conventions (see README): a multiply-add is 2 FLOPs; bytes and parameter
counts are exact ints; prefill attention is causal; lm_head runs for the last
position of each sequence unless ``all_logits=True``; peaks are dense.
"""
from __future__ import annotations

from dataclasses import dataclass, field, asdict
from typing import Optional

from . import hardware as _hw
from .errors import CalcError

__all__ = [
    "DTYPE_BITS", "FormulaError", "nbytes", "Operator", "Totals", "Forward", "DecodeStep", "MemoryPlan",
    "kv_elements_per_token_layer", "kv_bytes_per_token", "kv_cache_bytes", "attention_key_sum",
    "forward", "prefill_flops", "layer_param_flops", "inference_activation_bytes", "roofline_time", "decode_step", "memory_plan", "train_flops",
    "train_memory_per_device", "compute_precision", "ELEMENTWISE_FLOPS", "TRAIN_BYTES_PER_PARAM",
]

DTYPE_BITS = {"fp32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "int4": 4, "fp4": 4}

# Approximate FLOPs per element of the non-matmul operators (matmuls are exact).
ELEMENTWISE_FLOPS = {"rmsnorm": 4, "residual": 1, "rope": 3, "softmax": 5, "swiglu": 5, "combine": 2}

# AdamW mixed precision: bf16 weight + bf16 grad + fp32 master + two fp32 moments.
TRAIN_BYTES_PER_PARAM = {"weights": 2, "grads": 2, "master": 4, "adam_m": 4, "adam_v": 4}


class FormulaError(CalcError):
    """Bad argument to a formula (user-facing, reported without traceback)."""


def _dtype(d: str) -> str:
    key = str(d).lower()
    if key not in DTYPE_BITS:
        raise FormulaError(f"unknown dtype {d!r} (choose from {', '.join(DTYPE_BITS)})")
    return key


def nbytes(elements: int, dtype: str) -> int:
    """Exact bytes for `elements` values of `dtype` (rounded up to a whole byte)."""
    return -(-int(elements) * DTYPE_BITS[_dtype(dtype)] // 8)


def _pos_int(v, name, zero_ok=False):
    if isinstance(v, bool) or not isinstance(v, int) or v < 0 or (v == 0 and not zero_ok):
        raise FormulaError(f"{name} must be a {'non-negative' if zero_ok else 'positive'} integer, got {v!r}")
    return v


# =================================================================== KV cache
def kv_elements_per_token_layer(m) -> int:
    """Values cached per token per layer: 2 x kv_heads x head_dim (K and V), or
    the MLA latent kv_lora_rank + qk_rope_head_dim."""
    return m.kv_elements_per_token_layer()


def kv_bytes_per_token(m, dtype: str = "bf16", mla_expanded: bool = False) -> int:
    """KV bytes one token adds when every layer keeps it (context shorter than
    any sliding window). ``mla_expanded`` gives the per-head K/V size an MLA
    model would need without the latent cache (for comparison only)."""
    if mla_expanded and m.is_mla:
        return nbytes(m.num_layers * m.num_heads * (m.q_head_dim + m.v_head_dim), dtype)
    return nbytes(m.num_layers * kv_elements_per_token_layer(m), dtype)


def kv_cache_bytes(m, tokens: int, batch: int = 1, dtype: str = "bf16") -> int:
    """KV cache for `batch` sequences of `tokens` tokens. Sliding-window layers
    keep at most `sliding_window` tokens; MLA layers keep the latent."""
    _pos_int(tokens, "tokens", zero_ok=True)
    _pos_int(batch, "batch")
    per = kv_elements_per_token_layer(m)
    elems = 0
    for i in range(m.num_layers):
        w = m.layer_window(i)
        elems += (tokens if w is None else min(tokens, w)) * per
    return batch * nbytes(elems, dtype)


def _prefix_keys(n: int, window: Optional[int]) -> int:
    """sum_{p=0}^{n-1} min(p+1, window): keys seen by the first n positions."""
    if window is None or n <= window:
        return n * (n + 1) // 2
    return window * (window + 1) // 2 + (n - window) * window


def attention_key_sum(tokens: int, context: int = 0, window: Optional[int] = None) -> int:
    """Sum over the `tokens` new positions (after `context` cached ones) of the
    number of keys each attends to (causal, optionally windowed). For a fresh
    prefill it is T(T+1)/2, not the rectangular T^2."""
    return _prefix_keys(context + tokens, window) - _prefix_keys(context, window)


def _distinct_keys(tokens, context, window):
    n = context + tokens
    return n if window is None else min(n, window + tokens - 1)


# ==================================================================== forward
@dataclass
class Operator:
    """One row of the forward table; numbers are totals over `layers` layers."""
    name: str
    kind: str          # linear | attention | softmax | norm | rope | elementwise | embedding | kv_cache | lm_head
    layers: int
    shape: str
    flops: int
    weight_bytes: int = 0
    activation_read_bytes: int = 0
    activation_write_bytes: int = 0
    kv_read_bytes: int = 0
    kv_write_bytes: int = 0
    intensity: Optional[float] = None      # FLOP/byte (set when hardware is given)
    time_s: Optional[float] = None
    bound: Optional[str] = None            # "compute" | "memory"

    @property
    def bytes(self) -> int:
        return (self.weight_bytes + self.activation_read_bytes + self.activation_write_bytes
                + self.kv_read_bytes + self.kv_write_bytes)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["bytes"] = self.bytes
        return d


@dataclass
class Totals:
    flops: int = 0
    weight_bytes: int = 0
    activation_read_bytes: int = 0
    activation_write_bytes: int = 0
    kv_read_bytes: int = 0
    kv_write_bytes: int = 0
    bytes: int = 0
    intensity: Optional[float] = None
    compute_time_s: Optional[float] = None   # total FLOPs / (peak x compute_eff)
    memory_time_s: Optional[float] = None    # total bytes / (bandwidth x memory_eff)
    roofline_time_s: Optional[float] = None  # max of the two: whole pass perfectly overlapped
    time_s: Optional[float] = None           # sum of per-operator roofline times (ops in sequence)
    bound: Optional[str] = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Forward:
    model: str
    tokens: int
    batch: int
    context: int
    dtype: str
    act_dtype: str
    kv_dtype: str
    all_logits: bool
    operators: list
    totals: Totals
    hardware: Optional[str] = None
    precision: Optional[str] = None
    compute_eff: float = 1.0
    memory_eff: float = 1.0
    assumptions: list = field(default_factory=list)

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in ("model", "tokens", "batch", "context", "dtype", "act_dtype",
                                           "kv_dtype", "all_logits", "hardware", "precision",
                                           "compute_eff", "memory_eff", "assumptions")}
        d["operators"] = [o.to_dict() for o in self.operators]
        d["totals"] = self.totals.to_dict()
        return d

    def flops_by_kind(self) -> dict:
        out: dict = {}
        for o in self.operators:
            out[o.kind] = out.get(o.kind, 0) + o.flops
        return out


def compute_precision(hw, dtype: str) -> tuple:
    """Peak precision used for a run in `dtype` on `hw`: the dtype itself when
    the device has a dense peak for it; weight-only formats (int8/int4/fp4/fp8)
    without a peak fall back to bf16 compute. Returns (precision, note)."""
    dtype = _dtype(dtype)
    if hw.has_peak(dtype):
        return dtype, ""
    if dtype in ("int8", "int4", "fp4", "fp8") and hw.has_peak("bf16"):
        return "bf16", f"{hw.id} has no dense {dtype} peak: treated as weight-only {dtype}, bf16 compute"
    hw.peak_tflops(dtype)  # raises a clear HardwareError
    return dtype, ""


def forward(m, tokens: int, batch: int = 1, context: int = 0, dtype: str = "bf16", hw=None,
            kv_dtype: Optional[str] = None, act_dtype: Optional[str] = None, all_logits: bool = False,
            attention_impl: str = "flash", mla_absorb: Optional[bool] = None,
            compute_eff: float = 1.0, memory_eff: float = 1.0) -> Forward:
    """Per-operator FLOPs and bytes for one forward pass of `tokens` new tokens
    per sequence, `batch` sequences, after `context` cached tokens.

    dtype: weights. act_dtype: activations (default bf16, or dtype if fp32/fp16).
    kv_dtype: KV cache (default act_dtype). attention_impl: "flash" (scores stay
    on chip) or "eager" (scores/probabilities written to memory).
    mla_absorb: MLA attention in the weight-absorbed latent form (default: when
    context > 0) or the naive expanded form (default for a fresh prefill).
    """
    _pos_int(tokens, "tokens")
    _pos_int(batch, "batch")
    _pos_int(context, "context", zero_ok=True)
    w_dt = _dtype(dtype)
    a_dt = _dtype(act_dtype) if act_dtype else (w_dt if w_dt in ("fp32", "fp16") else "bf16")
    kv_dt = _dtype(kv_dtype) if kv_dtype else a_dt
    if attention_impl not in ("flash", "eager"):
        raise FormulaError("attention_impl must be 'flash' or 'eager'")
    notes = []
    if hw is not None:
        hw = _hw.get(hw)

    B, T, C = batch, tokens, context
    N = B * T
    H, V, L = m.hidden_size, m.vocab_size, m.num_layers
    nh, kvh, hd = m.num_heads, m.num_kv_heads, m.head_dim
    A = lambda e: nbytes(e, a_dt)   # noqa: E731
    W = lambda e: nbytes(e, w_dt)   # noqa: E731
    KVB = lambda e: nbytes(e, kv_dt)  # noqa: E731
    EW = ELEMENTWISE_FLOPS
    ops: list = []

    def add(name, kind, n, shape, flops, wb=0, ar=0, aw=0, kr=0, kw=0):
        ops.append(Operator(name, kind, n, shape, n * flops, n * wb, n * ar, n * aw, n * kr, n * kw))

    def linear(name, n, fan_in, fan_out, bias=False, rows=N, kind="linear"):
        add(name, kind, n, f"[{rows}x{fan_in}] @ [{fan_in}x{fan_out}]",
            2 * rows * fan_in * fan_out + (rows * fan_out if bias else 0),
            W(fan_in * fan_out + (fan_out if bias else 0)), A(rows * fan_in), A(rows * fan_out))

    def norm(name, n, width, rows=N):
        add(name, "norm", n, f"[{rows}x{width}]", EW["rmsnorm"] * rows * width, W(width), A(rows * width), A(rows * width))

    def tag(n):
        return f" (x{n} layers)" if n > 1 else ""

    # ---------------------------------------------------------- embedding
    add("embedding", "embedding", 1, f"gather {N} of [{V}x{H}]", 0, W(min(N, V) * H), 0, A(N * H))

    # group layers by (window, moe) so rows can say "x N layers"
    groups: dict = {}
    for i in range(L):
        key = (m.layer_window(i), m.moe_layers[i])
        groups[key] = groups.get(key, 0) + 1
    absorb = (C > 0) if mla_absorb is None else bool(mla_absorb)
    if m.is_mla:
        notes.append("MLA attention in the " + ("absorbed latent form (scores over kv_lora_rank + rope dims)"
                                                  if absorb else "naive expanded form (K/V expanded per head)"))

    for (window, is_moe), n in groups.items():
        att = "sliding" if window else "full"
        sfx = tag(n)
        pre = f"L[{att}{'' if not m.is_moe else (',moe' if is_moe else ',dense')}]"
        norm(f"{pre} input_norm{sfx}", n, H)
        # ------------------------------------------------- projections
        if m.is_mla:
            qhd = m.q_head_dim
            if m.q_lora_rank:
                linear(f"{pre} q_a_proj{sfx}", n, H, m.q_lora_rank)
                norm(f"{pre} q_a_norm{sfx}", n, m.q_lora_rank)
                linear(f"{pre} q_b_proj{sfx}", n, m.q_lora_rank, nh * qhd)
            else:
                linear(f"{pre} q_proj{sfx}", n, H, nh * qhd)
            linear(f"{pre} kv_a_proj (latent+rope){sfx}", n, H, m.kv_lora_rank + m.qk_rope_head_dim)
            norm(f"{pre} kv_a_norm{sfx}", n, m.kv_lora_rank)
            linear(f"{pre} kv_b_proj{' (absorbed into q/out)' if absorb else ''}{sfx}", n, m.kv_lora_rank,
                   nh * (m.qk_nope_head_dim + m.v_head_dim))
            rope_el = N * (nh + 1) * m.qk_rope_head_dim
            q_el, dqk, dv = nh * qhd, qhd, m.v_head_dim
            if absorb:
                dqk, dv = m.kv_lora_rank + m.qk_rope_head_dim, m.kv_lora_rank
        else:
            b = m.qkv_bias
            linear(f"{pre} q_proj{sfx}", n, H, nh * hd, b)
            linear(f"{pre} k_proj{sfx}", n, H, kvh * hd, b)
            linear(f"{pre} v_proj{sfx}", n, H, kvh * hd, b)
            if m.qk_norm:
                add(f"{pre} q_norm+k_norm (per head){sfx}", "norm", n, f"[{N}x{nh + kvh}x{hd}]",
                    EW["rmsnorm"] * N * (nh + kvh) * hd, W(2 * hd), A(N * (nh + kvh) * hd), A(N * (nh + kvh) * hd))
            rope_el = N * (nh + kvh) * hd
            q_el, dqk, dv = nh * hd, hd, hd
        add(f"{pre} rope{sfx}", "rope", n, f"{rope_el // N} dims/token", EW["rope"] * rope_el, 0, A(rope_el), A(rope_el))
        # ------------------------------------------------------ KV cache
        kv_el = kv_elements_per_token_layer(m)
        add(f"{pre} kv_cache_write{sfx}", "kv_cache", n, f"{N} tokens x {kv_el}", 0, 0, 0, 0, 0, KVB(N * kv_el))
        # ---------------------------------------------------- attention
        ksum = attention_key_sum(T, C, window)
        keys = _distinct_keys(T, C, window)
        kv_read = B * KVB(keys * kv_el)
        k_read, v_read = (kv_read, 0) if m.is_mla else (kv_read // 2, kv_read - kv_read // 2)
        win = f", window {window}" if window else ""
        scores = B * nh * ksum
        eager = attention_impl == "eager"
        add(f"{pre} attn_scores QK^T (causal{win}){sfx}", "attention", n,
            f"{B}x{nh} heads x {ksum} (q,k) pairs x {dqk}", 2 * scores * dqk, 0, A(N * nh * dqk),
            A(scores) if eager else 0, k_read)
        add(f"{pre} softmax{' (+sinks)' if m.attention_sinks else ''}{sfx}", "softmax", n,
            f"{B}x{nh}x{ksum} scores", EW["softmax"] * scores, W(nh) if m.attention_sinks else 0,
            A(scores) if eager else 0, A(scores) if eager else 0)
        add(f"{pre} attn_x_V{sfx}", "attention", n, f"{B}x{nh} heads x {ksum} pairs x {dv}",
            2 * scores * dv, 0, A(scores) if eager else 0, A(N * nh * dv), v_read)
        if m.is_mla and absorb:
            # the absorbed kv_b_proj halves appear in the kv_b_proj row above
            pass
        linear(f"{pre} o_proj{sfx}", n, nh * m.attn_v_head_dim, H, m.o_bias)
        add(f"{pre} residual_add{sfx}", "elementwise", n, f"[{N}x{H}]", EW["residual"] * N * H, 0, A(2 * N * H), A(N * H))
        norm(f"{pre} post_attention_norm{sfx}", n, H)
        # ----------------------------------------------------------- MLP
        if is_moe:
            E, k, Im = m.num_experts, m.experts_per_token, m.moe_intermediate_size
            linear(f"{pre} moe.router ({E} experts){sfx}", n, H, E, m.router_bias)
            touched = min(E, N * k)
            eb = m.expert_bias
            add(f"{pre} moe.experts gate+up (top-{k}, {touched}/{E} hit){sfx}", "linear", n,
                f"[{N}x{k}x{H}] @ [{H}x{2 * Im}]", 2 * N * k * H * 2 * Im + (N * k * 2 * Im if eb else 0),
                touched * W(H * 2 * Im + (2 * Im if eb else 0)), A(N * k * H), A(N * k * 2 * Im))
            add(f"{pre} moe.experts act (SwiGLU){sfx}", "elementwise", n, f"[{N}x{k}x{Im}]",
                EW["swiglu"] * N * k * Im, 0, A(2 * N * k * Im), A(N * k * Im))
            add(f"{pre} moe.experts down{sfx}", "linear", n, f"[{N}x{k}x{Im}] @ [{Im}x{H}]",
                2 * N * k * Im * H + (N * k * H if eb else 0), touched * W(Im * H + (H if eb else 0)),
                A(N * k * Im), A(N * k * H))
            add(f"{pre} moe.combine (weighted sum){sfx}", "elementwise", n, f"[{N}x{k}x{H}]",
                EW["combine"] * N * k * H, 0, A(N * k * H), A(N * H))
            if m.num_shared_experts:
                Is = m.shared_expert_intermediate_size
                linear(f"{pre} moe.shared gate+up{sfx}", n, H, 2 * Is)
                add(f"{pre} moe.shared act (SwiGLU){sfx}", "elementwise", n, f"[{N}x{Is}]",
                    EW["swiglu"] * N * Is, 0, A(2 * N * Is), A(N * Is))
                linear(f"{pre} moe.shared down{sfx}", n, Is, H)
        else:
            I = m.intermediate_size
            linear(f"{pre} mlp.gate+up{sfx}", n, H, 2 * I, m.mlp_bias)
            add(f"{pre} mlp.act (SwiGLU){sfx}", "elementwise", n, f"[{N}x{I}]", EW["swiglu"] * N * I, 0,
                A(2 * N * I), A(N * I))
            linear(f"{pre} mlp.down{sfx}", n, I, H, m.mlp_bias)
        add(f"{pre} residual_add{sfx}", "elementwise", n, f"[{N}x{H}]", EW["residual"] * N * H, 0, A(2 * N * H), A(N * H))

    norm("final_norm", 1, H)
    rows = N if all_logits else B
    linear(f"lm_head ({'all positions' if all_logits else 'last position'}{', tied' if m.tie_embeddings else ''})",
           1, H, V, rows=rows, kind="lm_head")

    # ---------------------------------------------------------- totals
    t = Totals()
    for o in ops:
        t.flops += o.flops
        t.weight_bytes += o.weight_bytes
        t.activation_read_bytes += o.activation_read_bytes
        t.activation_write_bytes += o.activation_write_bytes
        t.kv_read_bytes += o.kv_read_bytes
        t.kv_write_bytes += o.kv_write_bytes
    t.bytes = (t.weight_bytes + t.activation_read_bytes + t.activation_write_bytes
               + t.kv_read_bytes + t.kv_write_bytes)
    t.intensity = t.flops / t.bytes if t.bytes else None
    prec = None
    if hw is not None:
        prec, note = compute_precision(hw, w_dt)
        if note:
            notes.append(note)
        total_time = 0.0
        for o in ops:
            o.intensity = o.flops / o.bytes if o.bytes else None
            o.time_s, o.bound = roofline_time(o.flops, o.bytes, hw, prec, compute_eff, memory_eff)
            total_time += o.time_s
        t.compute_time_s = t.flops / (hw.peak_flops(prec) * compute_eff)
        t.memory_time_s = t.bytes / (hw.hbm_bandwidth * memory_eff)
        t.roofline_time_s = max(t.compute_time_s, t.memory_time_s)
        t.bound = "compute" if t.compute_time_s >= t.memory_time_s else "memory"
        t.time_s = total_time
    if m.is_moe:
        notes.append("MoE weight bytes: experts hit = min(experts, tokens x top-k) (balanced routing)")
    notes.append(f"attention: {attention_impl} ({'scores stay on chip' if attention_impl == 'flash' else 'scores written to memory'})")
    return Forward(m.id, T, B, C, w_dt, a_dt, kv_dt, bool(all_logits), ops, t,
                   hw.id if hw is not None else None, prec, compute_eff, memory_eff, notes)


def layer_param_flops(m, tokens: int, batch: int = 1) -> int:
    """The parameter-based 2NT rule applied to the transformer layers:
    2 x tokens x (every per-layer parameter, norm weights included, active
    experts only). This is how the reference 'linear-layer FLOPs' figure is
    defined; the operator table's matmul rows differ from it only by the norm
    weights (2 x tokens x L x norm parameters, ~0.004% for Qwen3-8B)."""
    _pos_int(tokens, "tokens")
    return 2 * batch * tokens * sum(m.layer_params(i, active=True) for i in range(m.num_layers))


def prefill_flops(m, tokens: int, batch: int = 1, all_logits: bool = False) -> int:
    """FLOPs of a fresh causal prefill (lm_head at the last position by default)."""
    return forward(m, tokens, batch=batch, all_logits=all_logits).totals.flops


# =================================================================== roofline
def roofline_time(flops, bytes_, h, dtype: str = "bf16", compute_eff: float = 1.0,
                  memory_eff: float = 1.0, sparse: bool = False) -> tuple:
    """(seconds, bound) with seconds = max(FLOPs / (peak x compute_eff),
    bytes / (bandwidth x memory_eff)); bound is "compute" or "memory".
    Uses the dense peak unless sparse=True."""
    h = _hw.get(h)
    for v, nm in ((compute_eff, "compute_eff"), (memory_eff, "memory_eff")):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
            raise FormulaError(f"{nm} must be in (0, 1], got {v!r}")
    tc = flops / (h.peak_flops(dtype, sparse) * compute_eff)
    tm = bytes_ / (h.hbm_bandwidth * memory_eff)
    return (tc, "compute") if tc >= tm else (tm, "memory")


# ===================================================================== decode
@dataclass
class DecodeStep:
    model: str
    hardware: str
    batch: int
    context: int
    devices: int
    precision: str
    flops: int
    bytes: int
    intensity: float
    compute_time_s: float
    memory_time_s: float
    comm_time_s: float
    time_s: float              # per decode step = per-token latency bound
    bound: str
    tokens_per_s: float        # batch / time_s (all sequences)
    tokens_per_s_per_sequence: float
    weight_bytes: int = 0
    kv_read_bytes: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


def decode_step(m, batch: int, context: int, hw, dtype: str = "bf16", kv_dtype: Optional[str] = None,
                compute_eff: float = 1.0, memory_eff: float = 1.0, devices: int = 1) -> DecodeStep:
    """Lower bound on one decode step (1 new token for each of `batch`
    sequences holding `context` tokens): sum of per-operator roofline times.
    With devices > 1: ideal tensor parallelism (FLOPs and bytes split evenly)
    plus two ring all-reduces of the hidden state per layer over the one-way
    scale-up bandwidth."""
    hw = _hw.get(hw)
    _pos_int(devices, "devices")
    fw = forward(m, 1, batch=batch, context=context, dtype=dtype, hw=hw, kv_dtype=kv_dtype,
                 compute_eff=compute_eff, memory_eff=memory_eff)
    t = fw.totals
    comm = 0.0
    if devices > 1:
        size = nbytes(batch * m.hidden_size, fw.act_dtype)
        comm = m.num_layers * 2 * (2 * (devices - 1) / devices) * size / hw.link_unidirectional
    time = t.time_s / devices + comm
    bound = t.bound if comm < t.time_s / devices else "communication"
    return DecodeStep(m.id, hw.id, batch, context, devices, fw.precision, t.flops, t.bytes, t.intensity,
                      t.compute_time_s / devices, t.memory_time_s / devices, comm, time, bound,
                      batch / time, 1.0 / time, t.weight_bytes, t.kv_read_bytes)


# ===================================================================== memory
@dataclass
class MemoryPlan:
    model: str
    hardware: str
    devices: int
    batch: int
    context: int
    chunk: int
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
    per_device_bytes: int

    def to_dict(self) -> dict:
        return asdict(self)


def _act_width(m) -> int:
    """Widest live activation per token inside one layer (values), inference."""
    attn = m.num_heads * m.q_head_dim + (
        m.kv_lora_rank + m.qk_rope_head_dim + m.num_heads * (m.qk_nope_head_dim + m.v_head_dim)
        if m.is_mla else 2 * m.num_kv_heads * m.head_dim)
    mlp = 0
    if m.num_dense_layers:
        mlp = 3 * m.intermediate_size
    if m.num_moe_layers:
        mlp = max(mlp, m.experts_per_token * (m.hidden_size + 3 * m.moe_intermediate_size)
                  + 3 * m.shared_expert_intermediate_size + m.num_experts)
    return 2 * m.hidden_size + max(attn, mlp)


def inference_activation_bytes(m, batch: int, chunk: int = 1, dtype: str = "bf16") -> int:
    """Peak activation estimate: one layer's widest working set for batch x chunk
    tokens plus fp32 logits for the last position of each sequence."""
    return nbytes(batch * chunk * _act_width(m), dtype) + nbytes(batch * m.vocab_size, "fp32")


def memory_plan(m, hw, devices: int = 1, batch: int = 1, context: int = 4096, dtype: str = "bf16",
                kv_dtype: Optional[str] = None, chunk: int = 1, usable_fraction: float = 1.0) -> MemoryPlan:
    """Weights + KV cache + activations against `devices` x device memory.
    max_batch is the largest batch of `context`-token sequences that fits."""
    hw = _hw.get(hw)
    _pos_int(devices, "devices")
    _pos_int(batch, "batch")
    _pos_int(context, "context", zero_ok=True)
    _pos_int(chunk, "chunk")
    if not 0 < usable_fraction <= 1:
        raise FormulaError(f"usable fraction must be in (0, 1], got {usable_fraction!r}")
    w_dt = _dtype(dtype)
    a_dt = w_dt if w_dt in ("fp32", "fp16") else "bf16"
    kv_dt = _dtype(kv_dtype) if kv_dtype else a_dt
    weights = nbytes(m.params_total, w_dt)
    kv = kv_cache_bytes(m, context, batch, kv_dt)
    act = inference_activation_bytes(m, batch, chunk, a_dt)
    total = weights + kv + act
    cap = hw.hbm_bytes * devices
    usable = int(cap * usable_fraction)
    per_seq = kv_cache_bytes(m, context, 1, kv_dt) + inference_activation_bytes(m, 1, chunk, a_dt)
    max_b = max(0, (usable - weights) // per_seq) if usable > weights else 0
    return MemoryPlan(m.id, hw.id, devices, batch, context, chunk, w_dt, kv_dt, weights, kv, act, total,
                      cap, usable_fraction, total <= usable, int(max_b), -(-total // devices))


# =================================================================== training
def train_flops(n_params_active, tokens):
    """6 N D: forward (2ND) + backward (4ND). Exact int for int inputs."""
    return 6 * n_params_active * tokens


def train_memory_per_device(m, devices: int, zero_stage: int, tokens_per_device: int = 0,
                            recompute: str = "full") -> dict:
    """Bytes per device for AdamW mixed precision (16 B/param) under ZeRO
    stage 0-3 with data parallelism over `devices`, plus an activation estimate
    for `tokens_per_device` tokens (micro-batch x sequence length).

    Stage 1 shards the 12 B/param optimizer state, stage 2 also the 2 B/param
    gradients, stage 3 also the 2 B/param weights. recompute="full" keeps only
    each layer's input (plus one layer's working set); "none" keeps every
    matmul input of every layer."""
    _pos_int(devices, "devices")
    _pos_int(tokens_per_device, "tokens_per_device", zero_ok=True)
    if zero_stage not in (0, 1, 2, 3) or isinstance(zero_stage, bool):
        raise FormulaError(f"zero_stage must be 0, 1, 2 or 3, got {zero_stage!r}")
    if recompute not in ("full", "none"):
        raise FormulaError("recompute must be 'full' or 'none'")
    N = m.params_total
    d = devices
    ceil = lambda x: -(-x // d)   # noqa: E731
    bp = TRAIN_BYTES_PER_PARAM
    opt = N * (bp["master"] + bp["adam_m"] + bp["adam_v"])
    weights = N * bp["weights"] if zero_stage < 3 else ceil(N * bp["weights"])
    grads = N * bp["grads"] if zero_stage < 2 else ceil(N * bp["grads"])
    optim = opt if zero_stage < 1 else ceil(opt)
    layer_width = 4 * m.hidden_size + _act_width(m) + m.num_heads * m.attn_v_head_dim
    if recompute == "none":
        act = nbytes(tokens_per_device * m.num_layers * layer_width, "bf16")
    else:
        act = nbytes(tokens_per_device * (m.num_layers * m.hidden_size + layer_width), "bf16")
    return {"model": m.id, "devices": d, "zero_stage": zero_stage, "params": N,
            "weights_bytes": weights, "grads_bytes": grads, "optimizer_bytes": optim,
            "activation_bytes": act, "recompute": recompute, "tokens_per_device": tokens_per_device,
            "total_bytes": weights + grads + optim + act}
