"""Each edition's glossary: avoided renderings are found in prose only, allowed compounds and
code are not, broken glossaries are reported with file:line, and the CLIs fail on a finding."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bookkit.check.terminology import GlossaryError, find_avoided, load_glossary  # noqa: E402

FIX = ROOT / "tests" / "fixtures" / "translation"
CHECK = [sys.executable, str(ROOT / "scripts" / "check_translation.py")]

GLOSSARY = """\
terms:
  - {concept: inference, use: 推論, avoid: [推理], allow: [推理模型]}
  - {concept: bandwidth, use: 頻寬, avoid: [帶寬]}
  - {concept: batching, use: 批次處理, avoid: [批處理]}
  - {concept: continuous batching, use: 連續批次處理, avoid: [連續批處理]}
  - {concept: quantization, use: quantization, avoid: [quantis*]}
  - {concept: prefill, use: prefill, avoid: [pre-fill]}
"""


@pytest.fixture
def terms(tmp_path):
    path = tmp_path / "glossary.yml"
    path.write_text(GLOSSARY, encoding="utf-8")
    return load_glossary(path)


def test_avoided_forms_in_prose_are_found_with_their_line(terms):
    text = "# 標題 {#sec-a}\n\n推理服務的帶寬。\n\n推理模型會先思考。\n"
    found = find_avoided(text, terms)
    assert [(u.line, u.form, u.term.use) for u in found] == [(3, "推理", "推論"), (3, "帶寬", "頻寬")]
    assert "use `推論`" in found[0].message() and "推理服務" in found[0].message()
    # a longer avoided form is one finding, not also one for the shorter form inside it
    assert [u.form for u in find_avoided("連續批處理與批處理。", terms)] == ["連續批處理", "批處理"]


def test_code_math_links_and_allowed_compounds_are_skipped(terms):
    text = ("Run `推理.py` with $帶寬$ and [頻寬](推理/帶寬.md), see https://x.org/推理.\n"
            "```\n推理 帶寬\n```\n"
            "推理模型 {{ 帶寬 }} {#sec-推理}\n")
    assert find_avoided(text, terms) == []


def test_latin_forms_match_whole_words_case_insensitively_and_stems(terms):
    text = "Quantised weights; we quantise. A pre-fill step.\nquantization, prefill, pre-filled.\n"
    forms = [(u.line, u.form) for u in find_avoided(text, terms)]
    assert forms == [(1, "Quantised"), (1, "quantise"), (1, "pre-fill")]


@pytest.mark.parametrize("body, message", [
    ("terms:\n  - {concept: a, use: b, avoid: [x]}\n  - {concept: c, use: d, avoid: [x]}\n",
     "glossary.yml:3: `x` is already avoided at line 2"),
    ("terms:\n  - {concept: a, use: 晶片上, avoid: [片上]}\n",
     "glossary.yml:2: the rendering `晶片上` contains the avoided form `片上`"),
    ("terms:\n  - {concept: a, use: b, avoid: x}\n", "glossary.yml:2: `avoid` must be a list"),
    ("terms:\n  - {concept: a, use: b, avoid: [], note: y}\n", "glossary.yml:2: unknown key(s) note"),
    ("terms:\n  - {concept: a, use: , avoid: []}\n", "glossary.yml:2: `use` must be a non-empty"),
    ("terms: [\n", "glossary.yml:2: not valid YAML"),
    ("entries: []\n", "glossary.yml:1: expected a mapping with a `terms:` list"),
])
def test_bad_glossaries_name_file_and_line(tmp_path, body, message):
    path = tmp_path / "glossary.yml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(GlossaryError) as err:
        load_glossary(path)
    assert message in str(err.value)


def test_cli_reports_terminology_and_exits_1(tmp_path):
    edition = tmp_path / "book-zh-tw"
    edition.mkdir()
    shutil.copy(FIX / "zh-tw.md", edition / "ch.md")
    (edition / "glossary.yml").write_text(GLOSSARY, encoding="utf-8")
    args = CHECK + [str(FIX / "original.md"), str(edition / "ch.md"), "--lang", "zh-tw"]
    assert subprocess.run(args, capture_output=True, text=True).returncode == 0
    text = (edition / "ch.md").read_text(encoding="utf-8")
    (edition / "ch.md").write_text(text + "\n推理時的帶寬。\n", encoding="utf-8")
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 1
    line = len(text.splitlines()) + 2
    summary, _, body = r.stdout.partition("\n\n")
    assert summary.startswith("2 finding(s): 0 high, 2 medium, 0 low")
    assert [x.split(": ")[1] for x in body.splitlines()] == ["terminology [medium]"] * 2
    assert body.startswith(f"{edition / 'ch.md'}:{line}: terminology [medium]: `推理`")
    assert subprocess.run(args + ["--no-glossary"], capture_output=True).returncode == 0
    bad = tmp_path / "bad.yml"
    bad.write_text("terms: 3\n", encoding="utf-8")
    r = subprocess.run(args + ["--glossary", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and "bad.yml:1: expected a mapping" in r.stderr


def test_the_books_glossaries_are_valid_and_cover_the_book():
    zh_tw = load_glossary(ROOT / "book-zh-tw" / "glossary.yml")
    assert len(zh_tw) >= 60
    avoided = {form: t.use for t in zh_tw for form in t.avoid}
    assert avoided["批處理"] == "批次處理" and avoided["帶寬"] == "頻寬"
    assert avoided["推理"] == "推論" and avoided["顯存"] == "記憶體"
    en = load_glossary(ROOT / "book-en" / "glossary.yml")
    assert {"quantis*", "utilis*"} <= {form for t in en for form in t.avoid}
