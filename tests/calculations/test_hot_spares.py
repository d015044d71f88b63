"""Chapter 10's hot spares."""
import math

import pytest

from calculations import hot_spares as HS


def test_poisson_quantile_against_the_cdf():
    for mean in (0.5, 3.0, 8.0, 40.0):
        for p in (0.5, 0.9, 0.999):
            k = HS.poisson_quantile(mean, p)
            cdf = lambda n: sum(math.exp(-mean) * mean ** i / math.factorial(i) for i in range(n + 1))
            assert cdf(k) >= p and (k == 0 or cdf(k - 1) < p)
    assert HS.poisson_quantile(0, 0.9) == 0


def test_spares_grow_with_repair_time_and_nodes():
    assert HS.nodes_in_repair(2048, 1.6e-4, 24) == pytest.approx(2048 * 1.6e-4 * 24)
    a = HS.spares_needed(2048, 1.6e-4, 24)
    assert a < HS.spares_needed(2048, 1.6e-4, 72) and a < HS.spares_needed(12500, 1.6e-4, 24)


def test_bad_arguments():
    with pytest.raises(HS.HotSpareError):
        HS.poisson_quantile(1.0, 1.0)
    with pytest.raises(HS.HotSpareError):
        HS.nodes_in_repair(0, 1, 1)
