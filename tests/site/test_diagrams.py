"""The diagram vocabulary's geometry, computed from data without drawing."""
from __future__ import annotations

import pytest

from bookkit import diagrams as d
from calculations import training as tr


@pytest.mark.parametrize("p,m", [(4, 8), (4, 4), (8, 16), (2, 1), (3, 7)])
def test_1f1b_and_gpipe_bubble_is_the_closed_form(p, m):
    for schedule in (d.pipeline_1f1b(p, m), d.pipeline_gpipe(p, m)):
        assert schedule.bubble_fraction == pytest.approx(tr.pipeline_bubble_fraction(p, m))
        assert len(schedule.bars) == 2 * p * m
        assert schedule.span == pytest.approx((m + p - 1) * 3)


@pytest.mark.parametrize("p,m,v", [(4, 8, 2), (4, 8, 4), (2, 6, 3)])
def test_interleaved_bubble_shrinks_v_fold(p, m, v):
    schedule = d.pipeline_interleaved(p, m, v)
    assert schedule.bubble_fraction == pytest.approx(tr.pipeline_bubble_fraction(p, m, v))
    assert len(schedule.bars) == 2 * p * m * v


def _in_flight(schedule, row):
    """Most micro-batches whose forward ran on `row` and whose backward has not yet."""
    held = most = 0
    for bar in sorted((b for b in schedule.bars if b.row == row), key=lambda b: b.start):
        held += 1 if bar.kind == "F" else -1
        most = max(most, held)
    return most


def test_1f1b_holds_at_most_p_minus_s_micro_batches_gpipe_holds_all():
    p, m = 4, 12
    one, gpipe = d.pipeline_1f1b(p, m), d.pipeline_gpipe(p, m)
    assert [_in_flight(one, s) for s in range(p)] == [4, 3, 2, 1]
    assert [_in_flight(gpipe, s) for s in range(p)] == [m] * p


def test_1f1b_respects_dependencies():
    p, m = 4, 6
    schedule = d.pipeline_1f1b(p, m)
    end = {(b.kind, b.row, b.label): b.end for b in schedule.bars}
    for b in schedule.bars:
        if b.kind == "F" and b.row:
            assert b.start >= end[("F", b.row - 1, b.label)]
        if b.kind == "B" and b.row < p - 1:
            assert b.start >= end[("B", b.row + 1, b.label)]
    rows = {}
    for b in schedule.bars:
        rows.setdefault(b.row, []).append(b)
    for bars in rows.values():      # one operation at a time per device
        bars.sort(key=lambda b: b.start)
        assert all(x.end <= y.start + 1e-12 for x, y in zip(bars, bars[1:]))


def test_bad_schedule_inputs_are_errors():
    with pytest.raises(ValueError, match="multiple of stages"):
        d.pipeline_interleaved(4, 6, 2)
    with pytest.raises(ValueError, match=">= 1"):
        d.pipeline_1f1b(0, 4)


@pytest.mark.parametrize("n", [2, 4, 8, 16])
def test_ring_allreduce_steps_reduce_then_gather_every_chunk(n):
    steps = d.ring_allreduce_steps(n)
    assert len(steps) == 2 * (n - 1)
    # replay: reduce-scatter sums each chunk on one rank, all-gather spreads it to all
    have = [[{r} for _ in range(n)] for r in range(n)]   # have[rank][chunk]: ranks summed in
    for step in steps:
        sent = [(dst, chunk, set(have[src][chunk])) for src, dst, chunk in step.sends]
        for dst, chunk, contrib in sent:
            if step.phase == "reduce-scatter":
                have[dst][chunk] |= contrib
            else:
                have[dst][chunk] = contrib
    assert all(have[r][c] == set(range(n)) for r in range(n) for c in range(n))
    sends_per_rank = sum(1 for s in steps for src, *_ in s.sends if src == 0)
    assert sends_per_rank / n == pytest.approx(2 * (n - 1) / n)   # 2(n-1)/n of the buffer


def test_ring_positions_and_links():
    topo = d.ring(8, label="50 GB/s")
    assert len(topo.nodes) == 8 and len(topo.links) == 8
    assert topo.node("gpu0").y == pytest.approx(1) and topo.node("gpu2").x == pytest.approx(1)
    assert all(topo.degree(n.id) == 2 for n in topo.nodes)
    assert {l.label for l in topo.links} == {"50 GB/s"}


@pytest.mark.parametrize("k", [2, 4, 8])
def test_fat_tree_counts_from_k(k):
    t = d.fat_tree(k)
    assert t.count("core") == k * k // 4
    assert t.count("agg") == t.count("edge") == k * k // 2
    assert t.count("host") == k ** 3 // 4
    # every switch has k ports in use (core: one per pod)
    assert all(t.degree(n.id) == k for n in t.nodes if n.kind in ("agg", "edge", "core"))


def test_torus_and_tree():
    t = d.torus2d(4, 4)
    assert len(t.links) == 32 and all(t.degree(n.id) == 4 for n in t.nodes)
    assert sum(1 for l in t.links if l.kind == "wrap") == 8
    tr_ = d.tree(3, 2)
    assert tr_.count("gpu") == 8 and len(tr_.links) == 14


def test_kv_block_table_maps_every_token_once():
    bt = d.kv_block_table([37, 20, 50], page_tokens=16, pool_pages=16)
    assert [len(t) for t in bt.tables] == [3, 2, 4]
    pages = [p for t in bt.tables for p in t]
    assert len(pages) == len(set(pages)) == 9
    assert bt.owner().count(None) == 16 - 9
    assert bt.fill(0, 2) == 37 - 32 and bt.wasted_tokens == 9 * 16 - 107
    # decode-style allocation interleaves the sequences' pages: not contiguous
    assert bt.tables[0] != tuple(range(bt.tables[0][0], bt.tables[0][0] + 3))
    with pytest.raises(ValueError, match="pool has"):
        d.kv_block_table([1000], 16, 8)


def test_memory_map_is_to_scale_and_refuses_overflow():
    mm = d.memory_map(80, [("weights", 16), ("kv", 50)])
    assert [s.start for s in mm.segments] == [0, 16] and mm.free == 14
    with pytest.raises(ValueError, match="more than the capacity"):
        d.memory_map(80, [("weights", 60), ("kv", 30)])


def test_tiles_cover_the_matrix_once():
    ts = d.tiles(100, 70, 32, 32)
    assert sum(h * w for *_, h, w in ts) == 100 * 70 and len(ts) == 4 * 3


def test_stack_flow_layout_and_unknown_boxes():
    f = d.stack_flow([("hbm", "HBM", ""), ("dram", "DRAM", ""), ("ssd", "SSD", "")],
                     [("hbm", "dram", "64 GB/s")])
    assert f.box("hbm").y > f.box("dram").y > f.box("ssd").y
    with pytest.raises(ValueError, match="not in the stack"):
        d.stack_flow([("a", "A", "")], [("a", "b", "")])
