"""The two CLIs (via subprocess) and bookkit.check.staleness."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bookkit.check.staleness import (load_sync_record, mark_synced, section_hashes,
                                      stale_sections, sync_record_path)

FIX = ROOT / "tests" / "fixtures" / "translation"
CHECK = [sys.executable, str(ROOT / "scripts" / "check_translation.py")]
SYNC = [sys.executable, str(ROOT / "scripts" / "sync_translation.py")]
FIELDS = ["kind", "value", "unit", "original_line", "translation_line", "message", "severity",
          "section"]


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=60, **kw)


def test_cli_clean_exit_0():
    for lang, name in (("en", "en.md"), ("zh-tw", "zh-tw.md")):
        r = run(CHECK + [str(FIX / "original.md"), str(FIX / name), "--lang", lang])
        assert r.returncode == 0, r.stdout + r.stderr
        assert r.stdout == ""
    r = run(CHECK + [str(FIX / "original.md"), str(FIX / "en.md"), "--lang", "en", "--format", "json"])
    assert r.returncode == 0 and json.loads(r.stdout) == []


def test_cli_findings_exit_1_text_and_json(tmp_path):
    bad = tmp_path / "en.md"
    bad.write_text((FIX / "en.md").read_text(encoding="utf-8").replace("70.554 billion", "70.554 million"),
                   encoding="utf-8")
    r = run(CHECK + [str(FIX / "original.md"), str(bad), "--lang", "en"])
    assert r.returncode == 1
    summary, _, body = r.stdout.strip().partition("\n\n")
    assert summary.splitlines()[0] == "1 finding(s): 1 high, 0 medium, 0 low, in 1 section(s)"
    assert summary.splitlines()[1].startswith("  入门：一次生成需要多少资源 (line 3): 1 high")
    lines = body.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{bad}:3: changed [high]: ")
    r = run(CHECK + [str(FIX / "original.md"), str(bad), "--lang", "en", "--format", "json"])
    assert r.returncode == 1
    data = json.loads(r.stdout)
    assert len(data) == 1 and list(data[0]) == FIELDS
    assert data[0]["kind"] == "changed" and data[0]["original_line"] == 3 and data[0]["translation_line"] == 3
    assert data[0]["value"] == "70554000000" and data[0]["unit"] is None


def test_cli_reports_simplified_characters_left_in_zh_tw(tmp_path):
    text = (FIX / "zh-tw.md").read_text(encoding="utf-8").splitlines()
    i = next(n for n, line in enumerate(text) if line.strip() and not line.startswith("#"))
    text[i] += "这句话忘了转换。"
    bad = tmp_path / "zh-tw.md"
    bad.write_text("\n".join(text) + "\n", encoding="utf-8")
    r = run(CHECK + [str(FIX / "original.md"), str(bad), "--lang", "zh-tw", "--format", "json"])
    assert r.returncode == 1, r.stdout + r.stderr
    data = json.loads(r.stdout)
    assert [(d["kind"], d["value"], d["translation_line"]) for d in data] == [
        ("leftover", ch, i + 1) for ch in "这话转换"]
    assert all(list(d) == FIELDS for d in data)


def test_cli_bad_input_exit_2(tmp_path):
    r = run(CHECK + [str(tmp_path / "nope.md"), str(FIX / "en.md"), "--lang", "en"])
    assert r.returncode == 2 and "no such file" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    latin = tmp_path / "latin1.md"
    latin.write_bytes("# caf\xe9 \xff\n".encode("latin-1"))
    r = run(CHECK + [str(FIX / "original.md"), str(latin), "--lang", "en"])
    assert r.returncode == 2 and "UTF-8" in r.stderr
    r = run(CHECK + [str(FIX / "original.md"), str(FIX / "en.md"), "--lang", "fr"])
    assert r.returncode == 2


# --- staleness ----------------------------------------------------------------------------

ORIG = (FIX / "original.md").read_text(encoding="utf-8")


def test_hashes_are_16_hex_per_section():
    h = section_hashes(ORIG)
    assert list(h) == ["sec-getting-started", "sec-params", "sec-network"]
    assert all(len(v) == 16 and int(v, 16) >= 0 for v in h.values())


def test_never_synced_then_synced_then_edited():
    assert [r for _, r in stale_sections(ORIG, {})] == ["never synced"] * 3
    record = mark_synced(ORIG, {})
    assert stale_sections(ORIG, record) == []
    edited = ORIG.replace("延迟为 12.5 ms", "延迟为 13.5 ms")
    assert stale_sections(edited, record) == [("sec-network", "original changed")]
    # whitespace-only edits do not make a section stale
    assert stale_sections(ORIG.replace("\n\n", "\n\n\n").replace("。\n", "。  \n"), record) == []
    record = mark_synced(edited, record, ["sec-network"])
    assert stale_sections(edited, record) == []


def test_removed_section_is_reported():
    record = mark_synced(ORIG, {})
    record["sec-old"] = "0" * 16
    assert ("sec-old", "section removed from original") in stale_sections(ORIG, record)


def test_sync_cli_writes_record(tmp_path):
    (tmp_path / "manuscripts").mkdir()
    (tmp_path / "book-en").mkdir()
    (tmp_path / "manuscripts" / "01-intro.md").write_text(ORIG, encoding="utf-8")
    (tmp_path / "book-en" / "01-intro.md").write_text((FIX / "en.md").read_text(encoding="utf-8"),
                                                      encoding="utf-8")
    (tmp_path / "manuscripts" / "book.yml").write_text(   # the editions --root has
        'editions:\n  - {id: zh, dir: manuscripts, lang: zh-Hans, path: ""}\n'
        "  - {id: en, dir: book-en, lang: en, path: en}\n", encoding="utf-8")
    rec_path = sync_record_path(tmp_path / "book-en", "01-intro.md")
    assert rec_path == tmp_path / "book-en" / ".sync" / "01-intro.md.json"
    r = run(SYNC + ["--edition", "en", "--root", str(tmp_path), "01-intro.md", "--section", "sec-params"])
    assert r.returncode == 0, r.stderr
    assert list(load_sync_record(rec_path)) == ["sec-params"]
    assert [s for s, _ in stale_sections(ORIG, load_sync_record(rec_path))] == [
        "sec-getting-started", "sec-network"]
    r = run(SYNC + ["--edition", "en", "--root", str(tmp_path)])
    assert r.returncode == 0, r.stderr
    assert stale_sections(ORIG, load_sync_record(rec_path)) == []
    (tmp_path / "manuscripts" / "01-intro.md").write_text(ORIG.replace("2015", "2016"), encoding="utf-8")
    assert stale_sections(ORIG.replace("2015", "2016"), load_sync_record(rec_path)) == [
        ("sec-getting-started", "original changed")]
    r = run(SYNC + ["--edition", "en", "--root", str(tmp_path), "01-intro.md", "--section", "sec-nope"])
    assert r.returncode == 2 and "sec-nope" in r.stderr
