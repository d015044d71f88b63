"""`make bench`'s figure row: bench/figure_cpu.py measures real drawings (no timing is
asserted, only what is counted), and bench/run.py writes its numbers as a summary row and a
section of results.md."""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import figure_cpu  # noqa: E402
import run  # noqa: E402


def test_measure_counts_images_and_svg_bytes_per_chapter_page(in_fork):
    r = in_fork(figure_cpu.measure, str(REPO), ("svg",), "ch07_fat_tree")
    assert r["failed"] == []
    assert r["scripts"] == 1 and r["images"] == 3          # one script x three languages
    assert r["pages"] == 3                                   # chapter 7 in each language
    assert 5 < r["svg_page_mean_gz_kb"] < r["svg_page_mean_kb"] <= r["svg_page_max_kb"]
    assert r["mean_ms"] > 0 and r["ratio"] == r["mean_ms"] / figure_cpu.BASELINE_MS


def test_report_has_the_row_and_the_section():
    fc = {"images": 207, "scripts": 69, "cpu_total_s": 20.7, "mean_ms": 100.0, "median_ms": 90.0,
          "baseline_ms": 240.0, "goal_ms": 96.0, "ratio": 100 / 240, "pages": 39,
          "svg_page_mean_kb": 500.0, "svg_page_max_kb": 700.0, "svg_page_mean_gz_kb": 100.0,
          "slowest": [[300, "ch10_1f1b_schedule|en"]], "failed": []}
    rows = "\n".join(run.real_summary_rows({"figure_cpu": fc}))
    assert ("| average CPU per figure image (207 images, SVG) | 100 ms | 240 ms (baseline, "
            "recorded 2026-12-02) | 0.42× |") in rows
    assert "| **no** |" in rows.split("average CPU")[1].split("\n")[0]      # 100 ms > 96 ms
    section = "\n".join(run.figure_cpu_section(fc, None))
    assert "**100 ms**" in section and "39 pages" in section
    assert "could not be drawn in this run" in section
    same_run = dict(fc, baseline_ms=300.0, goal_ms=120.0, ratio=100 / 300, baseline_same_run=True,
                    baseline_passes=2, baseline_images=310, baseline_partial_images=40,
                    baseline_median_ms=250.0)
    rows = "\n".join(run.real_summary_rows({"figure_cpu": same_run}))
    assert "| 100 ms | 300 ms (baseline, same run) | 0.33× | ≤ 0.4× (120 ms) | yes |" in rows
    section = "\n".join(run.figure_cpu_section(same_run, None))
    assert ("310 images: 2 complete passes and 40 images of the pass stopped" in section
            and "(0.36×)" in section)
    missing = "\n".join(run.figure_cpu_section(None, "bench/figure_cpu.py exited 1: boom"))
    assert "Not measured" in missing and "boom" in missing


def test_measure_writes_a_line_per_image_as_it_goes(tmp_path, in_fork):
    """The progress file (`--progress`): a baseline pass stopped when the book's run ends
    still counts the images it drew."""
    progress = tmp_path / "progress"
    r = in_fork(figure_cpu.measure, str(REPO), ("svg",), "ch07_fat_tree", str(progress))
    lines = [line.split("\t") for line in progress.read_text(encoding="utf-8").splitlines()]
    assert [name for name, _ in lines] == [f"ch07_fat_tree|{lang}"
                                           for lang in ("zh-Hans", "en", "zh-Hant")]
    assert {name: round(float(s), 6) for name, s in lines} == {
        name: round(s, 6) for name, s in r["per_image_s"].items()}


def test_the_baseline_commit_is_unpacked_and_drawn_by_its_own_code(tmp_path):
    """The same-run ratio's other half: issue 26's baseline commit, from git, its figures drawn
    by its own (older) pipeline with this checkout's packages."""
    import json
    import subprocess
    base = run._figure_baseline_checkout(tmp_path)
    assert (base / "bookkit" / "resolve" / "figures.py").is_file()
    assert not (base / "book-en" / "figures.yml").exists()      # before the words moved
    out = tmp_path / "base.json"
    subprocess.run([sys.executable, str(REPO / "bench" / "figure_cpu.py"), "--root", str(base),
                    "--only", "ch01_memory", "--json", str(out)], check=True, cwd=base,
                   capture_output=True)
    r = json.loads(out.read_text(encoding="utf-8"))
    assert r["failed"] == [] and r["scripts"] == 1 and r["images"] == 3 and r["mean_ms"] > 0


def test_the_floor_figure_is_drawn_in_every_language_and_has_no_missing_glyph(in_fork):
    """The floor (`--floor`): the least figure, drawn through the same worker body in each
    edition's language; a missing glyph would fail it (and make it a cheaper, wrong floor)."""
    r = in_fork(figure_cpu.measure_floor, str(REPO), 2)
    assert set(r["floor_ms_per_lang"]) == {"zh-Hans", "en", "zh-Hant"}
    assert r["floor_runs"] == 2 and r["floor_ms"] in sorted(r["floor_ms_per_lang"].values())
    assert all(v > 0 for v in r["floor_ms_per_lang"].values())


def test_the_cold_build_floor_row_is_the_images_times_the_floor_over_the_cores():
    cold = {"median": 43.0, "min": 42.0, "max": 44.0, "n": 3, "samples": [43.0],
            "cpu_median": 80.0, "rss_mib": 480.0, "figure_images": 900,
            "pipeline_timings": "13 chapters' cells executed; cells 3000 ms, numbering 2000 ms, "
                                "figures 36000 ms, chapters 500 ms, math wait 20 ms"}
    fc = {"images": 585, "scripts": 195, "cpu_total_s": 40.0, "mean_ms": 70.0,
          "median_ms": 60.0, "baseline_ms": 175.0, "goal_ms": 70.0, "ratio": 0.4, "pages": 42,
          "svg_page_mean_kb": 1000.0, "svg_page_max_kb": 1700.0, "svg_page_mean_gz_kb": 250.0,
          "slowest": [[300, "a|en"]], "fastest": [[23, "b|en"]], "failed": [],
          "floor_ms": 25.0, "floor_ms_per_lang": {"zh-Hans": 26.0, "en": 25.0, "zh-Hant": 24.0},
          "floor_runs": 30}
    floor = run.cold_floor({"real_cold": cold, "figure_cpu": fc})
    cores = run.os.cpu_count()
    assert floor["figures_s"] == 900 * 25.0 / 1000 / cores
    assert floor["others_s"] == (3000 + 2000 + 500 + 20) / 1000     # every stage but figures
    rows = "\n".join(run.real_summary_rows({"real_cold": cold, "figure_cpu": fc}))
    assert f"(900 images × 25.0 ms, the least figure's CPU, ÷ {cores} cores)" in rows
    section = "\n".join(run.figure_cpu_section(fc, None))
    assert "median **25.0 ms** per image" in section and "`b|en` 23 ms" in section
    assert "2.8× the floor" in section
    assert run.cold_floor({"real_cold": cold}) is None       # no floor without both rows
