"""Chapter 7 additions: queue pairs of an all-to-all, expected maximum of n draws."""
import math
import random

import pytest

from calculations import collectives as c


def test_rc_queue_pairs_full_mesh_and_xrc():
    assert c.rc_queue_pairs(1024, 8) == 1016
    assert c.rc_queue_pairs(1024, 8, 4) == 4064
    assert c.rc_queue_pairs(1024, 8, transport="xrc") == 127
    with pytest.raises(c.NetworkError):
        c.rc_queue_pairs(1000, 16)
    with pytest.raises(c.NetworkError):
        c.rc_queue_pairs(1024, 8, transport="ud")


def test_expected_max_normal_known_values():
    assert c.expected_max_normal(1) == pytest.approx(0.0, abs=1e-9)
    assert c.expected_max_normal(2) == pytest.approx(1 / math.sqrt(math.pi), rel=1e-6)
    assert c.expected_max_normal(8) == pytest.approx(1.4236, abs=1e-3)
    for n in (8, 1024, 16384):
        assert c.expected_max_normal(n) < math.sqrt(2 * math.log(n))


def test_expected_max_normal_against_sampling():
    rng = random.Random(7)
    n, trials = 64, 4000
    est = sum(max(rng.gauss(0, 1) for _ in range(n)) for _ in range(trials)) / trials
    assert est == pytest.approx(c.expected_max_normal(n), abs=0.03)


def test_expected_max_exponential_is_harmonic():
    assert c.expected_max_exponential(1, 2.0) == 2.0
    assert c.expected_max_exponential(3) == pytest.approx(1 + 1 / 2 + 1 / 3)
    assert c.expected_max_exponential(1024) == pytest.approx(math.log(1024) + 0.5772, abs=1e-3)
