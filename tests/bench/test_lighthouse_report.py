"""The Lighthouse rows of bench/results.md: the section is replaced in place, the goals read."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import lighthouse_audit as lh  # noqa: E402


def run(perf, tbt, cls=0.0, a11y=100):
    return {"performance": perf, "accessibility": a11y, "best-practices": 100, "seo": 100,
            "lcp_ms": 1500.0, "tbt_ms": tbt, "cls": cls, "failed": [], "runs": [perf], "tbt_runs": [tbt]}


def test_section_is_replaced_and_the_rest_kept(tmp_path):
    results = tmp_path / "results.md"
    results.write_text("# Bench\n\n## Search\nrows\n\n## Notes\n- a note\n", encoding="utf-8")
    lh.write_section(results, lh.report({"pages": {"ours, zh": run(97, 20)}, "runs": 1}))
    first = results.read_text(encoding="utf-8")
    assert first.index("## Search") < first.index(lh.BEGIN) < first.index("## Notes")
    lh.write_section(results, lh.report({"pages": {"ours, zh": run(90, 80)}, "runs": 1}))
    second = results.read_text(encoding="utf-8")
    assert second.count(lh.BEGIN) == 1 and second.count("## Notes") == 1
    assert "| ours, zh | 90 |" in second and "| ours, zh | 97 |" not in second
    assert second.endswith("- a note\n")


def test_goals_name_what_is_missed():
    pages = {"ours, zh": run(97, 20), "ours, en": run(93, 60, cls=0.05, a11y=98),
             "MkDocs Material, zh": run(80, 100)}
    lines = dict(line.split(": ", 1) for line in lh.goal_lines(pages))
    assert lines["ours, zh"] == "all met"
    missed = lines["ours, en"]
    for what in ("performance 93 < 95", "accessibility 98 < 100", "TBT 60 ms > 50 ms",
                 "TBT 60 ms > 0.5 × MkDocs' 100 ms", "CLS 0.050 > 0.02"):
        assert what in missed
    assert "MkDocs Material, zh" not in lines


def test_median_run_keeps_one_runs_numbers_together():
    runs = [run(90, 100), run(97, 10), run(95, 40)]
    best = lh.median_run(runs)
    assert (best["performance"], best["tbt_ms"]) == (95, 40)
    assert best["runs"] == [90, 97, 95]
