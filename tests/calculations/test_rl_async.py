"""Chapter 10's asynchronous RL schedule."""
import pytest

from calculations import rl_async as RA


def test_staleness_bound_holds_and_lags_are_versions():
    s = RA.async_schedule(55.0, 40.7, 2, 8, 1)
    assert all(0 <= lag <= 1 for lag in s["lags"]) and s["max_lag"] == 1
    # the learner takes the batches in order and publishes one version per batch
    assert [v for *_, v in s["learn"]] == list(range(1, 9))
    assert all(b[0] >= a[1] - 1e-9 for a, b in zip(s["learn"], s["learn"][1:]))


def test_no_staleness_is_synchronous():
    s = RA.async_schedule(55.0, 40.7, 2, 4, 0)
    assert s["lags"] == [0, 0, 0, 0]
    # each batch waits for the previous update: one round is rollout + learner
    assert s["span_s"] == pytest.approx(4 * (55.0 + 40.7))
    assert s["learner_busy"] < 0.5


def test_enough_generators_keep_the_learner_busy():
    s = RA.async_schedule(55.0, 40.7, 2, 12, 2)
    assert s["learner_busy"] > 0.9


def test_bad_arguments():
    with pytest.raises(RA.RLAsyncError):
        RA.async_schedule(0, 1, 1, 1, 0)
    with pytest.raises(RA.RLAsyncError):
        RA.async_schedule(1, 1, 1.5, 1, 0)
