"""Chapter 9's live reconfiguration of the prefill and decode pools."""
import pytest

from calculations import pool_shift as PS


def test_the_fleet_that_serves_all_keeps_the_fewest_units():
    s = PS.best_split(240, 95.5, 131.4, 4, 18)
    assert (s["prefill_units"], s["decode_units"], s["idle_nodes"], s["served"]) == (24, 8, 0, 1.0)
    half = PS.best_split(240, 95.5, 65.7, 4, 18)          # shorter answers: decode units idle
    assert (half["prefill_units"], half["decode_units"], half["idle_nodes"]) == (24, 4, 72)


def test_a_short_fleet_maximises_the_served_share_by_whole_units():
    pre, dec = 95.5, 262.8
    s = PS.best_split(240, pre, dec, 4, 18)
    assert s["prefill_nodes"] + s["decode_nodes"] + s["idle_nodes"] == 240
    # no other whole-unit split serves more
    for d in range(1, 14):
        p = (240 - 18 * d) // 4
        assert min(4 * p / pre, 18 * d / dec) <= s["served"] + 1e-12
    assert s["served"] <= 240 / (pre + dec)                # units never beat the continuous split


def test_shift_bytes_and_seconds():
    to_dec = PS.shift_bytes_per_gpu("to-decode", 2.5e9, 9, 2, 30e9)
    assert to_dec == {"kv_out": 0.0, "experts_in": 5e9}
    to_pre = PS.shift_bytes_per_gpu("to-prefill", 2.5e9, 9, 2, 30e9)
    t = PS.shift_seconds(to_pre, 50e9)
    assert t["kv_s"] == pytest.approx(0.6) and t["experts_s"] == pytest.approx(0.45)
    assert t["total_s"] == pytest.approx(1.05)


@pytest.mark.parametrize("args", [(0, 1, 1, 4, 18), (240, -1, 1, 4, 18), (240, 1, 1, 4.5, 18),
                                  (10, 1, 1, 4, 18)])
def test_bad_split_arguments(args):
    with pytest.raises(PS.PoolShiftError):
        PS.best_split(*args)


def test_bad_direction():
    with pytest.raises(PS.PoolShiftError):
        PS.shift_bytes_per_gpu("sideways", 1, 1, 1, 0)


def test_max_batch_for_tpot_is_the_last_batch_within_the_target():
    tpot = lambda b: 0.006 + 0.0003 * b
    b = PS.max_batch_for_tpot(tpot, 0.030, 500)
    assert tpot(b) <= 0.030 < tpot(b + 1)
    assert PS.max_batch_for_tpot(tpot, 0.001, 500) == 0
    assert PS.max_batch_for_tpot(tpot, 1.0, 64) == 64
