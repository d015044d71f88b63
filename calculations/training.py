"""Training systems (chapter 10): memory per parameter, parallel layouts, pipeline bubbles, MFU, checkpoint interval.

Standard library only. `add_commands` registers this module's `calc.py` subcommands
(`layout`, `bubble`, `checkpoint`).

Conventions: bytes are exact ints where the inputs are ints; times are seconds;
bandwidths are bytes per second in one direction. The training-state bytes per
parameter come from `formulas.TRAIN_BYTES_PER_PARAM` (AdamW mixed precision,
16 B/param); the 6ND model FLOPs from `formulas.train_flops`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, asdict

from . import formulas
from . import hardware as _hw
from . import models as _models
from .errors import CalcError

__all__ = [
    "TrainingError", "LLAMA3_405B_RUN", "KORTHIKANTI_SBH", "KORTHIKANTI_SCORES", "NIC_400G",
    "state_bytes_per_param", "checkpoint_bytes_per_param", "activation_bytes_per_layer",
    "pipeline_bubble_fraction", "pipeline_bubble_ratio", "inflight_layers", "Layout",
    "stage_params", "layout_memory", "ring_allreduce_seconds", "dp_comm_bytes", "step_time",
    "attention_train_flops", "mfu",
    "mfu_from_throughput", "checkpoint_bytes", "checkpoint_write_seconds", "mtbf_seconds",
    "young_interval", "daly_interval", "checkpoint_waste", "expected_lost_work",
    "weight_sync_seconds", "add_commands",
]


class TrainingError(CalcError):
    """Bad argument to a training formula (user-facing, reported without traceback)."""


# ------------------------------------------------------------ cited facts
# "The Llama 3 Herd of Models" (Llama Team, AI @ Meta, arXiv:2407.21783, 2024), section 3.3.4 and
# table 5: a 54-day snapshot of Llama 3 405B pre-training on up to 16,384 H100s saw 466 job
# interruptions, 47 planned and 419 unexpected; effective training time stayed above 90%.
# Section 3.3.1: Tectonic storage, 240 PB on 7,500 servers, 2 TB/s sustained and 7 TB/s peak;
# 400 Gbps interconnects between GPUs. Table 4: 16,384 GPUs at TP 8, PP 16, DP 128, 16M tokens
# per batch, 400 TFLOPs/GPU, 41% BF16 MFU (8,192 GPUs: 430 TFLOPs/GPU, 43%).
LLAMA3_405B_RUN = {
    "gpus": 16384,
    "days": 54,
    "interruptions": 466,
    "planned": 47,
    "unexpected": 419,
    "effective_training_time": 0.90,
    "storage_sustained_bytes_s": 2e12,
    "storage_peak_bytes_s": 7e12,
    "tp": 8, "pp": 16, "dp": 128, "seq": 8192, "batch_tokens": 16 * 2**20,
    "tflops_per_gpu": 400.0, "mfu": 0.41,
    "tflops_per_gpu_8k": 430.0, "mfu_8k": 0.43,
}

# Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models"
# (arXiv:2205.05198), eq. (1): a GPT layer stores s*b*h*(34 + 5*a*s/h) bytes of 16-bit activations
# (plus 1-byte dropout masks): 34 s b h from the projections, MLP and norms, 5 a s^2 b from the
# attention scores, softmax output and its dropout mask.
KORTHIKANTI_SBH = 34
KORTHIKANTI_SCORES = 5

NIC_400G = 400e9 / 8          # one 400 Gbit/s NIC per GPU, in bytes/s (one direction)

_RECOMPUTE = ("none", "selective", "full")


def _pos_int(v, name, zero_ok=False):
    if isinstance(v, bool) or not isinstance(v, int) or v < 0 or (v == 0 and not zero_ok):
        raise TrainingError(f"{name} must be a {'non-negative' if zero_ok else 'positive'} integer, got {v!r}")
    return v


def _pos(v, name):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0 or v != v or v == float("inf"):
        raise TrainingError(f"{name} must be a positive number, got {v!r}")
    return v


def _frac(v, name, zero_ok=True):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 <= v <= 1) or (v == 0 and not zero_ok):
        raise TrainingError(f"{name} must be in [{0 if zero_ok else '(0'}, 1], got {v!r}")
    return v


# ------------------------------------------------------ bytes per parameter
def state_bytes_per_param(zero_stage: int = 0, dp: int = 1) -> dict:
    """Training-state bytes per parameter on one device under ZeRO stage 0-3 over `dp` ranks
    (AdamW mixed precision: bf16 weight 2 + bf16 grad 2 + fp32 master 4 + fp32 m 4 + fp32 v 4).
    Stage 1 shards the 12-byte optimizer state, 2 also the gradients, 3 also the weights."""
    if zero_stage not in (0, 1, 2, 3) or isinstance(zero_stage, bool):
        raise TrainingError(f"zero_stage must be 0, 1, 2 or 3, got {zero_stage!r}")
    _pos_int(dp, "dp")
    bp = formulas.TRAIN_BYTES_PER_PARAM
    opt = bp["master"] + bp["adam_m"] + bp["adam_v"]
    w = bp["weights"] / (dp if zero_stage >= 3 else 1)
    g = bp["grads"] / (dp if zero_stage >= 2 else 1)
    o = opt / (dp if zero_stage >= 1 else 1)
    return {"weights": w, "grads": g, "optimizer": o, "total": w + g + o}


def checkpoint_bytes_per_param() -> int:
    """Bytes per parameter a restartable checkpoint holds: bf16 weights + fp32 master + Adam m, v
    (gradients are recomputed after a restart, so they are not saved): 14."""
    bp = formulas.TRAIN_BYTES_PER_PARAM
    return bp["weights"] + bp["master"] + bp["adam_m"] + bp["adam_v"]


# --------------------------------------------------------------- activations
def activation_bytes_per_layer(seq: int, micro_batch: int, hidden: int, heads: int, tp: int = 1,
                               sequence_parallel: bool = True, recompute: str = "none") -> int:
    """Activation bytes one transformer layer keeps for the backward pass (Korthikanti et al. 2022).

    recompute="none": s b h (34 + 5 a s / h); "selective": the attention-score terms are recomputed
    (FlashAttention does this by construction): 34 s b h; "full": only the layer input, 2 s b h.
    With tensor parallelism t and sequence parallelism every term is divided by t; without
    sequence parallelism the 10 s b h held by norms, dropout and the layer inputs are replicated."""
    for v, nm in ((seq, "seq"), (micro_batch, "micro_batch"), (hidden, "hidden"), (heads, "heads"), (tp, "tp")):
        _pos_int(v, nm)
    if recompute not in _RECOMPUTE:
        raise TrainingError(f"recompute must be one of {', '.join(_RECOMPUTE)}, got {recompute!r}")
    s, b, h, a, t = seq, micro_batch, hidden, heads, tp
    sbh = s * b * h
    scores = KORTHIKANTI_SCORES * a * s * s * b
    if recompute == "full":
        num, den = (2 * sbh, t) if sequence_parallel else (2 * sbh, 1)
    elif sequence_parallel:
        num, den = KORTHIKANTI_SBH * sbh + (scores if recompute == "none" else 0), t
    else:   # sbh (10 + 24/t) + 5 a s^2 b / t
        num = 10 * sbh * t + 24 * sbh + (scores if recompute == "none" else 0)
        den = t
    return -(-num // den)


# ----------------------------------------------------------------- pipelines
def pipeline_bubble_fraction(pp: int, microbatches: int, virtual: int = 1) -> float:
    """Fraction of a GPipe / 1F1B step the pipeline stands idle: (p-1)/(m+p-1); the interleaved
    schedule with v model chunks per device divides the bubble time by v:
    ((p-1)/v) / (m + (p-1)/v)."""
    _pos_int(pp, "pp"), _pos_int(microbatches, "microbatches"), _pos_int(virtual, "virtual")
    bubble = (pp - 1) / virtual
    return bubble / (microbatches + bubble)


def pipeline_bubble_ratio(pp: int, microbatches: int, virtual: int = 1) -> float:
    """Bubble time over ideal compute time, (p-1)/(v m) (the form Narayanan et al. 2021 quote)."""
    _pos_int(pp, "pp"), _pos_int(microbatches, "microbatches"), _pos_int(virtual, "virtual")
    return (pp - 1) / (virtual * microbatches)


def inflight_layers(num_layers: int, pp: int, microbatches: int, virtual: int = 1) -> float:
    """Layer-micro-batches of activations the first pipeline stage holds at its peak under 1F1B:
    min(p, m) micro-batches x L/p layers (= L when m >= p); the interleaved schedule holds
    L (1 + (p-1)/(p v)) (Korthikanti et al. 2022, section 4.2.3)."""
    _pos_int(num_layers, "num_layers"), _pos_int(pp, "pp"), _pos_int(microbatches, "microbatches")
    _pos_int(virtual, "virtual")
    per_stage = -(-num_layers // pp)
    if virtual == 1 or pp == 1:
        return per_stage * min(pp, microbatches)
    return num_layers * (1 + (pp - 1) / (pp * virtual))


# -------------------------------------------------------------------- layout
@dataclass
class Layout:
    """A 4D/5D parallel layout. tp x cp x pp x dp = GPUs; ep (expert parallel) is carved out of
    the dp x cp ranks for the routed experts. global_batch is in sequences of `seq` tokens."""
    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1
    ep: int = 1
    seq: int = 4096
    micro_batch: int = 1
    global_batch: int = 0       # 0: one micro-batch per pipeline slot (m = pp)
    virtual: int = 1
    zero_stage: int = 1
    recompute: str = "selective"
    sequence_parallel: bool = True

    def __post_init__(self):
        for nm in ("tp", "pp", "dp", "cp", "ep", "seq", "micro_batch", "virtual"):
            _pos_int(getattr(self, nm), nm)
        _pos_int(self.global_batch, "global_batch", zero_ok=True)
        if self.zero_stage not in (0, 1, 2, 3):
            raise TrainingError(f"zero_stage must be 0-3, got {self.zero_stage!r}")
        if self.recompute not in _RECOMPUTE:
            raise TrainingError(f"recompute must be one of {', '.join(_RECOMPUTE)}")
        if (self.dp * self.cp) % self.ep:
            raise TrainingError(f"ep={self.ep} must divide dp x cp = {self.dp * self.cp}")
        if self.global_batch == 0:
            self.global_batch = self.dp * self.micro_batch * self.pp
        if self.global_batch % (self.dp * self.micro_batch):
            raise TrainingError(f"global batch {self.global_batch} is not a multiple of dp x micro_batch "
                                f"= {self.dp * self.micro_batch}")
        if self.seq % self.cp:
            raise TrainingError(f"cp={self.cp} must divide seq={self.seq}")

    @property
    def gpus(self) -> int:
        return self.tp * self.cp * self.pp * self.dp

    @property
    def microbatches(self) -> int:
        return self.global_batch // (self.dp * self.micro_batch)

    @property
    def tokens_per_step(self) -> int:
        return self.global_batch * self.seq

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(gpus=self.gpus, microbatches=self.microbatches, tokens_per_step=self.tokens_per_step)
        return d


def _model(m):
    return _models.get(m) if isinstance(m, str) else m


def stage_params(m, layout: Layout) -> dict:
    """Parameters held by one GPU of the first and of the last pipeline stage.

    Layers are split over pp stages, ceil(L/pp) on the first and on the last (the fullest case when
    pp does not divide L); the input embedding sits on the first stage, the output head and final
    norm on the last. Everything is divided by tp (norm weights are
    replicated in practice: ignored, < 0.01%); routed experts are further divided by ep.
    Returns {"first": {"dense": .., "expert": ..}, "last": {...}}."""
    m = _model(m)
    L, pp = m.num_layers, layout.pp
    if pp > L:
        raise TrainingError(f"pp={pp} exceeds the {L} layers of {m.id}")
    per = -(-L // pp)
    out = {}
    for name, idx in (("first", range(0, per)), ("last", range(L - per, L))):
        dense = expert = 0
        for i in idx:
            p = m.layer_params(i)
            if m.is_moe and m.moe_layers[i]:
                routed = m.num_experts * m.expert_params()
                expert += routed
                dense += p - routed
            else:
                dense += p
        if name == "first":
            dense += m.params_embedding
        if name == "last":
            dense += m.params_lm_head + m.hidden_size
        if pp == 1:
            dense += m.params_lm_head + m.hidden_size if name == "first" else m.params_embedding
        out[name] = {"dense": dense / layout.tp, "expert": expert / (layout.tp * layout.ep)}
    return out


def layout_memory(m, layout: Layout, logits_dtype: str = "fp32") -> dict:
    """Bytes per GPU for a training layout: weights, gradients and optimizer state (ZeRO over the
    data-parallel group: dp x cp ranks for dense parameters, dp x cp / ep for routed experts),
    activations (Korthikanti per-layer bytes x the layers in flight on that stage), and on the last
    stage the logits (seq x micro-batch x vocab / tp in `logits_dtype`). Reports the larger stage."""
    m = _model(m)
    lo = layout
    sp = stage_params(m, lo)
    dp_dense = lo.dp * lo.cp
    dp_expert = lo.dp * lo.cp // lo.ep
    per_layer = activation_bytes_per_layer(lo.seq // lo.cp, lo.micro_batch, m.hidden_size, m.num_heads, lo.tp,
                                           lo.sequence_parallel, lo.recompute)
    first_layers = inflight_layers(m.num_layers, lo.pp, lo.microbatches, lo.virtual)
    last_layers = -(-m.num_layers // lo.pp) * (1 if lo.virtual == 1 else 1 + (lo.pp - 1) / (lo.pp * lo.virtual))
    if lo.pp == 1:
        last_layers = first_layers
    logits = formulas.nbytes(-(-(lo.seq // lo.cp) * lo.micro_batch * m.vocab_size // lo.tp), logits_dtype)
    res = {}
    for name, layers in (("first", first_layers), ("last", last_layers)):
        pd, pe = sp[name]["dense"], sp[name]["expert"]
        bd = state_bytes_per_param(lo.zero_stage, dp_dense)
        be = state_bytes_per_param(lo.zero_stage, dp_expert)
        w = pd * bd["weights"] + pe * be["weights"]
        g = pd * bd["grads"] + pe * be["grads"]
        o = pd * bd["optimizer"] + pe * be["optimizer"]
        act = per_layer * layers
        lg = logits if (name == "last" or lo.pp == 1) else 0
        res[name] = {"stage": name, "params": pd + pe, "weights_bytes": w, "grads_bytes": g,
                     "optimizer_bytes": o, "state_bytes": w + g + o, "activation_bytes": act,
                     "activation_per_layer_bytes": per_layer, "layers_in_flight": layers, "logits_bytes": lg,
                     "total_bytes": w + g + o + act + lg}
    worst = max(res.values(), key=lambda r: r["total_bytes"])
    out = dict(worst)
    out.update(model=m.id, layout=lo.to_dict(), first=res["first"], last=res["last"])
    return out


# --------------------------------------------------------------- step time
def ring_allreduce_seconds(nbytes_, ranks: int, bandwidth: float) -> float:
    """Ring all-reduce of `nbytes_` over `ranks`: each rank sends 2 (n-1)/n x bytes over a link of
    `bandwidth` bytes/s (one direction). A reduce-scatter or an all-gather alone is half of it."""
    _pos_int(ranks, "ranks"), _pos(bandwidth, "bandwidth")
    return 2 * (ranks - 1) / ranks * nbytes_ / bandwidth


def dp_comm_bytes(params: float, ranks: int, zero_stage: int = 0, grad_bytes: int = 2) -> float:
    """Bytes each data-parallel rank sends per step: a gradient all-reduce (equivalently a
    reduce-scatter of gradients plus an all-gather of updated weights) moves 2 (n-1)/n x 2 B x
    params; ZeRO-3 gathers the weights again for the backward pass: 3 (n-1)/n x, i.e. 1.5 x."""
    _pos_int(ranks, "ranks")
    if zero_stage not in (0, 1, 2, 3):
        raise TrainingError(f"zero_stage must be 0-3, got {zero_stage!r}")
    factor = 3 if zero_stage == 3 else 2
    return factor * (ranks - 1) / ranks * params * grad_bytes


def step_time(m, hw, layout: Layout, compute_eff: float = 1.0, nic_bandwidth: float = NIC_400G,
              tp_bandwidth=None, tp_overlap: float = 0.0, dp_overlap: float = 1.0,
              precision: str = "bf16", attention: bool = True) -> dict:
    """Time of one training step and its MFU.

    compute: hardware FLOPs (6ND, plus the causal attention FLOPs when `attention`, plus 2ND more
    with full recompute) / (GPUs x peak x compute_eff),
    split into m micro-batches per pipeline; each micro-batch slot also pays the exposed part of its
    tensor-parallel collectives (4 all-reduce equivalents of the s/cp x b x h bf16 activation per
    layer, 6 with full recompute, over tp_bandwidth, default the device's one-way scale-up link) and
    the pipeline send/receive of its activation (forward + backward, over the NIC). The step is
    slot x (m + (p-1)/v) plus the exposed part of the data-parallel gradient traffic (over the NIC;
    dp_overlap = the fraction hidden behind the backward pass). MFU counts only 6ND."""
    m = _model(m)
    hw = _hw.get(hw)
    lo = layout
    _frac(compute_eff, "compute_eff", zero_ok=False), _frac(tp_overlap, "tp_overlap"), _frac(dp_overlap, "dp_overlap")
    _pos(nic_bandwidth, "nic_bandwidth")
    tp_bw = hw.link_unidirectional if tp_bandwidth is None else _pos(tp_bandwidth, "tp_bandwidth")
    peak = hw.peak_flops(precision)
    n = m.params_active
    T = lo.tokens_per_step
    model_flops = formulas.train_flops(n, T)
    attn_flops = attention_train_flops(m, lo.seq, lo.global_batch) if attention else 0
    hw_flops = model_flops + attn_flops + (model_flops // 3 if lo.recompute == "full" else 0)
    compute_s = hw_flops / (lo.gpus * peak * compute_eff)
    mb = lo.microbatches
    slot_compute = compute_s / mb
    act_bytes = formulas.nbytes((lo.seq // lo.cp) * lo.micro_batch * m.hidden_size, "bf16")
    layers_per_stage = -(-m.num_layers // lo.pp)
    n_ar = 6 if lo.recompute == "full" else 4
    tp_s = 0.0
    if lo.tp > 1:
        tp_s = n_ar * layers_per_stage * ring_allreduce_seconds(act_bytes, lo.tp, tp_bw)
    tp_exposed = (1 - tp_overlap) * tp_s
    p2p_s = 2 * (act_bytes / (lo.tp if lo.sequence_parallel else 1)) / nic_bandwidth if lo.pp > 1 else 0.0
    slot = slot_compute + tp_exposed + p2p_s
    bubble_slots = (lo.pp - 1) / lo.virtual
    pipeline_s = slot * (mb + bubble_slots)
    sp = stage_params(m, lo)
    grads_params = sp["first"]["dense"] + sp["first"]["expert"]
    dp_ranks = lo.dp * lo.cp
    dp_s = dp_comm_bytes(grads_params, dp_ranks, lo.zero_stage) / nic_bandwidth if dp_ranks > 1 else 0.0
    dp_exposed = (1 - dp_overlap) * dp_s
    step = pipeline_s + dp_exposed
    return {"model": m.id, "hardware": hw.id, "precision": precision, "layout": lo.to_dict(),
            "compute_eff": compute_eff, "model_flops": model_flops, "attention_flops": attn_flops,
            "hardware_flops": hw_flops,
            "compute_s": compute_s, "slot_compute_s": slot_compute, "tp_comm_s": tp_s * mb,
            "tp_exposed_s": tp_exposed * mb, "p2p_s": p2p_s * mb, "slot_s": slot,
            "bubble_s": slot * bubble_slots, "bubble_fraction": pipeline_bubble_fraction(lo.pp, mb, lo.virtual),
            "dp_comm_s": dp_s, "dp_exposed_s": dp_exposed, "step_s": step,
            "tokens_per_s": T / step, "mfu": mfu(model_flops, step, lo.gpus, peak),
            "hfu": hw_flops / (step * lo.gpus * peak)}


def attention_train_flops(m, seq: int, sequences: int = 1) -> int:
    """FLOPs of causal attention (QK^T and PV) in training that 6ND leaves out: forward
    2 x heads x (d_qk + d_v) x seq(seq+1)/2 per layer per sequence, times 3 for forward + backward."""
    m = _model(m)
    _pos_int(seq, "seq"), _pos_int(sequences, "sequences")
    dqk = m.q_head_dim
    dv = m.attn_v_head_dim
    fwd = 2 * m.num_heads * (dqk + dv) * formulas.attention_key_sum(seq) * m.num_layers
    return 3 * fwd * sequences


def mfu(model_flops: float, seconds: float, gpus: int, peak_flops: float) -> float:
    """Model FLOPs utilization: the 6ND FLOPs a step must do / (time x GPUs x dense peak)."""
    _pos(seconds, "seconds"), _pos_int(gpus, "gpus"), _pos(peak_flops, "peak_flops")
    return model_flops / (seconds * gpus * peak_flops)


def mfu_from_throughput(params_active: int, tokens_per_s: float, gpus: int, peak_flops: float) -> float:
    """MFU from a measured training throughput: 6 N x tokens/s / (GPUs x peak)."""
    return mfu(formulas.train_flops(params_active, tokens_per_s), 1.0, gpus, peak_flops)


# --------------------------------------------------------------- checkpoints
def checkpoint_bytes(m) -> int:
    """Bytes of a restartable checkpoint: every parameter x 14 B (weights + fp32 master + Adam m, v)."""
    m = _model(m)
    return m.params_total * checkpoint_bytes_per_param()


def checkpoint_write_seconds(nbytes_: float, bandwidth: float) -> float:
    """Time to write a checkpoint at an aggregate storage bandwidth (bytes/s)."""
    return nbytes_ / _pos(bandwidth, "bandwidth")


def mtbf_seconds(duration_s: float, failures: int) -> float:
    """Mean time between failures of the whole job: observed duration / failures."""
    _pos(duration_s, "duration_s"), _pos_int(failures, "failures")
    return duration_s / failures


def young_interval(checkpoint_s: float, mtbf_s: float) -> float:
    """Young (1974): the compute time between checkpoints that minimizes lost time,
    sqrt(2 x checkpoint cost x MTBF)."""
    return math.sqrt(2 * _pos(checkpoint_s, "checkpoint_s") * _pos(mtbf_s, "mtbf_s"))


def daly_interval(checkpoint_s: float, mtbf_s: float) -> float:
    """Daly (2006) higher-order estimate: sqrt(2 d M) [1 + (1/3) sqrt(d/2M) + (1/9)(d/2M)] - d
    for d < 2M, else M."""
    d, M = _pos(checkpoint_s, "checkpoint_s"), _pos(mtbf_s, "mtbf_s")
    if d >= 2 * M:
        return M
    r = d / (2 * M)
    return math.sqrt(2 * d * M) * (1 + math.sqrt(r) / 3 + r / 9) - d


def checkpoint_waste(interval_s: float, checkpoint_s: float, mtbf_s: float, restart_s: float = 0.0) -> dict:
    """First-order fraction of wall time lost: writing (d / tau) plus, per failure (rate 1/M),
    half an interval of recomputed work and the restart time ((tau/2 + R) / M)."""
    tau, d, M = _pos(interval_s, "interval_s"), _pos(checkpoint_s, "checkpoint_s"), _pos(mtbf_s, "mtbf_s")
    if restart_s < 0:
        raise TrainingError(f"restart_s must be >= 0, got {restart_s!r}")
    write = d / tau
    rework = (tau / 2) / M
    restart = restart_s / M
    return {"write": write, "rework": rework, "restart": restart, "total": write + rework + restart}


def expected_lost_work(interval_s: float, restart_s: float = 0.0) -> float:
    """Expected wall time one failure costs: half an interval of work redone plus the restart."""
    return _pos(interval_s, "interval_s") / 2 + restart_s


def weight_sync_seconds(params: int, bandwidth: float, dtype: str = "bf16", shards: int = 1) -> float:
    """Time to push a policy's weights from learner to a rollout engine: bytes / bandwidth, where
    each of `shards` receivers (a tensor-parallel rollout group) takes 1/shards of the weights on
    its own link of `bandwidth` bytes/s."""
    _pos_int(shards, "shards")
    return formulas.nbytes(params, dtype) / shards / _pos(bandwidth, "bandwidth")


# ===================================================================== CLI
def _cli_model(args):
    if getattr(args, "config", None):
        return _models.load_config(args.config)
    if not getattr(args, "model", None):
        raise TrainingError("give --model ID (see `calc.py models`) or --config PATH to a config.json")
    return _models.get(args.model)


def _cli_hw(args):
    if getattr(args, "hardware_config", None):
        return _hw.load(args.hardware_config)
    if getattr(args, "hardware", None):
        return _hw.get(args.hardware)
    raise TrainingError("give --hardware ID (see `calc.py hardware`) or --hardware-config PATH")


def cmd_layout(args):
    from . import tables
    m = _cli_model(args)
    hw = _cli_hw(args)
    lo = Layout(tp=args.tp, pp=args.pp, dp=args.dp, cp=args.cp, ep=args.ep, seq=args.seq,
                micro_batch=args.micro_batch, global_batch=args.global_batch, virtual=args.virtual,
                zero_stage=args.zero, recompute=args.recompute)
    mem = layout_memory(m, lo)
    st = step_time(m, hw, lo, compute_eff=args.compute_eff, nic_bandwidth=args.nic_gb_s * 1e9,
                   tp_overlap=args.tp_overlap, dp_overlap=args.dp_overlap)
    if args.format == "json":
        return tables.dumps({"memory": mem, "step": st})
    items = [("gpus", "GPUs (tp x cp x pp x dp)", lo.gpus, "int"),
             ("microbatches", "micro-batches per step", lo.microbatches, "int"),
             ("tokens_per_step", "tokens per step", lo.tokens_per_step, "int"),
             ("stage", "fullest pipeline stage", mem["stage"], "str"),
             ("params", "parameters on that GPU", int(mem["params"]), "si"),
             ("weights_bytes", "weights", int(mem["weights_bytes"]), "bytes"),
             ("grads_bytes", "gradients", int(mem["grads_bytes"]), "bytes"),
             ("optimizer_bytes", f"optimizer (ZeRO-{lo.zero_stage})", int(mem["optimizer_bytes"]), "bytes"),
             ("activation_bytes", f"activations ({lo.recompute} recompute)", int(mem["activation_bytes"]), "bytes"),
             ("logits_bytes", "logits (fp32)", int(mem["logits_bytes"]), "bytes"),
             ("total_bytes", "total per GPU", int(mem["total_bytes"]), "bytes"),
             ("fits", f"fits {hw.id}", mem["total_bytes"] <= hw.hbm_bytes, "str"),
             ("compute_s", "compute (all micro-batches)", st["compute_s"], "sec"),
             ("tp_exposed_s", "exposed tensor-parallel comm", st["tp_exposed_s"], "sec"),
             ("p2p_s", "pipeline send/receive", st["p2p_s"], "sec"),
             ("bubble_s", "pipeline bubble", st["bubble_s"], "sec"),
             ("bubble_fraction", "bubble fraction", st["bubble_fraction"], "float"),
             ("dp_comm_s", "data-parallel comm (total)", st["dp_comm_s"], "sec"),
             ("dp_exposed_s", "data-parallel comm (exposed)", st["dp_exposed_s"], "sec"),
             ("step_s", "step time", st["step_s"], "sec"),
             ("tokens_per_s", "tokens/s", st["tokens_per_s"], "si"),
             ("mfu", "MFU (6ND)", st["mfu"], "float")]
    return tables.render_kv(items, args.format,
                            title=f"{m.id} on {lo.gpus} x {hw.id}: TP {lo.tp}, CP {lo.cp}, PP {lo.pp}, DP {lo.dp}, EP {lo.ep}")


def cmd_bubble(args):
    from . import tables
    rows = []
    for p in args.pp:
        for mb in args.microbatches:
            for v in args.virtual:
                rows.append({"pp": p, "microbatches": mb, "virtual": v,
                             "bubble_fraction": pipeline_bubble_fraction(p, mb, v),
                             "bubble_ratio": pipeline_bubble_ratio(p, mb, v)})
    cols = [("pp", "pp", "int"), ("microbatches", "micro-batches m", "int"), ("virtual", "virtual v", "int"),
            ("bubble_fraction", "bubble / step", "float"), ("bubble_ratio", "bubble / compute", "float")]
    return tables.render(rows, cols, args.format)


def cmd_checkpoint(args):
    from . import tables
    m = _cli_model(args)
    size = checkpoint_bytes(m)
    write = checkpoint_write_seconds(size, args.bandwidth_gb_s * 1e9)
    if args.mtbf_hours:
        mtbf = args.mtbf_hours * 3600
    else:
        run = LLAMA3_405B_RUN
        mtbf = mtbf_seconds(run["days"] * 86400, run["unexpected"]) * run["gpus"] / args.gpus
    tau = young_interval(write, mtbf)
    waste = checkpoint_waste(tau, write, mtbf, args.restart_min * 60)
    out = {"model": m.id, "checkpoint_bytes": size, "bandwidth_bytes_s": args.bandwidth_gb_s * 1e9,
           "write_s": write, "gpus": args.gpus, "mtbf_s": mtbf, "young_interval_s": tau,
           "daly_interval_s": daly_interval(write, mtbf), "restart_s": args.restart_min * 60,
           "lost_per_failure_s": expected_lost_work(tau, args.restart_min * 60),
           "waste_write": waste["write"], "waste_rework": waste["rework"], "waste_restart": waste["restart"],
           "waste_total": waste["total"]}
    if args.format == "json":
        return tables.dumps(out)
    items = [("checkpoint_bytes", "checkpoint (14 B/param)", size, "bytes"),
             ("write_s", "write time", write, "sec"),
             ("mtbf_s", f"job MTBF on {args.gpus:,} GPUs", mtbf, "sec"),
             ("young_interval_s", "Young interval sqrt(2 d M)", tau, "sec"),
             ("daly_interval_s", "Daly interval", out["daly_interval_s"], "sec"),
             ("lost_per_failure_s", "expected loss per failure", out["lost_per_failure_s"], "sec"),
             ("waste_total", "fraction of time lost", waste["total"], "float")]
    return tables.render_kv(items, args.format, raw=out, title=f"{m.id} checkpoint interval")


def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
    from calculations import cliargs
    import argparse

    pint = cliargs.positive

    nint = cliargs.nonneg

    pos = cliargs.positive_number

    frac = cliargs.probability


    s = sub.add_parser("layout", help="training layout (TP/CP/PP/DP/EP): memory per GPU, step time, bubble, MFU")
    common(s, model=True, hw=True, hw_required=True)
    for nm in ("tp", "pp", "dp", "cp", "ep"):
        s.add_argument(f"--{nm}", type=pint, default=1, help=f"{nm.upper()} degree (default 1)")
    s.add_argument("--seq", type=pint, default=8192, help="sequence length (tokens)")
    s.add_argument("--micro-batch", type=pint, default=1, help="sequences per micro-batch")
    s.add_argument("--global-batch", type=nint, default=0, help="sequences per step (default dp x micro-batch x pp)")
    s.add_argument("--virtual", type=pint, default=1, help="interleaved model chunks per GPU")
    s.add_argument("--zero", type=int, choices=(0, 1, 2, 3), default=1, help="ZeRO stage over the DP group")
    s.add_argument("--recompute", choices=_RECOMPUTE, default="selective")
    s.add_argument("--compute-eff", type=frac, default=1.0, help="achieved fraction of the dense peak")
    s.add_argument("--nic-gb-s", type=pos, default=NIC_400G / 1e9, help="scale-out bandwidth per GPU, GB/s")
    s.add_argument("--tp-overlap", type=frac, default=0.0, help="fraction of TP comm hidden by compute")
    s.add_argument("--dp-overlap", type=frac, default=1.0, help="fraction of DP comm hidden by backward")
    s.set_defaults(func=cmd_layout)

    s = sub.add_parser("bubble", help="pipeline bubble fraction for p stages, m micro-batches, v chunks")
    common(s, model=False)
    s.add_argument("--pp", type=pint, nargs="+", default=[4])
    s.add_argument("--microbatches", "-m", type=pint, nargs="+", default=[16])
    s.add_argument("--virtual", type=pint, nargs="+", default=[1])
    s.set_defaults(func=cmd_bubble)

    s = sub.add_parser("checkpoint", help="checkpoint size, write time, Young/Daly interval, time lost")
    common(s, model=True)
    s.add_argument("--bandwidth-gb-s", type=pos, default=LLAMA3_405B_RUN["storage_sustained_bytes_s"] / 1e9,
                   help="aggregate storage write bandwidth, GB/s (default 2000, Llama 3)")
    s.add_argument("--gpus", type=pint, default=LLAMA3_405B_RUN["gpus"],
                   help="GPUs; MTBF scales as 1/GPUs from the Llama 3 run (419 failures in 54 days on 16,384)")
    s.add_argument("--mtbf-hours", type=pos, default=None, help="job MTBF in hours (overrides --gpus scaling)")
    s.add_argument("--restart-min", type=float, default=0.0, help="minutes to restart after a failure")
    s.set_defaults(func=cmd_checkpoint)
