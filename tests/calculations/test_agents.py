"""calculations.agents: an agent task's turns, its API bill and its retry tree."""
import pytest

from calculations import agents, formulas, models, queueing

EFF = queueing.h100_prefill_eff()


def task(**kw):
    args = dict(turns=20, first_ctx=4000, gen=300, tool_out=1200, tool_s=8.0, batch=8,
                compute_eff=EFF)
    args.update(kw)
    return agents.agent_task("qwen3-8b", "h100", **args)


def test_context_and_token_counts_add_up():
    t = task()
    assert t.final_ctx == 4000 + 20 * 300 + 19 * 1200
    assert t.input_tokens == t.cache_read_tokens + t.cache_write_tokens
    # every token of the last request's input was written exactly once
    assert t.cache_write_tokens == t.final_ctx - 300
    assert t.kv_peak_bytes == formulas.kv_cache_bytes(models.get("qwen3-8b"), t.final_ctx)
    assert t.wall_s == pytest.approx(t.prefill_s + t.decode_s + t.tool_total_s)
    assert t.sandbox_s == t.wall_s


def test_prefix_cache_saves_prefill_and_batch_shares_decode():
    t = task()
    assert t.prefill_nocache_s > 5 * t.prefill_s
    assert t.decode_gpu_s == pytest.approx(t.decode_s / 8)
    one = task(turns=1)
    # one turn: nothing to reuse, both ways prefill the same prompt
    assert one.prefill_s == pytest.approx(one.prefill_nocache_s)


def test_bill_with_and_without_cache():
    t = task()
    nc = agents.billed_units(t, cached=False)
    c = agents.billed_units(t, cached=True)
    assert nc == t.input_tokens + 5 * t.output_tokens
    assert c == pytest.approx(1.25 * t.cache_write_tokens + 0.1 * t.cache_read_tokens
                              + 5 * t.output_tokens)
    assert c < nc
    # a single request only writes: caching costs more than not caching
    one = task(turns=1)
    assert agents.billed_units(one, True) > agents.billed_units(one, False)


def test_retry_tree():
    r = agents.retry_tree(0.6, 3)
    assert sum(r["pass_at"]) + r["give_up"] == pytest.approx(1)
    assert r["expected_attempts"] == pytest.approx(1 + 0.4 + 0.16)
    assert agents.retry_tree(1.0, 5)["expected_attempts"] == 1


@pytest.mark.parametrize("kw", [dict(turns=0), dict(gen=-1), dict(tool_s=-1.0), dict(batch=0)])
def test_bad_inputs_are_errors(kw):
    with pytest.raises(agents.AgentError):
        task(**kw)


def test_bad_retry_inputs():
    with pytest.raises(agents.AgentError):
        agents.retry_tree(0, 3)
    with pytest.raises(agents.AgentError):
        agents.retry_tree(0.5, 0)
