"""Tests for calculations/scaleup.py (chapter 6): link registry, TP all-reduce, EP all-to-all, domain fit."""
import json
import subprocess
import sys
import os

import pytest

from calculations import scaleup, formulas, hardware, models

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CALC = os.path.join(ROOT, "calculations", "calc.py")


# ------------------------------------------------------------------ registry
def test_every_entry_has_sources_with_url_and_title():
    with open(scaleup.DATA_FILE, encoding="utf-8") as f:
        data = json.load(f)
    for entry in data["links"] + data["domains"]:
        assert entry["sources"], entry["id"]
        for s in entry["sources"]:
            assert s["url"].startswith("https://"), entry["id"]
            assert len(s["title"]) > 10, entry["id"]
        assert "derived" in entry, entry["id"]


def test_latency_is_always_marked_as_not_read():
    # latency is an assumption (or a paper's bound): every link must say so in `derived`
    for lk in scaleup.links():
        assert "latency_us" in lk.derived, lk.id


def test_bidirectional_is_twice_unidirectional():
    for lk in scaleup.links():
        assert lk.bidirectional == pytest.approx(2 * lk.unidirectional), lk.id


def test_nvlink_generations_match_hardware_registry():
    # the accelerator registry and the link registry must agree on NVLink per-GPU bandwidth
    for hw_id, link_id in (("a100", "nvlink3"), ("h100", "nvlink4"), ("h200", "nvlink4"),
                           ("b200", "nvlink5"), ("gb200", "nvlink5")):
        h = hardware.get(hw_id)
        lk = scaleup.link(link_id)
        assert lk.unidirectional == h.link_unidirectional
        assert lk.bidirectional == h.link_bidirectional


def test_per_link_times_links_is_per_device():
    for lk in scaleup.links():
        if lk.links_per_device and lk.per_link_unidirectional:
            assert lk.links_per_device * lk.per_link_unidirectional == pytest.approx(lk.unidirectional), lk.id


def test_pcie_generations_double():
    p4, p5, p6 = (scaleup.link(x).unidirectional for x in ("pcie4", "pcie5", "pcie6"))
    assert p5 == 2 * p4 and p6 == 2 * p5
    # NVLink 4 is an order of magnitude above PCIe 5 x16
    assert scaleup.link("nvlink4").unidirectional / p5 > 7


def test_nvl72_aggregate_and_pool_match_stated():
    d = scaleup.domain("gb200-nvl72")
    assert d.devices == 72
    # NVIDIA states 130 TB/s and 13.4 TB: our derived values must round to them
    assert round(d.aggregate_bidirectional / 1e12) == d.stated["aggregate_bidirectional_tb_s_stated"]
    assert round(d.memory_bytes / 1e12, 1) == d.stated["pooled_hbm_tb_stated"]
    assert d.device_memory_bytes == hardware.get("gb200").hbm_bytes
    # the power-shelf rating bounds the reported draw
    assert d.system_power_w < d.stated["power_shelf_kw"] * 1e3


def test_domain_memory_matches_hardware_registry():
    for d in scaleup.domains():
        if d.hardware:
            assert d.device_memory_bytes == hardware.get(d.hardware).hbm_bytes, d.id


def test_unknown_link_suggests():
    with pytest.raises(scaleup.ScaleupError, match="nvlink4"):
        scaleup.link("nvlnk4")


# --------------------------------------------------------------- all-reduce
def test_ring_volume():
    assert scaleup.ring_allreduce_volume(1000, 1) == 0
    assert scaleup.ring_allreduce_volume(1000, 2) == 1000
    assert scaleup.ring_allreduce_volume(800, 8) == pytest.approx(1400)
    # tends to 2S, never reaches it
    assert scaleup.ring_allreduce_volume(1, 10**6) < 2


def test_allreduce_time_alpha_beta():
    lk = scaleup.link("nvlink4")
    s = 16384
    t = scaleup.allreduce_time(s, 8, lk)
    assert t == pytest.approx(14 * lk.latency_s + 2 * 7 / 8 * s / lk.unidirectional)
    assert scaleup.allreduce_time(s, 8, lk, latency_s=0) == pytest.approx(2 * 7 / 8 * s / 450e9)
    assert scaleup.allreduce_time(s, 1, lk) == 0
    # switch reduction: constant latency in n
    assert scaleup.allreduce_time(0, 72, "nvlink5", "switch") == pytest.approx(2e-6)
    with pytest.raises(scaleup.ScaleupError):
        scaleup.allreduce_time(s, 8, lk, "tree")


def test_tp_comm_reduces_to_formulas_decode_step_without_latency():
    m = models.get("llama-3.1-70b")
    for n in (2, 4, 8):
        ref = formulas.decode_step(m, batch=16, context=4096, hw="h100", devices=n)
        c = scaleup.tp_layer_comm(m, 16, n, "nvlink4", latency_s=0)
        assert c.time_s == pytest.approx(ref.comm_time_s, rel=1e-12)
        d = scaleup.tp_decode(m, "h100", n, "nvlink4", batch=16, context=4096, latency_s=0)
        assert d.time_s == pytest.approx(ref.time_s, rel=1e-12)


def test_tp_message_is_tokens_times_hidden_times_two_bytes():
    m = models.get("llama-3.1-70b")
    c = scaleup.tp_layer_comm(m, 1, 8, "nvlink4")
    assert c.allreduce_bytes == 8192 * 2
    assert c.latency_part_s < c.time_per_layer_s
    assert c.time_s == pytest.approx(c.time_per_layer_s * 80)


def test_tp_decode_latency_dominates_at_batch_one_and_grows_with_n():
    m = "llama-3.1-70b"
    d8 = scaleup.tp_decode(m, "h100", 8, "nvlink4", batch=1)
    assert d8.comm_latency_s / d8.comm_time_s > 0.9
    d72 = scaleup.tp_decode(m, "gb200", 72, "nvlink5", batch=1)
    d72s = scaleup.tp_decode(m, "gb200", 72, "nvlink5", batch=1, algorithm="switch")
    # a 72-GPU ring costs more than the weight read it saves; in-switch reduction fixes most of it
    assert d72.comm_time_s > d72.work_time_s
    assert d72s.time_s < d72.time_s
    # weight bytes per device are a part of the whole
    one = formulas.decode_step(models.get(m), 1, 4096, "h100")
    assert d8.weight_bytes_per_device * 8 == pytest.approx(one.weight_bytes)
    assert one.weight_bytes <= models.get(m).params_total * 2


def test_breakeven_batch_is_the_first_crossing():
    # without latency, TP 8 on H100 NVLink never lets communication catch up with the work
    assert scaleup.tp_breakeven_batch("llama-3.1-70b", "h100", 8, "nvlink4", latency_s=0) is None
    assert scaleup.tp_compute_ratio("llama-3.1-70b", "h100", 8, "nvlink4") < 1
    # TP 72 on NVLink 5 does, at a finite batch
    b = scaleup.tp_breakeven_batch("llama-3.1-70b", "gb200", 72, "nvlink5", latency_s=0)
    assert b is not None and b > 1
    hi = scaleup.tp_decode("llama-3.1-70b", "gb200", 72, "nvlink5", b, latency_s=0)
    lo = scaleup.tp_decode("llama-3.1-70b", "gb200", 72, "nvlink5", b - 1, latency_s=0)
    assert hi.comm_time_s >= hi.work_time_s and lo.comm_time_s < lo.work_time_s
    assert scaleup.tp_compute_ratio("llama-3.1-70b", "gb200", 72, "nvlink5") > 1


def test_compute_ratio_closed_form():
    # (n-1) F / (3 h W) with P ~ 12 h^2 L: within 15 % of the exact ratio for a dense model
    m = models.get("llama-3.1-70b")
    for hw, n, lk in (("h100", 8, "nvlink4"), ("gb200", 72, "nvlink5")):
        exact = scaleup.tp_compute_ratio(m, hw, n, lk)
        approx = (n - 1) * hardware.get(hw).peak_flops("bf16") / (3 * m.hidden_size * scaleup.link(lk).unidirectional)
        assert abs(exact / approx - 1) < 0.15


# ------------------------------------------------------------- all-to-all
def test_deepseek_dispatch_and_combine_bytes():
    e = scaleup.ep_alltoall("deepseek-v3", 128, 64, "ib-ndr-400")
    assert e.dispatch_bytes_per_token == 8 * 7168 * 1          # FP8
    assert e.combine_bytes_per_token == 8 * 7168 * 2           # BF16
    assert e.remote_fraction == pytest.approx(63 / 64)
    assert e.moe_layers == 58
    assert e.bytes_per_device == pytest.approx(128 * (57344 + 114688) * 63 / 64 * 58)
    assert e.dispatch_bytes_per_layer < e.bytes_per_device_per_layer < e.bytes_per_device
    # the DeepEP low-latency benchmark (EP64, 400 Gb/s) measured 173 us / 314 us: our
    # bandwidth bound must sit below each measurement and within a factor of 1.5
    assert 173e-6 / 1.5 < e.dispatch_time_s < 173e-6
    assert 314e-6 / 1.5 < e.combine_time_s < 314e-6


def test_ep_inside_domain_faster_than_across_nodes():
    inside = scaleup.ep_alltoall("deepseek-v3", 128, 64, "nvlink5")
    nodes = scaleup.ep_alltoall("deepseek-v3", 128, 64, "nvlink4", devices_per_node=8, inter_link="ib-ndr-400")
    assert nodes.offnode_fraction == pytest.approx(56 / 64)
    assert inside.bytes_per_device == pytest.approx(nodes.bytes_per_device)   # same bytes, different wires
    assert nodes.time_s / inside.time_s > 10
    with pytest.raises(scaleup.ScaleupError):
        scaleup.ep_alltoall("deepseek-v3", 128, 64, "nvlink4", devices_per_node=8)
    with pytest.raises(scaleup.ScaleupError):
        scaleup.ep_alltoall("qwen3-8b", 128, 8, "nvlink4")


def test_ep_one_device_sends_nothing():
    e = scaleup.ep_alltoall("deepseek-v3", 128, 1, "nvlink5")
    assert e.bytes_per_device == 0 and e.time_s == 0


# -------------------------------------------------------------- domain fit
def test_domain_fit_matches_memory_plan():
    for mid in ("llama-3.1-70b", "deepseek-v3", "qwen3-235b-a22b"):
        for dom, hw in (("hgx-h100", "h100"), ("gb200-nvl72", "gb200")):
            d = scaleup.domain(dom)
            ours = scaleup.domain_fit(mid, dom, context=8192, batch=4, usable_fraction=0.9)
            ref = formulas.memory_plan(models.get(mid), hw, devices=d.devices, batch=4, context=8192,
                                       usable_fraction=0.9)
            assert (ours.weight_bytes, ours.kv_bytes, ours.total_bytes, ours.fits, ours.max_batch) == \
                (ref.weight_bytes, ref.kv_bytes, ref.total_bytes, ref.fits, ref.max_batch)


def test_which_models_fit_where():
    assert not scaleup.domain_fit("deepseek-v3", "hgx-h100").fits
    assert not scaleup.domain_fit("deepseek-v3", "hgx-h100", dtype="fp8").fits
    assert scaleup.domain_fit("deepseek-v3", "gb200-nvl72").fits
    assert not scaleup.domain_fit("llama-3.1-405b", "hgx-h100").fits
    assert scaleup.domain_fit("llama-3.1-70b", "hgx-h100").fits
    assert scaleup.domain_fit("kimi-k2", "cloudmatrix-384").fits


# --------------------------------------------------------------------- CLI
def _run(*args):
    return subprocess.run([sys.executable, CALC, *args], capture_output=True, text=True, timeout=60)


def test_cli_commands_and_formats():
    r = _run("links", "--format", "json")
    assert r.returncode == 0, r.stderr
    ids = [x["id"] for x in json.loads(r.stdout)]
    assert "nvlink5" in ids and "ub-cm384" in ids
    r = _run("links", "--domains", "--format", "csv")
    assert r.returncode == 0 and "gb200-nvl72" in r.stdout
    r = _run("tp-comm", "--model", "llama-3.1-70b", "--hardware", "h100", "-n", "1", "8", "--format", "json")
    rows = json.loads(r.stdout)
    assert [x["devices"] for x in rows] == [1, 8] and rows[0]["comm_time_s"] == 0
    r = _run("ep-comm", "--model", "deepseek-v3", "--format", "md")
    assert r.returncode == 0 and r.stdout.startswith("| model")
    r = _run("domain-fit", "--model", "deepseek-v3", "--domain", "hgx-h100", "--format", "json")
    assert json.loads(r.stdout)[0]["fits"] is False


def test_cli_errors_are_one_line():
    r = _run("tp-comm", "--model", "llama-3.1-70b", "--link", "nvlnk9")
    assert r.returncode == 2 and "unknown link" in r.stderr and "Traceback" not in r.stderr
    r = _run("ep-comm", "--model", "qwen3-8b")
    assert r.returncode == 2 and "no MoE" in r.stderr


def test_measurements_have_sources_and_sit_below_specs():
    m = scaleup.measurement("deepep-low-latency-h800")
    assert len(m["ep"]) == len(m["dispatch_us"]) == len(m["combine_us"])
    assert m["sources"][0]["url"].startswith("https://github.com/deepseek-ai/DeepEP")
    # a measured link never beats its specification
    assert scaleup.measurement("nvlink-h200-pair")["unidirectional_gb_s"] * 1e9 < scaleup.link("nvlink4").unidirectional
    assert scaleup.link("pcie5").measured_unidirectional < scaleup.link("pcie5").unidirectional
    with pytest.raises(scaleup.ScaleupError):
        scaleup.measurement("nope")


def test_oneshot_and_twoshot_allreduce():
    """Small messages: one step (one-shot) or two (two-shot) instead of 2(n-1) ring steps; the
    one-shot pays (n-1) x S in bytes, so it loses to two-shot once the message is large."""
    from calculations import scaleup
    lk = scaleup.link("nvlink4")
    a, b = lk.latency_s, lk.unidirectional
    s = 16384
    assert scaleup.allreduce_time(s, 8, lk, "oneshot") == pytest.approx(a + 7 * s / b)
    assert scaleup.allreduce_time(s, 8, lk, "twoshot") == pytest.approx(2 * a + 2 * 7 / 8 * s / b)
    ring = scaleup.allreduce_time(s, 8, lk, "ring")
    assert scaleup.allreduce_time(s, 8, lk, "oneshot") < scaleup.allreduce_time(s, 8, lk, "twoshot") < ring
    big = 256 * 2 ** 20
    assert scaleup.allreduce_time(big, 8, lk, "twoshot") < scaleup.allreduce_time(big, 8, lk, "oneshot")
    with pytest.raises(scaleup.ScaleupError, match="'oneshot' or 'twoshot'"):
        scaleup.allreduce_time(s, 8, lk, "tree")
