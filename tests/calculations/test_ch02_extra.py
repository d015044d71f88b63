import math

import pytest

from calculations import rope


def test_rates_and_wavelengths():
    r = rope.rope_rates(128, 1e6)
    assert len(r) == 64 and r[0] == 1.0
    assert math.isclose(r[-1], 1e6 ** (-126 / 128))
    assert math.isclose(rope.rope_wavelengths(128, 1e6)[0], 2 * math.pi)


def test_ntk_base_slows_the_slowest_pair_by_the_factor():
    b = rope.ntk_base(1e6, 4.0, 128)
    slow, slow2 = rope.rope_rates(128, 1e6)[-1], rope.rope_rates(128, b)[-1]
    assert math.isclose(slow / slow2, 4.0)
    assert rope.rope_rates(128, b)[0] == 1.0


def test_yarn_keeps_fast_pairs_and_interpolates_slow_ones():
    base, d, s, L = 1e6, 128, 4.0, 32768
    plain, y = rope.rope_rates(d, base), rope.yarn_rates(d, base, s, L)
    assert y[0] == plain[0]
    assert math.isclose(y[-1], plain[-1] / s)
    assert all(p / s <= q <= p for p, q in zip(plain, y))
    assert rope.yarn_ramp(0.5) == 0 and rope.yarn_ramp(40) == 1
    assert math.isclose(rope.yarn_ramp(16.5), 0.5)
    assert math.isclose(rope.yarn_attention_scale(4.0), 0.1 * math.log(4) + 1)


def test_response_kv_read_matches_the_step_sum():
    kv, p, n = 147456, 2048, 512
    assert rope.response_kv_read_bytes(kv, p, n) == kv * sum(p + i + 1 for i in range(n - 1))
    assert rope.response_kv_read_bytes(kv, p, 1) == 0


def test_bad_inputs():
    with pytest.raises(ValueError):
        rope.rope_rates(127, 1e6)
    with pytest.raises(ValueError):
        rope.yarn_ramp(1, alpha=2, beta=1)
    with pytest.raises(ValueError):
        rope.response_kv_read_bytes(1, 10, 0)
