"""Chapter 10's added formulas: format ranges, loss scale, block scaling, capacity drops,
padding vs packing."""
import math

import pytest

from calculations import training_extras as tx


def test_format_limits_are_the_definitions():
    assert tx.fmt("fp16").max_normal == 65504 and tx.fmt("fp16").min_subnormal == 2 ** -24
    assert tx.fmt("fp8-e4m3").max_normal == 448
    assert 17 < tx.fmt("fp8-e4m3").range_binades < 18
    assert tx.fmt("bf16").range_binades > 6 * tx.fmt("fp16").range_binades
    with pytest.raises(tx.TrainingExtrasError, match="unknown format"):
        tx.fmt("fp7")


def test_loss_scale_is_the_largest_power_of_two_that_does_not_overflow():
    s = tx.loss_scale(0.5)
    assert s == 2 ** 16 and 0.5 * s <= 65504 < 0.5 * 2 * s
    with pytest.raises(tx.TrainingExtrasError):
        tx.loss_scale(0)


def test_block_scaling_threshold_follows_the_block_maximum():
    assert tx.zero_below(1000) == pytest.approx(1000 * tx.zero_below(1))
    assert tx.scale_overhead(128) == 4 / 128
    assert tx.scale_overhead(32, scale_bytes=1) == tx.scale_overhead(128)


def test_capacity_drops_only_above_capacity():
    cap = tx.capacity(tokens=64, experts=8, k=2, factor=1.25)
    assert cap == 20
    r = tx.dropped_tokens([30, 20, 10, 4], cap)
    assert r["dropped"] == 10 and r["kept"] == 54 and r["overfull_experts"] == 1
    assert sum(tx.routed_counts(100, 2, [0.5, 0.3, 0.2])) == 200


def test_packing_wastes_less_than_padding():
    lengths = [900, 120, 3000, 450, 2048, 60, 700, 1500]
    pad = tx.pad_batches(lengths, 4)
    pack = tx.pack_rows(lengths, 4096)
    assert pack["real"] == pad["real"] == sum(lengths)
    assert pack["waste"] < pad["waste"]
    placed = sorted(i for row in pack["rows"] for i, _, _ in row)
    assert placed == list(range(len(lengths)))
    assert all(sum(n for _, _, n in row) <= 4096 for row in pack["rows"])
    with pytest.raises(tx.TrainingExtrasError, match="does not fit"):
        tx.pack_rows([5000], 4096)


def test_expected_max_of_normals_matches_known_values():
    assert tx.expected_max_normal(1) == 0.0
    assert tx.expected_max_normal(2) == pytest.approx(1 / math.sqrt(math.pi), abs=1e-6)
    assert tx.expected_max_normal(8) == pytest.approx(1.4236, abs=1e-3)
    big = tx.expected_max_normal(16384)
    assert big < math.sqrt(2 * math.log(16384))          # the approximation runs high
    q = tx.rank_quantiles(8)
    assert q == sorted(q) and abs(sum(q)) < 1e-9


def test_batch_tradeoff_doubles_both_at_the_critical_batch():
    assert tx.batch_tradeoff(1.0) == {"steps": 2.0, "examples": 2.0}
    small, big = tx.batch_tradeoff(0.25), tx.batch_tradeoff(4.0)
    assert small["steps"] == big["examples"] == 5.0
    with pytest.raises(tx.TrainingExtrasError):
        tx.batch_tradeoff(0)
