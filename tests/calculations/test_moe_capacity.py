import math

import pytest

from calculations import moe_capacity as mc


def test_capacity_is_the_fair_share_times_the_factor():
    # Switch Transformer's example shape: 6 tokens, 3 experts, top-1, factor 1 -> 2 slots
    assert mc.expert_capacity(6, 1, 3, 1.0) == 2
    assert mc.expert_capacity(4096, 8, 256, 1.25) == 160
    assert mc.expert_capacity(4096, 8, 256, 1.0) == 128


def test_inverse_round_trips():
    for cap, k, e, f in [(160, 8, 256, 1.25), (100, 2, 8, 1.5), (7, 1, 3, 1.0)]:
        t = mc.max_tokens(cap, k, e, f)
        assert mc.expert_capacity(t, k, e, f) <= cap < mc.expert_capacity(t + 1, k, e, f) + 1
        assert mc.expert_capacity(t + 1, k, e, f) > cap or t == 0
    assert mc.max_tokens(160, 8, 256, 1.25) == 4096


def test_overflow_matches_a_direct_sum_and_limits():
    n, p, c = 50, 0.2, 12
    direct = sum((x - c) * math.comb(n, x) * p ** x * (1 - p) ** (n - x) for x in range(c + 1, n + 1))
    assert mc.expected_overflow(n, p, c) == pytest.approx(direct, rel=1e-9)
    assert mc.expected_overflow(10, 0.0, 0) == 0.0
    assert mc.expected_overflow(10, 1.0, 4) == 6.0
    assert mc.expected_overflow(10, 0.5, 10) == 0.0


def test_dropped_fraction_falls_with_the_factor_and_rises_with_skew():
    uni = [mc.dropped_fraction(4096, 8, 256, f) for f in (1.0, 1.25, 2.0)]
    assert uni[0] > uni[1] > uni[2] >= 0
    assert 0.02 < uni[0] < 0.05          # factor 1: the binomial spread alone overflows a few %
    skew = [(32, 0.25), (224, 0.75)]
    assert mc.dropped_fraction(4096, 8, 256, 1.25, skew) > 10 * uni[1]
    assert mc.dropped_fraction(4096, 8, 256, 2.5, skew) < 1e-3


def test_bad_arguments():
    with pytest.raises(ValueError):
        mc.expert_capacity(10, 9, 8, 1.0)
    with pytest.raises(ValueError):
        mc.dropped_fraction(10, 2, 8, 1.0, [(4, 0.5), (3, 0.5)])
