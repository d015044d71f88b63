import math

import pytest

from calculations import kernels


def test_sm_split_overlap_link_bound_and_break_even():
    # 132 SMs; 10 ms of compute; 1 GB at 100 GB/s (10 ms); 10 GB/s per SM -> 10 SMs saturate
    r = kernels.sm_split_overlap(10e-3, 1e9, 132, 10, 100e9, 10e9)
    assert r["sms_to_saturate"] == 10
    assert math.isclose(r["comm_s"], 10e-3) and math.isclose(r["comm_link_s"], 10e-3)
    assert math.isclose(r["compute_slow_s"], 10e-3 * 132 / 122)
    assert math.isclose(r["overlapped_s"], r["compute_slow_s"])
    assert math.isclose(r["serial_s"], 20e-3)
    # the largest SM share for which overlap still wins: S X / (C + X) = 66 here
    assert math.isclose(r["max_comm_sms"], 66.0)
    at = kernels.sm_split_overlap(10e-3, 1e9, 132, 66, 100e9, 10e9)
    assert math.isclose(at["overlapped_s"], at["serial_s"])


def test_sm_split_overlap_too_few_sms_is_sm_bound():
    r = kernels.sm_split_overlap(1e-3, 1e9, 132, 2, 100e9, 10e9)
    assert math.isclose(r["comm_s"], 1e9 / 20e9)
    assert r["overlapped_s"] == r["comm_s"] > r["comm_link_s"]


def test_sm_split_overlap_rejects_all_sms():
    with pytest.raises(ValueError):
        kernels.sm_split_overlap(1e-3, 1e9, 132, 132, 100e9, 10e9)
