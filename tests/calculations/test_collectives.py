"""calculations/collectives.py and data/networks.json (chapter 7)."""
import json
import math
import os
import random
import subprocess

import pytest

from calculations import collectives as c
from calculations import hardware, models

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CALC = os.path.join(ROOT, "calculations", "calc.py")


# ------------------------------------------------------------------ link rates
def test_gbps_to_bytes_is_divide_by_eight():
    assert c.gbps_to_bytes(400) == 50e9
    assert c.gbps_to_bytes(800) == 100e9
    assert c.bytes_to_gbps(c.gbps_to_bytes(123.0)) == pytest.approx(123.0)


def test_pam4_lane_rate_with_transcoding_and_fec_is_106_25():
    # 100 Gb/s of data -> 106.25 Gb/s on the wire (53.125 GBd PAM4), the 802.3 lane rate.
    assert c.lane_signal_rate(100) == pytest.approx(106.25, abs=1e-12)
    # Intel's worked 50G example: 50 x 66/64 x 34/33 = 53.125 is the same ratio.
    assert c.lane_signal_rate(50) == pytest.approx(50 * 66 / 64 * 34 / 33)


def test_pcie_gen5_x16_after_128b130b():
    assert c.pcie_bytes_per_s(32, 16) == pytest.approx(32e9 * 16 * 128 / 130 / 8)
    # a Gen5 x16 link cannot carry an 800 Gb/s NIC but does carry 400 Gb/s
    assert c.gbps_to_bytes(400) < c.pcie_bytes_per_s(32, 16) < c.gbps_to_bytes(800)


def test_packet_efficiency_bounds_and_ib_vs_roce():
    roce = c.packet_efficiency(4096, 44, 38)
    ib = c.packet_efficiency(4096, 26, 0)
    assert 0.97 < roce < ib < 1
    assert c.packet_efficiency(1024) < roce  # smaller packets waste more


# ----------------------------------------------------------------- collectives
@pytest.mark.parametrize("n", [2, 3, 8, 1024])
def test_ideal_ring_busbw_equals_link_bandwidth(n):
    # nccl-tests' busbw is defined so that a bandwidth-optimal algorithm reports the link rate.
    bw = 50e9
    for r in (c.ring_allreduce(1e9, n, bw), c.ring_allgather(1e9, n, bw), c.ring_reduce_scatter(1e9, n, bw)):
        assert r.busbw == pytest.approx(bw)
        assert r.latency_s == 0 and r.dominant == "bandwidth"


def test_busbw_factors_match_nccl_tests():
    assert c.busbw_factor("allreduce", 8) == pytest.approx(1.75)
    assert c.busbw_factor("all_gather", 8) == pytest.approx(7 / 8)
    assert c.busbw_factor("reduce-scatter", 4) == pytest.approx(0.75)
    assert c.busbw_factor("alltoall", 2) == 0.5
    assert c.busbw_factor("broadcast", 64) == 1.0
    with pytest.raises(c.NetworkError):
        c.busbw_factor("scan", 4)
    assert c.bus_bandwidth("allreduce", 16, 1e9, 0.01) == pytest.approx(1e11 * 2 * 15 / 16)


def test_ring_allreduce_terms():
    r = c.ring_allreduce(141e9, 1024, 50e9, 9.6e-6)
    assert r.steps == 2046
    assert r.latency_s == pytest.approx(2046 * 9.6e-6)
    assert r.bandwidth_s == pytest.approx(2 * 1023 / 1024 * 141e9 / 50e9)
    assert r.time_s == pytest.approx(r.latency_s + r.bandwidth_s)
    assert r.dominant == "bandwidth"
    small = c.ring_allreduce(1e3, 1024, 50e9, 9.6e-6)
    assert small.dominant == "latency"


def test_tree_trades_bandwidth_for_latency():
    ring = c.ring_allreduce(1e6, 1024, 50e9, 5e-6)
    tree = c.tree_allreduce(1e6, 1024, 50e9, 5e-6)
    assert tree.steps == 20 and ring.steps == 2046
    assert tree.latency_s < ring.latency_s / 100
    assert tree.bandwidth_s >= ring.bandwidth_s
    assert tree.bandwidth_s == pytest.approx(ring.bandwidth_s * 1024 / 1023)
    assert tree.time_s < ring.time_s  # at 1 MB the ring's 2046 steps dominate
    big_ring, big_tree = c.ring_allreduce(1e10, 16, 50e9, 5e-6), c.tree_allreduce(1e10, 16, 50e9, 5e-6)
    assert big_ring.time_s < big_tree.time_s  # at 10 GB on 16 ranks the ring wins


def test_hierarchical_is_sum_of_its_phases():
    S, nodes, g = 141e9, 128, 8
    h = c.hierarchical_allreduce(S, nodes, g, 450e9, 50e9, 3.4e-6, 9.6e-6)
    rs, mid, ag = h.parts
    assert rs.op == "reducescatter" and ag.op == "allgather" and mid.ranks == nodes
    assert mid.size_bytes == pytest.approx(S / g)
    assert h.time_s == pytest.approx(rs.time_s + mid.time_s + ag.time_s)
    assert h.steps == 2 * (g - 1) + 2 * (nodes - 1)
    # bytes each node pushes through its NICs: g GPUs x 2(N-1)/N x S/g = 2(N-1)/N x S
    assert mid.bandwidth_s * 50e9 * g == pytest.approx(2 * (nodes - 1) / nodes * S)
    # with infinitely fast NVLink the hierarchical time is the inter-node ring on 1/g of the data
    h_inf = c.hierarchical_allreduce(S, nodes, g, 1e30, 50e9, 0, 0)
    assert h_inf.time_s == pytest.approx(c.ring_allreduce(S / g, nodes, 50e9).time_s)
    flat = c.ring_allreduce(S, nodes * g, 50e9, 9.6e-6)
    assert h.time_s < flat.time_s
    with pytest.raises(c.NetworkError):
        c.hierarchical_allreduce(S, nodes, g, 450e9, 50e9, inter="butterfly")


def test_all_to_all_splits_local_and_remote():
    r = c.all_to_all(64e6, 64, 50e9, 0.0, per_node=8, bw_intra=450e9)
    assert r.bandwidth_s == pytest.approx(56 / 64 * 64e6 / 50e9)
    one_node = c.all_to_all(64e6, 8, 50e9, 0.0, per_node=8, bw_intra=450e9)
    assert one_node.bandwidth_s == pytest.approx(7 / 8 * 64e6 / 450e9)
    with pytest.raises(c.NetworkError):
        c.all_to_all(1e6, 10, 50e9, per_node=8)


def test_collective_dispatch_and_errors():
    assert c.collective("allreduce", "ring", 1e9, 8, 50e9).algorithm == "ring"
    assert c.collective("allreduce", "hierarchical", 1e9, 16, 50e9, per_node=8, bw_intra=450e9).ranks == 16
    with pytest.raises(c.NetworkError):
        c.collective("allreduce", "hierarchical", 1e9, 12, 50e9, per_node=8)
    for bad in (dict(size_bytes=-1), dict(n=0), dict(bw=0)):
        args = dict(size_bytes=1e6, n=8, bw=1e9)
        args.update(bad)
        with pytest.raises(c.NetworkError):
            c.ring_allreduce(**args)


def test_to_dict_carries_derived_fields():
    d = c.hierarchical_allreduce(1e9, 4, 8, 450e9, 50e9).to_dict()
    assert set(("time_s", "dominant", "algbw", "busbw")) <= set(d)
    assert len(d["parts"]) == 3 and "time_s" in d["parts"][0]


# -------------------------------------------------------------------- topology
@pytest.mark.parametrize("k", [4, 8, 16, 32, 64, 128])
def test_full_fat_tree_formulas(k):
    two, three = c.fat_tree_full(k, 2), c.fat_tree_full(k, 3)
    assert two.endpoints == k * k // 2 and two.switches == k + k // 2
    assert three.endpoints == k ** 3 // 4 and three.switches == 5 * k * k // 4
    assert three.cores == (k // 2) ** 2 and three.pods == k
    for ft in (two, three):
        # every port of every switch is used in the full tree, and nothing is oversubscribed
        assert ft.switch_ports_used == ft.switches * k
        assert ft.oversubscription == 1
        assert ft.links == ft.tiers * ft.endpoints


def test_16k_gpu_three_tier_fabric():
    ft = c.fat_tree(16384, 64)
    assert ft.tiers == 3 and ft.leaves == 512 and ft.spines == 512 and ft.cores == 256
    assert ft.switches == 1280 == c.fat_tree_full(64, 3).switches // 4
    assert ft.links == 3 * 16384 and ft.transceivers() == 6 * 16384
    assert ft.transceivers(host_links_optical=False) == 4 * 16384
    assert ft.switch_ports_used <= ft.switches * 64


def test_rail_only_fabric_for_16k():
    ro = c.rail_only(2048, 8, 64)
    assert ro["tiers"] == 2 and ro["per_rail"].endpoints == 2048 == c.fat_tree_full(64, 2).endpoints
    assert ro["switches"] == 8 * 96 == 768
    assert ro["links"] == 2 * 16384


def test_oversubscription_split_and_savings():
    assert c.leaf_split(64, 1) == (32, 32)
    assert c.leaf_split(64, 3) == (48, 16)
    down, up = c.leaf_split(64, 2)
    assert down / up <= 2 and down + up == 64
    blocking = c.fat_tree(16384, 64, oversubscription=3)
    assert blocking.oversubscription == 3
    assert blocking.switches < c.fat_tree(16384, 64).switches
    assert blocking.leaf_spine_links == blocking.spine_core_links  # upper tiers stay non-blocking
    with pytest.raises(c.NetworkError):
        c.leaf_split(64, 0.5)


def test_topology_errors():
    with pytest.raises(c.NetworkError):
        c.fat_tree(3000, 64, tiers=2)
    with pytest.raises(c.NetworkError):
        c.fat_tree(10 ** 6, 64)
    with pytest.raises(c.NetworkError):
        c.fat_tree_full(63, 2)
    with pytest.raises(c.NetworkError):
        c.fat_tree_full(64, 4)


# ------------------------------------------------------------------ congestion
@pytest.mark.parametrize("flows,paths", [(1, 4), (2, 2), (4, 4), (8, 8), (16, 32), (5, 3)])
def test_ecmp_distribution_is_exact(flows, paths):
    d = c.ecmp_max_load(flows, paths)
    assert sum(d["p"].values()) == pytest.approx(1.0, abs=1e-12)
    assert d["p_no_collision"] == pytest.approx(c.ecmp_no_collision(flows, paths))
    assert max(1, math.ceil(flows / paths)) <= d["mean"] <= flows


def test_ecmp_against_simulation():
    rng = random.Random(7)
    flows = paths = 8
    trials = 20000
    total = 0
    for _ in range(trials):
        counts = [0] * paths
        for _ in range(flows):
            counts[rng.randrange(paths)] += 1
        total += max(counts)
    assert total / trials == pytest.approx(c.ecmp_max_load(flows, paths)["mean"], rel=0.02)


def test_ecmp_used_paths_tends_to_one_minus_one_over_e():
    assert c.ecmp_used_paths(1, 64) == pytest.approx(1)
    assert c.ecmp_used_paths(10 ** 5, 10 ** 5) / 10 ** 5 == pytest.approx(1 - 1 / math.e, abs=1e-4)
    assert c.ecmp_no_collision(9, 8) == 0


def test_incast_fill_time():
    assert c.incast_fill_time(8, 50e9, 7e6) == pytest.approx(7e6 / (7 * 50e9))
    assert c.incast_fill_time(1, 50e9, 1e6) == math.inf


# -------------------------------------------------------------------- distance
def test_fiber_delay_and_bdp():
    one_way = c.fiber_delay(1.0)
    assert 4.8e-6 < one_way < 5.0e-6
    assert c.fiber_delay(100) == pytest.approx(100 * one_way)
    rtt = 2 * c.fiber_delay(100)
    assert c.bdp_bytes(50e9, rtt) == pytest.approx(50e9 * rtt)
    assert c.lossless_headroom(50e9, one_way, mtu=4096) == pytest.approx(50e9 * 2 * one_way + 8192)


# -------------------------------------------------------------------- registry
def test_registry_entries_have_sources_and_consistent_capacity():
    for kind in ("nics", "switches", "links"):
        for e in c.data()[kind]:
            assert e["sources"], e["id"]
            for s in e["sources"]:
                assert s["title"] and s["url"].startswith("http")
            assert "derived" in e
    for s in c.switches():
        per_dir = s["radix"] * s["port_gbps"] / 1000
        factor = 2 if s["capacity_convention"] == "both directions added" else 1
        assert s["stated_capacity_tbps"] == pytest.approx(per_dir * factor), s["id"]
    # same headline, different switch: the InfiniBand 51.2 T counts both directions
    assert c.switch("qm9700")["stated_capacity_tbps"] == c.switch("sn5600")["stated_capacity_tbps"]
    assert c.switch("qm9700")["port_gbps"] * 2 == c.switch("sn5600")["port_gbps"]
    th5 = c.switch("tomahawk5")
    assert th5["serdes"]["lanes"] * th5["serdes"]["lane_gbps"] == th5["radix"] * th5["port_gbps"]


def test_registry_lookup():
    assert c.nic("ConnectX-7")["line_rate_gbps"] == 400
    assert c.nic("cx8")["line_rate_gbps"] == 800
    assert c.link("ib-ndr")["lane_data_gbps"] * c.link("ib-ndr")["lanes"] == 400
    with pytest.raises(c.NetworkError):
        c.nic("cx9000")
    nccl = c.data()["nccl"]
    lo, hi = nccl["measured"]["ndr_per_nic_busbw_gb_s"]
    assert lo < hi < c.gbps_to_bytes(400) / 1e9


def test_book_example_gradient_allreduce_dominated_by_bandwidth():
    m = models.get("llama-3.1-70b")
    S = m.params_total * 2
    h100 = hardware.get("h100")
    h = c.hierarchical_allreduce(S, 128, 8, h100.link_unidirectional, c.gbps_to_bytes(400), 3.4e-6, 9.6e-6)
    flat = c.ring_allreduce(S, 1024, c.gbps_to_bytes(400), 9.6e-6)
    assert h.dominant == flat.dominant == "bandwidth"
    assert 3 < flat.time_s / h.time_s < 6


# ------------------------------------------------------------------------- CLI
def run(*args):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return subprocess.run(["python3", CALC, *args], capture_output=True, text=True, cwd="/", env=env, timeout=120)


@pytest.mark.parametrize("args", [
    ["collective", "--ranks", "1024", "--model", "llama-3.1-70b", "--hardware", "h100"],
    ["collective", "--ranks", "64", "--size", "1e9", "--op", "alltoall", "--nic", "cx7"],
    ["fat-tree", "--endpoints", "16384", "--radix", "64"],
    ["fat-tree", "--endpoints", "16384", "--radix", "64", "--rails", "8"],
    ["networks"],
    ["link", "--gbps", "400", "--km", "100"],
])
@pytest.mark.parametrize("fmt", ["text", "md", "csv", "json"])
def test_cli_commands_all_formats(args, fmt):
    r = run(*args, "--format", fmt)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()
    if fmt == "json":
        json.loads(r.stdout)
    if fmt == "md":
        assert "|---" in r.stdout or "|--" in r.stdout


def test_cli_collective_json_values():
    r = run("collective", "--ranks", "1024", "--model", "llama-3.1-70b", "--hardware", "h100", "--format", "json")
    d = json.loads(r.stdout)
    algos = {x["algorithm"]: x for x in d["results"]}
    assert algos["ring"]["size_bytes"] == 70_553_706_496 * 2
    assert algos["ring"]["bandwidth_s"] == pytest.approx(2 * 1023 / 1024 * 141_107_412_992 / 50e9)
    assert d["intra_bytes_per_s"] == 450e9


def test_cli_errors_exit_2_without_traceback():
    for args in (["fat-tree", "--endpoints", "10000000", "--radix", "64"],
                 ["collective", "--ranks", "8", "--nic", "nope", "--size", "1e6"],
                 ["collective", "--ranks", "8"]):
        r = run(*args)
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    r = run("fat-tree", "--endpoints", "-3")
    assert r.returncode == 2


def test_ecmp_tail_stops_where_the_mass_left_is_negligible():
    # Rounding holds P(max <= c) just below 1 - 1e-15 for 64 flows on 64 paths; the loop used
    # to run on to c = 64 and book the residue (1e-14) as P(max = 64), whose true value is
    # 64^-63. The union bound says P(max >= 24) < 1e-20 here.
    d = c.ecmp_max_load(64, 64)
    assert max(d["p"]) < 24
    assert sum(d["p"].values()) == pytest.approx(1.0, abs=1e-12)
    assert c.ecmp_max_load(3, 1)["p"] == {3: 1.0}


def test_topology_ring_latency_counts_network_steps_once_per_node_boundary():
    lat = c.data()["nccl"]["latency_model_us"]
    one_node = c.topology_ring_latency(8, 8)          # all 14 steps on NVLink
    assert one_node == pytest.approx(1e-6 * (lat["ring_simple_base"] + 14 * lat["ring_simple_nvlink_step"]))
    # 1,024 GPUs on 128 nodes: 2 x 127 of the 2,046 steps cross the network
    t = c.topology_ring_latency(1024, 8)
    assert t == pytest.approx(1e-6 * (lat["ring_simple_base"] + (2046 - 254) * lat["ring_simple_nvlink_step"]
                                      + 254 * lat["ring_simple_net_step"]))
    assert t > one_node
    with pytest.raises(c.NetworkError):
        c.topology_ring_latency(12, 8)


def test_measured_nic_busbw_is_the_middle_of_the_measured_range():
    lo, hi = c.data()["nccl"]["measured"]["ndr_per_nic_busbw_gb_s"]
    assert lo * 1e9 < c.measured_nic_busbw() < hi * 1e9
