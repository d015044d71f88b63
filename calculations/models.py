"""Model registry: Hugging Face ``config.json`` -> :class:`ModelSpec`.

``get(id)`` returns a registered model, ``load_config(path)`` parses any
supported ``config.json``, ``all()`` lists the registry. Configs are parsed
lazily (only the ones asked for). Parameter counts are exact integers computed
from the architecture; see ``calculations/README.md`` for the definitions.
"""
from __future__ import annotations

import builtins
import json
import os
from dataclasses import dataclass, field
from typing import Optional, Tuple

from .errors import CalcError

__all__ = [
    "ModelSpec", "ModelError", "UnsupportedArchitecture", "UnknownModel",
    "get", "all", "ids", "load_config", "parse_config", "official",
    "registry_entry", "official_comparison", "compare_figure", "SUPPORTED_MODEL_TYPES", "DATA_DIR",
]

_builtin_all = builtins.all
DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
CONFIG_DIR = os.path.join(DATA_DIR, "configs")


class ModelError(CalcError):
    """A user-facing problem with a model name or config (no traceback)."""


class UnknownModel(ModelError):
    pass


class UnsupportedArchitecture(ModelError):
    pass


@dataclass(frozen=True)
class ModelSpec:
    """A decoder-only transformer in the project's own schema.

    Layer-indexed facts are tuples with one entry per layer:
    ``layer_types`` ("full_attention" or "sliding_attention") and
    ``moe_layers`` (True where the MLP is a routed mixture of experts).
    """
    id: str
    name: str
    model_type: str
    architecture: str
    source: str                      # official HF repository URL, or the config path
    num_layers: int
    hidden_size: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    head_dim_from_config: bool       # False: derived as hidden_size // num_heads
    intermediate_size: int           # dense MLP width (dense layers)
    vocab_size: int
    tie_embeddings: bool
    max_position: int = 0
    # attention details
    qkv_bias: bool = False
    o_bias: bool = False
    qk_norm: bool = False            # per-head RMSNorm on q and k (Qwen3)
    attention_sinks: bool = False    # gpt-oss learned per-head sink logits
    mlp_bias: bool = False
    # mixture of experts
    num_experts: int = 0
    experts_per_token: int = 0
    num_shared_experts: int = 0
    moe_intermediate_size: int = 0
    shared_expert_intermediate_size: int = 0   # total width of the shared expert MLP
    router_bias: bool = False
    expert_bias: bool = False
    moe_layers: Tuple[bool, ...] = ()
    # multi-head latent attention (DeepSeek-V3, Kimi-K2)
    q_lora_rank: Optional[int] = None
    kv_lora_rank: Optional[int] = None
    qk_nope_head_dim: Optional[int] = None
    qk_rope_head_dim: Optional[int] = None
    v_head_dim: Optional[int] = None
    # sliding window attention
    sliding_window: Optional[int] = None
    layer_types: Tuple[str, ...] = ()
    # extra modules not part of the main forward pass
    mtp_layers: int = 0              # DeepSeek multi-token-prediction modules
    notes: Tuple[str, ...] = field(default=(), compare=False)

    # ------------------------------------------------------------ structure
    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0 and any(self.moe_layers)

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    @property
    def num_moe_layers(self) -> int:
        return sum(1 for x in self.moe_layers if x)

    @property
    def num_dense_layers(self) -> int:
        return self.num_layers - self.num_moe_layers

    @property
    def num_sliding_layers(self) -> int:
        return sum(1 for t in self.layer_types if t == "sliding_attention")

    @property
    def q_head_dim(self) -> int:
        """Query/key width per head used in QK^T."""
        if self.is_mla:
            return self.qk_nope_head_dim + self.qk_rope_head_dim
        return self.head_dim

    @property
    def attn_v_head_dim(self) -> int:
        return self.v_head_dim if self.is_mla else self.head_dim

    @property
    def rope_dim(self) -> int:
        """Rotated dimensions per head (MLA rotates only qk_rope_head_dim)."""
        return self.qk_rope_head_dim if self.is_mla else self.head_dim

    def layer_window(self, i: int) -> Optional[int]:
        """Attention window of layer i (None = full causal attention)."""
        if self.layer_types and self.layer_types[i] == "sliding_attention":
            return self.sliding_window
        return None

    # ------------------------------------------------------ parameter counts
    def attention_params(self) -> int:
        """Parameters of one attention block (projections, biases, q/k norms, sinks)."""
        H, nh, kv = self.hidden_size, self.num_heads, self.num_kv_heads
        if self.is_mla:
            qhd = self.q_head_dim
            if self.q_lora_rank:
                q = H * self.q_lora_rank + self.q_lora_rank + self.q_lora_rank * nh * qhd
            else:
                q = H * nh * qhd
            kv_a = H * (self.kv_lora_rank + self.qk_rope_head_dim) + self.kv_lora_rank
            kv_b = self.kv_lora_rank * nh * (self.qk_nope_head_dim + self.v_head_dim)
            o = nh * self.v_head_dim * H
            return q + kv_a + kv_b + o
        hd = self.head_dim
        p = H * nh * hd + 2 * H * kv * hd + nh * hd * H
        if self.qkv_bias:
            p += nh * hd + 2 * kv * hd
        if self.o_bias:
            p += H
        if self.qk_norm:
            p += 2 * hd
        if self.attention_sinks:
            p += nh
        return p

    def dense_mlp_params(self) -> int:
        H, I = self.hidden_size, self.intermediate_size
        return 3 * H * I + ((2 * I + H) if self.mlp_bias else 0)

    def expert_params(self) -> int:
        """One routed expert (gated MLP of width moe_intermediate_size)."""
        H, I = self.hidden_size, self.moe_intermediate_size
        return 3 * H * I + ((2 * I + H) if self.expert_bias else 0)

    def router_params(self) -> int:
        return self.num_experts * self.hidden_size + (self.num_experts if self.router_bias else 0)

    def shared_expert_params(self) -> int:
        return 3 * self.hidden_size * self.shared_expert_intermediate_size if self.num_shared_experts else 0

    def moe_layer_params(self, active: bool = False) -> int:
        n = self.experts_per_token if active else self.num_experts
        return self.router_params() + n * self.expert_params() + self.shared_expert_params()

    def layer_params(self, i: int, active: bool = False) -> int:
        mlp = self.moe_layer_params(active) if self.moe_layers[i] else self.dense_mlp_params()
        return self.attention_params() + 2 * self.hidden_size + mlp

    @property
    def params_embedding(self) -> int:
        """Input embedding table (V x H)."""
        return self.vocab_size * self.hidden_size

    @property
    def params_lm_head(self) -> int:
        """Separate output head; 0 when tied to the input embedding."""
        return 0 if self.tie_embeddings else self.vocab_size * self.hidden_size

    def _body(self, active: bool) -> int:
        """All layers + final norm (O(1): layers differ only in dense vs MoE MLP)."""
        common = self.attention_params() + 2 * self.hidden_size
        n_moe = self.num_moe_layers
        body = self.num_layers * common + (self.num_layers - n_moe) * self.dense_mlp_params()
        if n_moe:
            body += n_moe * self.moe_layer_params(active)
        return body + self.hidden_size

    @property
    def params_total(self) -> int:
        """Every parameter of the main model (MTP modules excluded, see params_mtp)."""
        return self._body(False) + self.params_embedding + self.params_lm_head

    @property
    def params_active(self) -> int:
        """Parameters used per token: top-k + shared experts, embedding and head included."""
        return self._body(True) + self.params_embedding + self.params_lm_head

    @property
    def params_active_no_embedding(self) -> int:
        """params_active minus the input-embedding lookup. The output head stays
        (for tied models the shared matrix stays: it is still the lm_head matmul).
        This is the count whose 2x gives the matmul FLOPs per generated token."""
        if self.tie_embeddings:
            return self.params_active
        return self.params_active - self.params_embedding

    @property
    def params_non_embedding(self) -> int:
        """Total minus input embedding and output head (Kaplan / Qwen model-card
        'non-embedding' definition)."""
        return self._body(False)

    @property
    def params_active_non_embedding(self) -> int:
        return self._body(True)

    @property
    def params_mtp(self) -> int:
        """DeepSeek multi-token-prediction modules (embedding and head shared,
        so not counted): per module enorm + hnorm + eh_proj + one MoE layer +
        shared-head norm."""
        if not self.mtp_layers:
            return 0
        H = self.hidden_size
        layer = self.attention_params() + 2 * H + (self.moe_layer_params() if self.num_experts else self.dense_mlp_params())
        return self.mtp_layers * (3 * H + 2 * H * H + layer)

    def param_breakdown(self) -> dict:
        H = self.hidden_size
        L = self.num_layers
        return {
            "embedding": self.params_embedding,
            "lm_head": self.params_lm_head,
            "attention": L * self.attention_params(),
            "norms": L * 2 * H + H,
            "dense_mlp": self.num_dense_layers * self.dense_mlp_params(),
            "router": self.num_moe_layers * self.router_params(),
            "routed_experts": self.num_moe_layers * self.num_experts * self.expert_params(),
            "routed_experts_active": self.num_moe_layers * self.experts_per_token * self.expert_params(),
            "shared_experts": self.num_moe_layers * self.shared_expert_params(),
            "mtp": self.params_mtp,
        }

    def kv_elements_per_token_layer(self) -> int:
        """Values cached per token per layer: 2 x kv_heads x head_dim (K and V),
        or the MLA latent kv_lora_rank + qk_rope_head_dim."""
        if self.is_mla:
            return self.kv_lora_rank + self.qk_rope_head_dim
        return 2 * self.num_kv_heads * self.head_dim

    def summary(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "model_type": self.model_type,
            "params_total": self.params_total,
            "params_active": self.params_active,
            "params_active_no_embedding": self.params_active_no_embedding,
            "params_non_embedding": self.params_non_embedding,
            "params_embedding": self.params_embedding,
            "kv_bytes_per_token": self.num_layers * self.kv_elements_per_token_layer() * 2,  # bf16
            "num_layers": self.num_layers,
            "hidden_size": self.hidden_size,
            "num_heads": self.num_heads,
            "num_kv_heads": self.num_kv_heads,
            "head_dim": self.head_dim,
            "attention": ("MLA" if self.is_mla else ("GQA" if self.num_kv_heads < self.num_heads else "MHA"))
            + ("+SWA" if self.num_sliding_layers else ""),
            "experts": f"{self.experts_per_token}/{self.num_experts}" + (f"+{self.num_shared_experts}s" if self.num_shared_experts else "") if self.is_moe else "",
            "tied": self.tie_embeddings,
            "source": self.source,
        }


# ---------------------------------------------------------------- parsing
SUPPORTED_MODEL_TYPES = (
    "llama", "mistral", "qwen2", "qwen3", "qwen3_moe", "qwen2_moe", "mixtral",
    "deepseek_v3", "kimi_k2", "gpt_oss",
)
_ARCH_TO_TYPE = {
    "LlamaForCausalLM": "llama", "MistralForCausalLM": "mistral",
    "Qwen2ForCausalLM": "qwen2", "Qwen3ForCausalLM": "qwen3",
    "Qwen3MoeForCausalLM": "qwen3_moe", "Qwen2MoeForCausalLM": "qwen2_moe",
    "MixtralForCausalLM": "mixtral", "DeepseekV3ForCausalLM": "deepseek_v3",
    "GptOssForCausalLM": "gpt_oss",
}


def _req(cfg: dict, key: str, where: str):
    if key not in cfg or cfg[key] is None:
        raise ModelError(f"{where}: config.json has no '{key}' (required for model_type {cfg.get('model_type')!r})")
    v = cfg[key]
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise ModelError(f"{where}: '{key}' must be a positive integer, got {v!r}")
    return v


def parse_config(cfg: dict, id: str = "custom", name: Optional[str] = None, source: str = "") -> ModelSpec:
    """Build a ModelSpec from a parsed Hugging Face config.json dict.

    Dispatches on ``model_type`` (or ``architectures[0]``); unknown
    architectures raise :class:`UnsupportedArchitecture`, never a guess.
    """
    where = source or id
    if not isinstance(cfg, dict):
        raise ModelError(f"{where}: config.json must be a JSON object")
    if "text_config" in cfg and "hidden_size" not in cfg:
        raise UnsupportedArchitecture(f"{where}: multimodal config (text_config) is not supported; pass the text model's config")
    mt = cfg.get("model_type")
    archs = cfg.get("architectures") or []
    arch = archs[0] if archs else ""
    if mt not in SUPPORTED_MODEL_TYPES:
        mapped = _ARCH_TO_TYPE.get(arch)
        if mt is None and mapped:
            mt = mapped
        else:
            raise UnsupportedArchitecture(
                f"{where}: unsupported architecture (model_type={mt!r}, architectures={archs!r}); "
                f"supported model_type values: {', '.join(SUPPORTED_MODEL_TYPES)}")
    if arch and arch in _ARCH_TO_TYPE and _ARCH_TO_TYPE[arch] != mt and not (mt == "kimi_k2" and arch == "DeepseekV3ForCausalLM"):
        raise UnsupportedArchitecture(f"{where}: model_type {mt!r} does not match architectures {archs!r}")

    L = _req(cfg, "num_hidden_layers", where)
    H = _req(cfg, "hidden_size", where)
    nh = _req(cfg, "num_attention_heads", where)
    kv = cfg.get("num_key_value_heads") or nh
    V = _req(cfg, "vocab_size", where)
    hd_cfg = cfg.get("head_dim")
    head_dim = hd_cfg if hd_cfg else H // nh
    if not hd_cfg and H % nh:
        raise ModelError(f"{where}: no head_dim and hidden_size {H} is not divisible by num_attention_heads {nh}")
    if nh % kv:
        raise ModelError(f"{where}: num_attention_heads {nh} is not a multiple of num_key_value_heads {kv}")
    kw = dict(
        id=id, name=name or id, model_type=mt, architecture=arch or mt, source=source,
        num_layers=L, hidden_size=H, num_heads=nh, num_kv_heads=kv, head_dim=head_dim,
        head_dim_from_config=bool(hd_cfg), intermediate_size=cfg.get("intermediate_size") or 0,
        vocab_size=V, tie_embeddings=bool(cfg.get("tie_word_embeddings", False)),
        max_position=cfg.get("max_position_embeddings") or 0,
    )
    moe = [False] * L
    types = ["full_attention"] * L
    sw = cfg.get("sliding_window")

    if mt in ("llama", "mistral", "qwen2", "qwen3"):
        _req(cfg, "intermediate_size", where)
        ab = bool(cfg.get("attention_bias", False))
        kw.update(qkv_bias=ab or mt == "qwen2", o_bias=ab if mt in ("llama", "mistral") else False,
                  qk_norm=(mt == "qwen3"), mlp_bias=bool(cfg.get("mlp_bias", False)))
        if mt == "mistral" and sw:
            types = ["sliding_attention"] * L
        if mt in ("qwen2", "qwen3") and cfg.get("use_sliding_window") and sw:
            mwl = cfg.get("max_window_layers", L)
            types = ["sliding_attention" if i >= mwl else "full_attention" for i in range(L)]
    elif mt in ("qwen3_moe", "qwen2_moe"):
        E = _req(cfg, "num_experts", where)
        step = cfg.get("decoder_sparse_step", 1) or 1
        only = set(cfg.get("mlp_only_layers") or [])
        moe = [(i not in only) and (i + 1) % step == 0 for i in range(L)]
        kw.update(qk_norm=(mt == "qwen3_moe"), qkv_bias=bool(cfg.get("attention_bias", False)) or mt == "qwen2_moe",
                  num_experts=E, experts_per_token=_req(cfg, "num_experts_per_tok", where),
                  moe_intermediate_size=_req(cfg, "moe_intermediate_size", where))
        if mt == "qwen2_moe":
            raise UnsupportedArchitecture(f"{where}: qwen2_moe (sigmoid-gated shared expert) is not modelled yet")
        if cfg.get("use_sliding_window") and sw:
            mwl = cfg.get("max_window_layers", L)
            types = ["sliding_attention" if i >= mwl else "full_attention" for i in range(L)]
    elif mt == "mixtral":
        _req(cfg, "intermediate_size", where)
        I = cfg["intermediate_size"]
        moe = [True] * L
        kw.update(num_experts=_req(cfg, "num_local_experts", where),
                  experts_per_token=_req(cfg, "num_experts_per_tok", where), moe_intermediate_size=I)
        if sw:
            types = ["sliding_attention"] * L
    elif mt in ("deepseek_v3", "kimi_k2"):
        fk = cfg.get("first_k_dense_replace", 0) or 0
        freq = cfg.get("moe_layer_freq", 1) or 1
        E = _req(cfg, "n_routed_experts", where)
        moe = [i >= fk and i % freq == 0 for i in range(L)]
        ns = cfg.get("n_shared_experts") or 0
        Im = _req(cfg, "moe_intermediate_size", where)
        kw.update(num_experts=E, experts_per_token=_req(cfg, "num_experts_per_tok", where),
                  num_shared_experts=ns, moe_intermediate_size=Im, shared_expert_intermediate_size=Im * ns,
                  router_bias=(cfg.get("topk_method") == "noaux_tc"),
                  q_lora_rank=cfg.get("q_lora_rank"), kv_lora_rank=_req(cfg, "kv_lora_rank", where),
                  qk_nope_head_dim=_req(cfg, "qk_nope_head_dim", where),
                  qk_rope_head_dim=_req(cfg, "qk_rope_head_dim", where),
                  v_head_dim=_req(cfg, "v_head_dim", where),
                  mtp_layers=cfg.get("num_nextn_predict_layers", 0) or 0)
        kw["head_dim"] = kw["qk_nope_head_dim"] + kw["qk_rope_head_dim"]
        kw["head_dim_from_config"] = False
        kw["notes"] = ("MLA: head_dim is qk_nope_head_dim + qk_rope_head_dim; KV cache holds the "
                       "kv_lora_rank + qk_rope_head_dim latent per layer",)
    elif mt == "gpt_oss":
        moe = [True] * L
        ab = bool(cfg.get("attention_bias", False))
        kw.update(qkv_bias=ab, o_bias=ab, attention_sinks=True,
                  num_experts=_req(cfg, "num_local_experts", where),
                  experts_per_token=cfg.get("num_experts_per_tok") or _req(cfg, "experts_per_token", where),
                  moe_intermediate_size=_req(cfg, "intermediate_size", where),
                  router_bias=True, expert_bias=True)
        lt = cfg.get("layer_types")
        if lt:
            types = list(lt)
        elif sw:
            types = ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(L)]
    if len(types) != L:
        raise ModelError(f"{where}: layer_types has {len(types)} entries for {L} layers")
    bad = set(types) - {"full_attention", "sliding_attention"}
    if bad:
        raise UnsupportedArchitecture(f"{where}: unsupported layer_types {sorted(bad)}")
    if "sliding_attention" in types and not sw:
        raise ModelError(f"{where}: sliding_attention layers but no sliding_window")
    kw.update(moe_layers=tuple(moe), layer_types=tuple(types),
              sliding_window=sw if "sliding_attention" in types else None)
    if any(moe) and not kw.get("num_experts"):
        raise ModelError(f"{where}: MoE layers without experts")
    if not _builtin_all(moe) and not kw["intermediate_size"]:
        raise ModelError(f"{where}: dense layers need intermediate_size")
    return ModelSpec(**kw)


def load_config(path: str, id: Optional[str] = None) -> ModelSpec:
    """Parse a user's Hugging Face config.json (a file, or a directory holding one)."""
    if os.path.isdir(path):
        path = os.path.join(path, "config.json")
    try:
        with open(path, encoding="utf-8") as f:
            cfg = json.load(f)
    except FileNotFoundError:
        raise ModelError(f"config file not found: {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ModelError(f"{path}: not valid JSON ({e})") from None
    except OSError as e:
        raise ModelError(f"{path}: cannot read ({e.strerror})") from None
    base = os.path.splitext(os.path.basename(path))[0]
    if base == "config":
        base = os.path.basename(os.path.dirname(os.path.abspath(path))) or "custom"
    return parse_config(cfg, id=id or base, name=id or base, source=os.path.abspath(path))


# --------------------------------------------------------------- registry
_REGISTRY = None
_CACHE: dict = {}


def _registry() -> list:
    global _REGISTRY
    if _REGISTRY is None:
        with open(os.path.join(DATA_DIR, "models.json"), encoding="utf-8") as f:
            _REGISTRY = json.load(f)["models"]
    return _REGISTRY


def ids() -> list:
    """Registered model ids, in registry order."""
    return [e["id"] for e in _registry()]


def _lookup(name: str) -> dict:
    key = name.strip().lower()
    for e in _registry():
        if key == e["id"] or key in e.get("aliases", ()) or key == e["name"].lower() or key == e["hf_repo"].lower():
            return e
    import difflib
    names = ids() + [a for e in _registry() for a in e.get("aliases", ())]
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UnknownModel(f"unknown model {name!r}{hint} (known: {', '.join(ids())}; or pass --config PATH)")


def registry_entry(name: str) -> dict:
    """The registry record (id, hf_repo, official figures and their source)."""
    return dict(_lookup(name))


def official(name: str) -> dict:
    """Officially stated parameter counts for a registered model, with the
    comparison rule per figure (field, rounding, why) and the source."""
    e = _lookup(name)
    return {"figures": dict(e["official"]), "compare": {k: dict(v) for k, v in e["compare"].items()},
            "source": e["official_source"]}


_UNITS = {"M": 10 ** 6, "B": 10 ** 9, "T": 10 ** 12}


def _parse_figure(text: str):
    """'8.2B' -> (8.2 as text digits, unit, decimals)."""
    t = text.strip().upper()
    if not t or t[-1] not in _UNITS:
        raise ValueError(f"cannot parse parameter figure {text!r}")
    num = t[:-1]
    decimals = len(num.split(".")[1]) if "." in num else 0
    return num, _UNITS[t[-1]], decimals


def compare_figure(value: int, stated: str, rounding: str = "round") -> dict:
    """Compare an exact count with a vendor figure at the vendor's precision.

    rounding='round': round(value) at the stated number of decimals must equal
    the figure; 'truncate': the figure is the count cut (not rounded) there.
    """
    from decimal import Decimal, ROUND_DOWN, ROUND_HALF_UP
    num, unit, decimals = _parse_figure(stated)
    q = Decimal(1).scaleb(-decimals)
    exact = Decimal(value) / Decimal(unit)
    mode = ROUND_DOWN if rounding == "truncate" else ROUND_HALF_UP
    at_precision = exact.quantize(q, rounding=mode)
    return {"stated": stated, "computed": value, "at_precision": f"{at_precision}{stated.strip()[-1].upper()}",
            "match": at_precision == Decimal(num), "rounding": rounding,
            "rel_diff": float((exact - Decimal(num)) / Decimal(num))}


def official_comparison(name: str) -> list:
    """One row per official figure: stated, computed field, match at the
    vendor's precision, and the documented reason when it is not compared."""
    m = get(name)
    info = official(name)
    rows = []
    for key, stated in info["figures"].items():
        rule = info["compare"].get(key, {"field": None, "rounding": "none"})
        row = {"model": m.id, "figure": key, "stated": stated, "field": rule.get("field"),
               "rounding": rule.get("rounding", "round"), "why": rule.get("why", ""), "source": info["source"]}
        if rule.get("field"):
            cmp = compare_figure(getattr(m, rule["field"]), stated,
                                 "truncate" if row["rounding"] == "truncate" else "round")
            row.update(computed=cmp["computed"], at_precision=cmp["at_precision"],
                       match=cmp["match"], rel_diff=cmp["rel_diff"])
        else:
            row.update(computed=None, at_precision=None, match=None, rel_diff=None)
        rows.append(row)
    return rows


def get(name: str) -> ModelSpec:
    """A registered model by id, alias, display name or HF repo (case-insensitive)."""
    e = _lookup(name)
    if e["id"] not in _CACHE:
        with open(os.path.join(CONFIG_DIR, e["config"]), encoding="utf-8") as f:
            cfg = json.load(f)
        _CACHE[e["id"]] = parse_config(cfg, id=e["id"], name=e["name"],
                                       source="https://huggingface.co/" + e["hf_repo"])
    return _CACHE[e["id"]]


def all() -> list:  # noqa: A001 - documented API name
    """Every registered ModelSpec."""
    return [get(i) for i in ids()]
