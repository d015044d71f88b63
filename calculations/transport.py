"""Chapter 12's transport arithmetic: what one lost packet does to a token stream over TCP, how
often an answer meets one, and the latency of an interactive loop (a voice agent's barge-in,
a computer-use agent's screenshot -> model -> action step).

Standard library only; times in seconds, rates per second, sizes in bytes.
"""
from __future__ import annotations

from calculations.errors import CalcError

__all__ = ["TransportError", "DUPTHRESH", "LINUX_RTO_MIN", "stall_s", "p_any_loss",
           "image_tokens", "PIXELS_PER_TOKEN_SIDE", "per_station_rate"]

# ---------------------------------------------------------------- cited facts
# RFC 5681, section 3.2: fast retransmit after three duplicate ACKs.
DUPTHRESH = 3
# Linux include/net/tcp.h: TCP_RTO_MIN = HZ/5, 200 ms; the kernel's RTO on a steady path is about
# the smoothed RTT plus a variance term floored at this minimum.
LINUX_RTO_MIN = 0.200
# Qwen2-VL (arXiv:2409.12191): 14-pixel ViT patches, 2x2 of them merged into one token, so one
# visual token per 28x28 pixels (a 224x224 image is 64 tokens plus two markers).
PIXELS_PER_TOKEN_SIDE = 28


class TransportError(CalcError):
    pass


def _pos(v, name, zero_ok=False):
    if not isinstance(v, (int, float)) or v < 0 or (v == 0 and not zero_ok):
        raise TransportError(f"{name} must be {'non-negative' if zero_ok else 'positive'} "
                             f"(got {v!r})")
    return v


def stall_s(rate: float, rtt: float, segments_after: float = float("inf"),
            rto_min: float = LINUX_RTO_MIN) -> dict:
    """How long the reader waits past a lost segment's due time, one segment per token sent at
    `rate` per second. TCP delivers in order, so every later token waits too (head-of-line
    blocking). Fast retransmit needs DUPTHRESH later segments to reach the receiver: their
    duplicate ACKs reach the sender DUPTHRESH/rate + RTT after the loss, and the resent segment
    arrives half an RTT later; the lost segment was due half an RTT after it left, so the stall
    is DUPTHRESH/rate + RTT. With fewer segments after it (the end of an answer, a slow stream)
    only the retransmission timer resends it, at RTO ~ RTT + rto_min (Linux)."""
    _pos(rate, "rate")
    _pos(rtt, "rtt")
    fast = DUPTHRESH / rate + rtt
    rto = rtt + rto_min
    use_fast = segments_after >= DUPTHRESH and fast < rto
    stall = fast if use_fast else rto
    return {"fast_s": fast, "rto_s": rto, "stall_s": stall, "fast": use_fast,
            "tokens_held": stall * rate}


def p_any_loss(p: float, segments: int) -> float:
    """Probability that at least one of `segments` independent segments is lost."""
    if not 0 <= p < 1:
        raise TransportError(f"loss probability must be in [0, 1) (got {p!r})")
    if not isinstance(segments, int) or segments < 0:
        raise TransportError(f"segments must be a non-negative integer (got {segments!r})")
    return 1 - (1 - p) ** segments


def image_tokens(width: int, height: int, side: int = PIXELS_PER_TOKEN_SIDE) -> int:
    """Visual tokens of an image cut into side x side pixel cells (the image resized down to a
    multiple of `side`; the two marker tokens are not counted)."""
    for v, n in ((width, "width"), (height, "height"), (side, "side")):
        if not isinstance(v, int) or v <= 0:
            raise TransportError(f"{n} must be a positive integer (got {v!r})")
    return (width // side) * (height // side)


def per_station_rate(rates) -> float:
    """Throughput each station gets when stations at PHY `rates` (bits/s) take turns sending
    equal-size frames, as 802.11's contention gives each an equal chance per frame (the
    "performance anomaly" of Heusse et al., INFOCOM 2003): one round sends one frame from each,
    taking sum(S / r_i), so each gets S / sum(S / r_i) = 1 / sum(1 / r_i). Overheads (preambles,
    backoff, ACKs) are left out, so this is an upper bound."""
    rates = list(rates)
    if not rates:
        raise TransportError("per_station_rate needs at least one station")
    for r in rates:
        _pos(r, "rate")
    return 1.0 / sum(1.0 / r for r in rates)
