"""Chapter 3's day of traffic (calculations/diurnal.py)."""
import pytest

from calculations import diurnal


def test_peak_sized_pool_by_hand():
    p = diurnal.peak_sized_pool([10, 15, 25, 30, 25, 15], 0.8, fill_price=0.5)
    assert p["capacity"] == pytest.approx(37.5)
    assert p["utilization"] == pytest.approx(20 / 37.5)
    assert p["fill"] == pytest.approx([27.5, 22.5, 12.5, 7.5, 12.5, 22.5])
    assert p["elastic_capacity"] == pytest.approx(25)
    assert p["elastic_saving"] == pytest.approx(1 / 3)
    assert p["revenue_fill"] == pytest.approx(20 / 37.5 + 0.5 * 17.5 / 37.5)
    assert p["revenue_elastic"] == pytest.approx(0.8)
    assert p["revenue_online"] < p["revenue_fill"] < p["revenue_elastic"]


def test_flat_day_has_nothing_to_fill_but_the_margin():
    p = diurnal.peak_sized_pool([20] * 4, 1.0)
    assert p["idle"] == pytest.approx(0) and p["elastic_saving"] == pytest.approx(0)


@pytest.mark.parametrize("args", [([], 0.8), ([10, -1], 0.8), ([10], 0), ([10], 1.5)])
def test_bad_arguments(args):
    with pytest.raises(diurnal.DiurnalError):
        diurnal.peak_sized_pool(*args)
