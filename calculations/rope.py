"""Rotary position embedding (RoPE) and its context extensions, for chapter 2: the rotation
rate of each pair of dimensions, the NTK-aware base change, YaRN's per-pair blend of
interpolation and extrapolation and its attention scale; and the KV bytes one response reads
from the cache, summed in closed form over its decode steps.

Definitions follow the YaRN paper (Peng et al., arXiv:2309.00071) and the Hugging Face
`transformers` implementation (`modeling_rope_utils.py`): pair i turns theta_i = base^(-2i/d)
radians per position; its wavelength is 2*pi/theta_i positions; r_i = L / wavelength_i is how
many turns it makes within the original context L."""
import math


def _check(head_dim: int, base: float) -> None:
    if head_dim < 4 or head_dim % 2:
        raise ValueError(f"head_dim must be an even number >= 4, got {head_dim}")
    if base <= 1:
        raise ValueError(f"base must be > 1, got {base}")


def rope_rates(head_dim: int, base: float) -> list:
    """Radians per position of each of the head_dim/2 pairs: base^(-2i/head_dim)."""
    _check(head_dim, base)
    return [base ** (-2 * i / head_dim) for i in range(head_dim // 2)]


def rope_wavelengths(head_dim: int, base: float) -> list:
    """Positions each pair needs to turn once: 2*pi / rate."""
    return [2 * math.pi / r for r in rope_rates(head_dim, base)]


def ntk_base(base: float, factor: float, head_dim: int) -> float:
    """NTK-aware scaling: the base grows so the slowest pair turns `factor` times slower and the
    fastest pair is unchanged: base * factor^(d/(d-2))."""
    _check(head_dim, base)
    if factor < 1:
        raise ValueError(f"factor must be >= 1, got {factor}")
    return base * factor ** (head_dim / (head_dim - 2))


def yarn_ramp(turns: float, alpha: float = 1.0, beta: float = 32.0) -> float:
    """YaRN's ramp: 0 for a pair that turns at most alpha times within the original context
    (fully interpolated), 1 for one that turns at least beta times (left as trained), linear
    in between."""
    if not 0 < alpha < beta:
        raise ValueError(f"need 0 < alpha < beta, got {alpha}, {beta}")
    return min(1.0, max(0.0, (turns - alpha) / (beta - alpha)))


def yarn_rates(head_dim: int, base: float, factor: float, orig_ctx: int,
               alpha: float = 1.0, beta: float = 32.0) -> list:
    """Per-pair rates under YaRN: (1 - g) * rate / factor + g * rate, g = yarn_ramp(turns)."""
    if factor < 1 or orig_ctx <= 0:
        raise ValueError(f"need factor >= 1 and orig_ctx > 0, got {factor}, {orig_ctx}")
    out = []
    for rate in rope_rates(head_dim, base):
        g = yarn_ramp(orig_ctx * rate / (2 * math.pi), alpha, beta)
        out.append((1 - g) * rate / factor + g * rate)
    return out


def yarn_attention_scale(factor: float) -> float:
    """YaRN's scale on q and k (each): 0.1 ln(factor) + 1; the logits grow by its square."""
    if factor < 1:
        raise ValueError(f"factor must be >= 1, got {factor}")
    return 0.1 * math.log(factor) + 1.0


def response_kv_read_bytes(kv_per_token: float, prompt: int, output: int) -> float:
    """KV bytes a response of `output` tokens reads over its decode steps after a `prompt`-token
    prefill (the prefill gives the first token): step i = 1 .. output-1 reads prompt + i tokens,
    so the sum is kv * ((output - 1) * prompt + output * (output - 1) / 2)."""
    if prompt < 0 or output < 1 or kv_per_token < 0:
        raise ValueError(f"need prompt >= 0, output >= 1, kv >= 0; got {prompt}, {output}, "
                         f"{kv_per_token}")
    return kv_per_token * ((output - 1) * prompt + output * (output - 1) / 2)
