"""calculations.transport: a lost segment's stall, loss probability over an answer, image tokens."""
import pytest

from calculations import transport as tp


def test_fast_retransmit_stall_is_three_intervals_plus_a_round_trip():
    s = tp.stall_s(100.0, 0.05)
    assert s["fast"] and s["stall_s"] == pytest.approx(3 / 100 + 0.05)
    assert s["tokens_held"] == pytest.approx(s["stall_s"] * 100)


def test_end_of_stream_or_slow_stream_waits_for_the_timer():
    end = tp.stall_s(100.0, 0.05, segments_after=2)
    assert not end["fast"] and end["stall_s"] == pytest.approx(0.05 + 0.2)
    # a trickle (2 tokens a second): three later segments take longer than the timer
    slow = tp.stall_s(2.0, 0.05)
    assert not slow["fast"] and slow["stall_s"] == pytest.approx(0.25)


def test_loss_probability():
    assert tp.p_any_loss(0.0, 256) == 0
    assert tp.p_any_loss(0.01, 1) == pytest.approx(0.01)
    assert tp.p_any_loss(0.01, 256) == pytest.approx(1 - 0.99 ** 256)


def test_image_tokens_match_qwen2_vl():
    assert tp.image_tokens(224, 224) == 64          # plus two markers: 66 in the paper
    assert tp.image_tokens(1280, 720) == 45 * 25


@pytest.mark.parametrize("call", [lambda: tp.stall_s(0, 0.05), lambda: tp.stall_s(10, -1),
                                  lambda: tp.p_any_loss(1.0, 3), lambda: tp.p_any_loss(0.1, -1),
                                  lambda: tp.image_tokens(0, 10)])
def test_bad_inputs_are_errors(call):
    with pytest.raises(tp.TransportError):
        call()


def test_one_slow_station_slows_every_station():
    fast = [200e6] * 10
    assert tp.per_station_rate(fast) == pytest.approx(20e6)
    mixed = [200e6] * 9 + [6e6]
    assert tp.per_station_rate(mixed) < 6e6            # below even the slow station's own rate
    assert tp.per_station_rate(mixed) == pytest.approx(1 / (9 / 200e6 + 1 / 6e6))
    with pytest.raises(tp.TransportError):
        tp.per_station_rate([])
