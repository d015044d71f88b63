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


# --- issue 26's remaining vocabulary: zero bubble, 3D torus, rail-optimised, scale-up domains

@pytest.mark.parametrize("p, m", [(2, 2), (4, 4), (4, 8), (4, 16), (8, 8), (8, 32)])
def test_zero_bubble_is_the_papers_formula_and_a_third_of_1f1b_idle(p, m):
    tl = d.pipeline_zero_bubble(p, m)
    assert tl.bubble_fraction == pytest.approx(d.zero_bubble_formula(p, m), abs=1e-12)
    assert tl.bubble_fraction == pytest.approx((p - 1) / (3 * m + p - 1), abs=1e-12)
    one_f_one_b = d.pipeline_1f1b(p, m, 1.0, 2.0)     # its backward is B + W
    idle = tl.rows * tl.span - sum(tl.busy(r) for r in range(p))
    idle_1f1b = one_f_one_b.rows * one_f_one_b.span - sum(one_f_one_b.busy(r) for r in range(p))
    assert idle * 3 == pytest.approx(idle_1f1b)


@pytest.mark.parametrize("times", [(1.0, 2.0, 1.0), (2.0, 1.0, 1.0)])
def test_zero_bubble_unequal_times_follow_the_formula(times):
    tl = d.pipeline_zero_bubble(4, 8, *times)
    assert tl.bubble_fraction == pytest.approx(d.zero_bubble_formula(4, 8, *times), abs=1e-12)


def test_zero_bubble_respects_dependencies_and_memory():
    p, m = 4, 12
    tl = d.pipeline_zero_bubble(p, m)
    at = {(b.kind, b.row, int(b.label)): b for b in tl.bars}
    assert len(at) == 3 * p * m                     # every F, B and W once
    for (kind, s, i), bar in at.items():
        if kind == "F" and s > 0:
            assert bar.start >= at[("F", s - 1, i)].end
        if kind == "B":
            assert bar.start >= at[("F", s, i)].end
            if s < p - 1:
                assert bar.start >= at[("B", s + 1, i)].end
        if kind == "W":
            assert bar.start >= at[("B", s, i)].end
    for s in range(p):          # one thing at a time on a device
        bars = [b for b in tl.bars if b.row == s]
        assert all(a.end <= b.start + 1e-12 for a, b in zip(bars, bars[1:]))
    # stage 1 never puts a W off: its activations peak at 1F1B's p micro-batches
    events = sorted([(b.start, 1) for b in tl.bars if b.row == 0 and b.kind == "F"]
                    + [(b.end, -1) for b in tl.bars if b.row == 0 and b.kind == "W"])
    held = peak = 0
    for _, step in events:
        held += step
        peak = max(peak, held)
    assert peak == p


@pytest.mark.parametrize("a, b, c", [(4, 4, 4), (2, 3, 4), (3, 3, 3)])
def test_torus3d_counts_degrees_and_wraparound(a, b, c):
    t = d.torus3d(a, b, c, label="100 GB/s")
    assert len(t.nodes) == a * b * c
    sides = (a, b, c)
    per_axis = [a * b * c if n > 2 else a * b * c // 2 for n in sides]
    assert len(t.links) == sum(per_axis)
    assert {t.degree(n.id) for n in t.nodes} == {sum(2 if n > 2 else 1 for n in sides)}
    wraps = [l for l in t.links if l.kind == "wrap"]
    assert len(wraps) == sum(a * b * c // n for n in sides if n > 2)
    assert ("n0_0_0" in t.neighbours(f"n{a - 1}_0_0")) and all(l.label == "100 GB/s" for l in t.links)
    with pytest.raises(ValueError):
        d.torus3d(1, 4, 4)


def test_rail_optimised_puts_gpu_i_of_every_server_on_leaf_i():
    servers, gpus, spines = 4, 8, 2
    t = d.rail_optimised(servers, gpus, spines, nvlink_label="450 GB/s", rail_label="50 GB/s")
    assert t.count("gpu") == servers * gpus and t.count("edge") == gpus and t.count("core") == spines
    for i in range(gpus):
        assert sorted(t.neighbours(f"rail{i}")) == sorted(
            [f"g{s}_{i}" for s in range(servers)] + [f"spine{j}" for j in range(spines)])
    for s in range(servers):
        assert t.degree(f"nv{s}") == gpus and t.degree(f"g{s}_0") == 2   # NVLink + its rail
    assert [g.label for g in t.groups] == [str(s) for s in range(servers)]
    assert {l.label for l in t.links if l.kind == "network"} == {"50 GB/s"}
    assert {l.label for l in t.links if l.kind == "nvlink"} == {"450 GB/s"}
    with pytest.raises(ValueError):
        d.rail_optimised(0, 8)


def test_scale_up_domains_joined_only_by_the_fabric():
    t = d.scale_up_domains(3, 4, fabric_switches=2, nvlink_label="nv", network_label="net")
    assert len(t.groups) == 3 and t.count("gpu") == 12
    nv = [l for l in t.links if l.kind == "nvlink"]
    net = [l for l in t.links if l.kind == "network"]
    assert len(nv) == 12 and len(net) == 12
    # NVLink never leaves a domain; every cross-domain path goes through a fabric switch
    dom = {m: g.label for g in t.groups for m in g.members}
    assert all(dom[l.a] == dom[l.b] for l in nv)
    assert all(l.b.startswith("fab") for l in net)
    assert t.degree("fab0") == 6 and t.degree("fab1") == 6
