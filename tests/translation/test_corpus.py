"""The real-world corpus: precision >= 0.9 and recall = 1.0 over chapter pairs written in the
style of real translations, with seeded faults (tests/fixtures/translation/corpus/manifest.json).
The score is printed at the end of the run by the terminal-summary hook in tests/conftest.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus_score import CORPUS, load_manifest, score_corpus  # noqa: E402


def test_corpus_is_large_enough_to_mean_something():
    manifest = load_manifest()
    pairs = manifest["pairs"]
    assert len(pairs) >= 5 and {p["lang"] for p in pairs} == {"en", "zh-tw"}
    assert sum(len(p["faults"]) for p in pairs) >= 40
    kinds = {f["kind"] for p in pairs for f in p["faults"]}
    assert {"changed", "missing", "extra", "structure", "precision"} <= kinds
    total = 0
    for p in pairs:
        original = (CORPUS / p["original"]).read_text(encoding="utf-8")
        total += len(original)
        assert len(original) > 700, p["original"]
        # written like real books: no section IDs, typed heading numbers, double captions
        assert "{#sec-" not in original and "## " in original
    assert total > 14000
    assert sum((CORPUS / p["original"]).read_text(encoding="utf-8").count("![图") for p in pairs) >= 8


def test_corpus_scores():
    score = score_corpus()
    print(score.summary())
    details = [f"false alarm in {pair}: {f.kind} line {f.translation_line}: {f.message}"
               for pair, f in score.false_alarms]
    details += [f"missed in {pair}: {name}" for pair, name in score.missed]
    assert score.recall == 1.0, "\n".join(details)
    assert score.precision >= 0.9, "\n".join(details)


def test_clean_pairs_are_clean():
    from bookkit.check.pair import check_pair
    for p in load_manifest()["pairs"]:
        original = (CORPUS / p["original"]).read_text(encoding="utf-8")
        translation = (CORPUS / p["translation"]).read_text(encoding="utf-8")
        assert [f.message for f in check_pair(original, translation, p["lang"])] == [], p["name"]


def test_cli_ranks_by_severity_with_a_section_summary_first(tmp_path):
    import subprocess
    p = next(p for p in load_manifest()["pairs"] if p["name"] == "memory")
    text = (CORPUS / p["translation"]).read_text(encoding="utf-8")
    for fault in p["faults"]:
        text = text.replace(fault["find"], fault["replace"])
    bad = tmp_path / "memory.en.md"
    bad.write_text(text, encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, str(root / "scripts" / "check_translation.py"),
                        str(CORPUS / p["original"]), str(bad), "--lang", "en", "--precision"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    summary, _, body = r.stdout.partition("\n\n")
    head, *rows = summary.splitlines()
    assert head.startswith(f"{len(p['faults'])} finding(s): ")
    assert rows[0].startswith("  3.1 一块 GPU 上有什么 (line 9): 2 high")
    lines = [int(r.rsplit("line ", 1)[1].split(")")[0]) for r in rows]
    assert lines == sorted(lines) and len(rows) >= 6   # every section, in the order of the text
    # the section the translation lacks is placed by the original's line
    assert any(r.startswith("  3.1.2 容量的单位 (original line 29): 1 high") for r in rows), rows
    severities = [line.split(" [", 1)[1].split("]", 1)[0] for line in body.splitlines()]
    order = {"high": 0, "medium": 1, "low": 2}
    assert severities == sorted(severities, key=order.get) and severities[-1] == "low"


def test_any_one_heading_dropped_is_one_finding_and_nothing_else():
    """Issue 15: one heading deleted from a translation turned 137 findings into 1,613. Drop
    each heading of each clean translation in turn (and each of the original: a heading the
    translation added): exactly one structure finding, every time."""
    from bookkit.check.pair import check_pair
    failures = []
    for p in load_manifest()["pairs"]:
        original = (CORPUS / p["original"]).read_text(encoding="utf-8")
        translation = (CORPUS / p["translation"]).read_text(encoding="utf-8")
        for side in ("translation", "original"):
            text = translation if side == "translation" else original
            lines = text.splitlines()
            for k, line in enumerate(lines):
                if not line.startswith("#"):
                    continue
                dropped = "\n".join(lines[:k] + lines[k + 1:]) + "\n"
                pair = (original, dropped) if side == "translation" else (dropped, translation)
                findings = check_pair(*pair, p["lang"])
                if [f.kind for f in findings] != ["structure"]:
                    failures.append(f"{p['name']} {side} without {line!r}: "
                                    f"{[f.message for f in findings][:5]}")
    assert failures == []
