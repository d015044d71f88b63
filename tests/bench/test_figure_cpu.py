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


def test_measure_counts_images_and_svg_bytes_per_chapter_page():
    r = figure_cpu.measure(str(REPO), ("svg",), only="ch07_fat_tree")
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


def test_measure_writes_a_line_per_image_as_it_goes(tmp_path):
    """The progress file (`--progress`): a baseline pass stopped when the book's run ends
    still counts the images it drew."""
    progress = tmp_path / "progress"
    r = figure_cpu.measure(str(REPO), ("svg",), only="ch07_fat_tree", progress=str(progress))
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
