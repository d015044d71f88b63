"""Chapter 8 additions: the distribution of tokens per speculative round, and the cost of moving
LoRA adapters between host and GPU."""
import random

import pytest

from calculations import sampling, serving
from calculations.errors import CalcError


@pytest.mark.parametrize("alpha,k", [(0.8, 4), (0.6, 2), (0.9, 8), (0.0, 3), (1.0, 5), (0.5, 0)])
def test_spec_round_tokens_mean_matches_closed_form(alpha, k):
    r = sampling.spec_round_tokens(alpha, k)
    assert abs(sum(r["probs"]) - 1) < 1e-12
    assert abs(r["mean"] - serving.spec_expected_tokens(alpha, k)) < 1e-12
    assert abs(r["drafts_accepted"] + r["drafts_discarded"] - k) < 1e-12


def test_spec_round_tokens_by_simulation():
    alpha, k = 0.8, 4
    r = sampling.spec_round_tokens(alpha, k)
    rng = random.Random(3)
    counts = [0] * (k + 1)
    n = 200_000
    for _ in range(n):
        j = 1
        while j <= k and rng.random() < alpha:
            j += 1
        counts[j - 1] += 1
    for c, pj in zip(counts, r["probs"]):
        assert abs(c / n - pj) < 0.005


def test_lora_swap():
    r = sampling.lora_swap(100e6, 50e9, 1e5, 0.02, 10)
    assert abs(r["load_s"] - 2e-3) < 1e-15
    assert abs(r["loads_per_s"] - 500) < 1e-9
    assert abs(r["kv_tokens"] - 1000) < 1e-9
    assert abs(r["stream_over_step"] - 1.0) < 1e-12
    with pytest.raises(CalcError):
        sampling.lora_swap(0, 1, 1, 1, 1)
    with pytest.raises(CalcError):
        sampling.spec_round_tokens(1.2, 3)
