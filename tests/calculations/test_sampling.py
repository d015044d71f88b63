"""calculations.sampling: the acceptance rule of speculative sampling keeps the target's
distribution, copy-on-write counts blocks as a paged allocator does, LoRA adapters are sized
from the model's shapes."""
import random

import pytest

from calculations import models, sampling
from calculations.errors import CalcError


def test_rejection_step_emits_the_target_distribution():
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(2, 9)
        p = [rng.random() for _ in range(n)]
        q = [rng.random() for _ in range(n)]
        p = [x / sum(p) for x in p]
        q = [x / sum(q) for x in q]
        r = sampling.rejection_step(p, q)
        assert r["max_error"] < 1e-12
        assert abs(r["alpha"] - sum(min(a, b) for a, b in zip(p, q))) < 1e-12
        assert abs(r["alpha"] - (1 - 0.5 * sum(abs(a - b) for a, b in zip(p, q)))) < 1e-12


def test_rejection_step_by_simulation():
    """The rule, played out with random draws, gives p (a check independent of the algebra)."""
    p, q = [0.5, 0.3, 0.15, 0.05], [0.3, 0.5, 0.1, 0.1]
    r = sampling.rejection_step(p, q)
    rng = random.Random(1)
    counts = [0] * 4
    n = 200_000
    for _ in range(n):
        x = rng.choices(range(4), q)[0]
        if rng.random() >= r["keep"][x]:
            x = rng.choices(range(4), r["residual"])[0]
        counts[x] += 1
    assert all(abs(c / n - pi) < 0.005 for c, pi in zip(counts, p))


def test_identical_distributions_accept_everything():
    r = sampling.rejection_step([0.25] * 4, [0.25] * 4)
    assert r["alpha"] == 1 and r["residual"] == [0.0] * 4


@pytest.mark.parametrize("p,q", [([0.5, 0.6], [0.5, 0.5]), ([1.0], [0.5, 0.5]), ([-0.1, 1.1], [0.5, 0.5])])
def test_bad_distributions_are_errors(p, q):
    with pytest.raises(CalcError):
        sampling.rejection_step(p, q)


def test_cow_fork_counts_blocks():
    c = sampling.cow_fork(1000, 4, 16)
    assert (c["prompt_blocks"], c["full_blocks"], c["partial_tokens"]) == (63, 62, 8)
    assert c["copies"] == 3 and c["blocks_held"] == 66 and c["blocks_unshared"] == 252
    aligned = sampling.cow_fork(1024, 4, 16)       # no partial block: nothing to copy
    assert aligned["copies"] == 0 and aligned["blocks_held"] == 64
    assert sampling.cow_fork(10, 1, 16)["saving"] == 0


def test_lora_params_qwen3_8b():
    m = models.get("qwen3-8b")
    r16 = sampling.lora_params(m, 16)
    assert r16 == 2 * sampling.lora_params(m, 8)
    h, i, hd = m.hidden_size, m.intermediate_size, m.head_dim
    per_layer = 16 * ((h + m.num_heads * hd) * 2 + 2 * (h + m.num_kv_heads * hd) + 3 * (h + i))
    assert r16 == m.num_layers * per_layer
    with pytest.raises(CalcError):
        sampling.lora_params(m, 16, targets=("qkv",))
