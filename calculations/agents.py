"""An agent task's resources (chapter 11): the turns of one task on a shared GPU and a sandbox,
what a provider with prefix-cache billing charges for the same turns, and retries.

Standard library only. Conventions as in `queueing`: times in seconds, bytes exact integers.

A task is `turns` turns. Turn i sends the whole context so far (the first prompt, then every
earlier turn's generated tokens and tool output) to the model, which decodes `gen` tokens (a
tool call); the tool then runs `tool_s` seconds in the sandbox and returns `tool_out` tokens,
appended before the next turn. The model's side runs on a GPU shared by `batch` sequences: a
decode step's time is shared by the batch, a prefill has the GPU to itself.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from calculations import formulas, hardware, models
from calculations.errors import CalcError

__all__ = ["AgentError", "AgentTask", "agent_task", "CACHE_WRITE_X", "CACHE_READ_X", "OUTPUT_X",
           "billed_units", "retry_tree"]

# ---------------------------------------------------------------- cited facts
# Anthropic's pricing page, "Prompt caching": a 5-minute cache write costs 1.25x the model's
# base input price, a cache hit (read) 0.1x; output tokens cost 5x the input price on the
# listed Claude models (e.g. $3 / $15 per million tokens). Used as multiples of the input price.
CACHE_WRITE_X = 1.25
CACHE_READ_X = 0.10
OUTPUT_X = 5.0


class AgentError(CalcError):
    pass


def _pos(v, name, zero_ok=False):
    if not isinstance(v, (int, float)) or v < 0 or (v == 0 and not zero_ok):
        raise AgentError(f"{name} must be {'non-negative' if zero_ok else 'positive'} (got {v!r})")
    return v


@dataclass
class AgentTask:
    turns: int
    first_ctx: int
    gen: int
    tool_out: int
    tool_s: float
    batch: int
    final_ctx: int            # tokens in the context after the last turn's output
    prefill_s: float          # GPU time of all turns' prefills, prefix cache on (new tokens only)
    prefill_nocache_s: float  # the same with every turn prefilling its whole context again
    decode_s: float           # wall time of all turns' decoding (gen steps per turn)
    decode_gpu_s: float       # the GPU time the task is charged for decoding (decode_s / batch)
    tool_total_s: float       # wall time in tools
    wall_s: float             # prefill + decode + tools, turn after turn
    gpu_s: float              # prefill_s + decode_gpu_s
    gpu_nocache_s: float
    sandbox_s: float          # the sandbox is held for the whole task
    kv_peak_bytes: int
    turn_prefill_s: tuple     # per turn (for a timeline)
    turn_decode_s: tuple
    input_tokens: int         # billed without caching: every turn's whole context
    cache_write_tokens: int   # with caching: each turn's new tokens are written once
    cache_read_tokens: int    # ... and the prefix already cached is read
    output_tokens: int
    last_read_tokens: int     # the prefix the last request reads (re-written if it expired)

    def to_dict(self) -> dict:
        return asdict(self)


def agent_task(m, hw, turns: int, first_ctx: int, gen: int, tool_out: int, tool_s: float,
               batch: int = 1, compute_eff: float = 1.0, dtype: str = "bf16") -> AgentTask:
    m = models.get(m) if isinstance(m, str) else m
    hw = hardware.get(hw)
    for v, n in ((turns, "turns"), (first_ctx, "first_ctx"), (gen, "gen"), (batch, "batch")):
        if not isinstance(v, int) or v <= 0:
            raise AgentError(f"{n} must be a positive integer (got {v!r})")
    _pos(tool_out, "tool_out", True)
    _pos(tool_s, "tool_s", True)
    ctx = 0                       # tokens already in the KV cache
    pre, pre_nc, dec, t_pre, t_dec = 0.0, 0.0, 0.0, [], []
    inp = write = read = prev_in = 0
    for i in range(turns):
        # the GPU keeps the KV of the tokens it decoded, so a turn prefills only what came from
        # outside: the first prompt, then each tool's output
        new = first_ctx if i == 0 else tool_out
        # with the prefix cache the turn prefills only its new tokens, attending to the cached
        # ones (forward(..., context=ctx)); without it the whole context again
        p = formulas.forward(m, new, context=ctx, hw=hw, dtype=dtype,
                             compute_eff=compute_eff).totals.roofline_time_s
        pre += p
        pre_nc += formulas.forward(m, ctx + new, hw=hw, dtype=dtype,
                                   compute_eff=compute_eff).totals.roofline_time_s
        # a provider's bill: the request carries the whole context; the previous request's
        # input is the cached prefix (read), the rest (last output + tool result) is written
        req = ctx + new
        inp += req
        read += prev_in
        write += req - prev_in
        last_read = prev_in
        prev_in = req
        ctx += new
        # decoding gen tokens at the mean context of the turn: one step per token
        d = gen * formulas.decode_step(m, batch, ctx + gen // 2, hw, dtype=dtype).time_s
        dec += d
        t_pre.append(p)
        t_dec.append(d)
        ctx += gen
    kv = formulas.kv_cache_bytes(m, ctx)
    tools = turns * tool_s
    wall = pre + dec + tools
    return AgentTask(turns, first_ctx, gen, tool_out, tool_s, batch, ctx, pre, pre_nc, dec,
                     dec / batch, tools, wall, pre + dec / batch, pre_nc + dec / batch, wall, kv,
                     tuple(t_pre), tuple(t_dec), inp, write, read, turns * gen, last_read)


def billed_units(task: AgentTask, cached: bool) -> float:
    """The provider's bill in units of one input token's base price."""
    if cached:
        return (task.cache_write_tokens * CACHE_WRITE_X + task.cache_read_tokens * CACHE_READ_X
                + task.output_tokens * OUTPUT_X)
    return task.input_tokens + task.output_tokens * OUTPUT_X


def retry_tree(p_pass: float, attempts: int) -> dict:
    """One step verified after each attempt (tests pass with probability p_pass, independently),
    retried up to `attempts` times: the leaves of the tree and the expected attempts."""
    if not 0 < p_pass <= 1:
        raise AgentError(f"p_pass must be in (0, 1] (got {p_pass!r})")
    if not isinstance(attempts, int) or attempts < 1:
        raise AgentError(f"attempts must be a positive integer (got {attempts!r})")
    q = 1 - p_pass
    leaves = [q ** k * p_pass for k in range(attempts)]       # pass at attempt k+1
    expected = sum(q ** k for k in range(attempts))          # attempt k+1 runs if k failed
    return {"pass_at": leaves, "give_up": q ** attempts, "expected_attempts": expected,
            "success": 1 - q ** attempts}
