"""The first diagrams of chapters 1 to 6, 9, 10 (ZeRO), 11 and 12, drawn as the build draws them, in
every edition: each number drawn is the chapter's own cell, formatted like the prose; the words
are the edition's; the text alternative is filled from the data; text contrast >= 4.5:1 in
both site themes; every filled kind is named, not only coloured."""
from __future__ import annotations

import re

import pytest

from bookkit.locale.numbers import format_value, parse_spec
from bookkit.resolve.figures import LANGS, draw_figure
from bookkit.workers import run_jobs

from bookkit.resolve.choices import Declarations
from test_diagram_figures import ROOT, text_contrasts, words


def chapter_values(chapter: str) -> dict:
    """The original chapter's calculation cells, run in order with each what-if choice at its
    default (what the prose binds)."""
    text = (ROOT / "manuscripts" / chapter).read_text(encoding="utf-8")
    ns: dict = {}
    Declarations(chapter).install(ns)
    for block in re.findall(r"^```calc[^\n]*\n(.*?)^```", text, re.M | re.S):
        exec(compile(block, chapter, "exec"), ns)   # noqa: S102 - the book's own cells
    return ns

#: diagram -> (chapter, the chapter's cells the diagram must draw, each equal to the cell)
DIAGRAMS = {
    "ch01_hbm_map": ("01-getting-started.md",
                     ("h100_hbm", "qwen_weights_bf16", "long_context", "qwen_kv_long",
                      "kv_per_token")),
    "ch01_stack": ("01-getting-started.md",
                   ("stack_request_budget", "stack_step_budget", "stack_kernels",
                    "stack_launch_each", "stack_gpu_time", "h100_bw", "stack_context")),
    "ch02_layer": ("02-model-architecture.md",
                   ("q8_L", "q8_H", "q8_I", "q8_q_width", "q8_kv_width", "q8_group", "q8_p_attn",
                    "q8_p_mlp", "q8_mlp_share", "q8_p_layer")),
    "ch02_moe_dispatch": ("02-model-architecture.md",
                          ("mix_e", "mix_k", "mix_batch_small", "mix_touched_expected")),
    "ch03_request_life": ("03-workloads.md",
                          ("prompt_tokens", "output_tokens", "batch_big", "ttft_q", "tpot_q",
                           "e2e_q")),
    "ch03_agent_calls": ("03-workloads.md",
                         ("agent_calls", "agent_base", "agent_model_out", "agent_tool_out",
                          "agent_prefill_nocache", "agent_prefill_cache", "agent_prefill_ratio",
                          "agent_hit_rate")),
    "ch04_hierarchy": ("04-accelerators.md",
                       ("h100_sms", "smem_per_sm", "regs_per_sm", "h100_smem_total",
                        "h100_regs_total", "l2_bytes", "h100_onchip_total", "h100_hbm", "h100_bw",
                        "hbm_over_onchip")),
    "ch04_tile_pipeline": ("04-accelerators.md", ("tile_bytes", "stages_fit", "db_speedup_max")),
    "ch05_launch_timeline": ("05-operators-runtime.md",
                             ("k_layer_fused", "layer_k_short", "launch_s", "graph_node_s",
                              "layer_k_time")),
    "ch05_wave_tiles": ("05-operators-runtime.md",
                   ("hidden", "tile_m", "tile_n", "h100_sms", "q1152_tiles", "q1152_waves",
                    "q1152_last", "q1152_eff")),
    "ch06_nvl72": ("06-supernodes.md",
                   ("nvl_devices", "nv5_links", "nv5_per_link", "nv5_uni", "ib400_uni",
                    "nv5_over_ib", "nvl_aggregate", "nvl_memory")),
    "ch06_tp_timeline": ("06-supernodes.md",
                         ("tp_n", "llama_layers", "allreduces_per_token", "h100_8_read",
                          "h100_8_work", "h100_8_comm", "h100_8_time", "h100_8_share")),
    "ch09_pd_flow": ("09-distributed-inference.md",
                     ("prompt", "nic_gbps", "dg_kv", "dg_tx", "dg_rc", "dg_ratio", "dg_be_gbps")),
    "ch09_ep_placement": ("09-distributed-inference.md",
                          ("ds_experts", "gpus_prefill", "skew", "red", "eplb_own", "hot_share",
                           "bal0", "bal32")),
    "ch10_zero_stages": ("10-training-systems.md",
                         ("dp_z", "bytes_opt", "bytes_w", "bytes_g", "z0_state", "z1_state",
                          "z2_state", "z3_state")),
    "ch11_packing": ("11-scheduling-environments.md",
                     ("gpn", "u_frag", "p_free", "cluster_nodes", "free_scattered", "free_packed")),
    "ch11_tool_call": ("11-scheduling-environments.md",
                       ("ctx", "tool_s", "kv_ctx", "kv_share", "hold_gpu_s", "xfer_s", "off_gpu_s",
                        "rec_s", "rec_gpu_s")),
    "ch12_tiers": ("12-device-edge-cloud.md",
                   ("mac_bw", "mac_tps", "mac_ttft", "agx_bw", "edge_batch", "edge_tps_total",
                    "edge_tps_seq", "h100_bw", "h100_pre", "cloud_ttft", "dist_edge_km",
                    "dist_far_km", "rtt_floor_edge", "rtt_floor_far", "rtt", "uplink_slow",
                    "up_prompt")),
    "ch12_streaming": ("12-device-edge-cloud.md",
                       ("prompt", "out_demo", "big_batch", "mac_pre", "mac_ttft", "mac_tps",
                        "mac_total_demo", "cloud_ttft", "h100_b1_tps", "h100_b64_seq_tps",
                        "cloud_total_b1", "cloud_total_b64", "rtt")),
}


@pytest.fixture(scope="module")
def drawn() -> dict:
    jobs = [(f"{stem}|{lang}", draw_figure,
             (str(ROOT / "manuscripts" / "figures" / f"{stem}.py"), lang, str(ROOT), ("svg",),
              (), words(stem, lang)))
            for stem in DIAGRAMS for lang in LANGS]
    results = run_jobs(jobs)
    for name, result in results.items():
        assert result.ok, (name, result.error)
    return {name: r.value for name, r in results.items()}


@pytest.fixture(scope="module")
def cells() -> dict:
    return {chapter: chapter_values(chapter) for chapter, _ in DIAGRAMS.values()}


@pytest.mark.parametrize("stem", DIAGRAMS)
@pytest.mark.parametrize("lang", LANGS)
def test_drawn_numbers_are_the_chapters_cells(drawn, cells, stem, lang):
    chapter, names = DIAGRAMS[stem]
    value = drawn[f"{stem}|{lang}"]
    by_name = {b["name"]: b for b in value["bound"]}
    for name in names:
        assert name in by_name, f"{stem} does not draw {name}"
        b = by_name[name]
        expected = format_value(cells[chapter][name], parse_spec(b["spec"]), lang)
        assert b["text"] == expected, (stem, name, b["text"], expected)
        shown = " ".join(value["texts"]) + " " + value["description"]
        assert b["text"] in shown, (stem, name, "bound but neither drawn nor described")


def fragments(table: dict) -> list[str]:
    """The fixed words of a figure's table (placeholders cut out), the alt text aside."""
    return [f.strip() for k, w in table.items() if k != "alt"
            for f in re.split(r"\{[^}]*\}", w) if len(f.strip()) >= 2]


@pytest.mark.parametrize("stem", DIAGRAMS)
@pytest.mark.parametrize("lang", LANGS)
def test_words_are_the_editions_and_the_description_is_filled(drawn, stem, lang):
    value = drawn[f"{stem}|{lang}"]
    mine = words(stem, lang)
    drawn_text = " ".join(value["texts"])
    missing = [f for f in fragments(mine) if f not in drawn_text]
    assert not missing, (stem, lang, missing)
    for other in LANGS:
        longest = max(fragments(words(stem, other)), key=len)
        if longest not in " ".join(fragments(mine)):
            assert longest not in drawn_text, (stem, lang, "draws", other, longest)
    desc = value["description"]
    assert desc and "{" not in desc and desc.startswith(mine["alt"].split("{")[0])


@pytest.mark.parametrize("stem", DIAGRAMS)
def test_text_contrast_at_least_4_5_in_both_themes(drawn, stem):
    for lang in LANGS:
        found = text_contrasts(drawn[f"{stem}|{lang}"]["site"].decode())
        assert len(found) >= 3, (stem, "the diagram's texts were not found in the SVG")
        low = [f for f in found if f[2] < 4.5]
        assert not low, (stem, lang, low)
