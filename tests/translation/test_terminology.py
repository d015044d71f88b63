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


ORIGINAL_GLOSSARY = """\
terms:
  - {concept: GPU kernel, use: 核函数, avoid: [内核], allow: [操作系统内核]}
  - {concept: all-reduce, use: 全归约, avoid: [all-reduce], allow: [全归约（all-reduce）]}
"""


def test_cli_checks_the_original_against_its_own_glossary(tmp_path):
    """The original's glossary (beside it, like manuscripts/glossary.yml) is applied to the
    original: a finding names the original's file and line; an OS kernel and a glossed first use
    are allowed; --no-glossary skips it."""
    source = tmp_path / "manuscripts"
    source.mkdir()
    original = source / "ch.md"
    text = (FIX / "original.md").read_text(encoding="utf-8")
    original.write_text(text + "\n操作系统内核与全归约（all-reduce）。\n", encoding="utf-8")
    (source / "glossary.yml").write_text(ORIGINAL_GLOSSARY, encoding="utf-8")
    # the translation carries the added paragraph too (a paragraph on one side only would be
    # a finding of its own)
    translation = tmp_path / "zh-tw.md"
    translation.write_text((FIX / "zh-tw.md").read_text(encoding="utf-8")
                           + "\n作業系統核心與全歸約（all-reduce）。\n", encoding="utf-8")
    args = CHECK + [str(original), str(translation), "--lang", "zh-tw", "--no-glossary"]
    assert subprocess.run(args, capture_output=True, text=True).returncode == 0
    args = CHECK + [str(original), str(translation), "--lang", "zh-tw",
                    "--glossary", str(tmp_path / "none.yml")]
    (tmp_path / "none.yml").write_text("terms: []\n", encoding="utf-8")
    assert subprocess.run(args, capture_output=True, text=True).returncode == 0
    original.write_text(text + "\n注意力内核做一次 all-reduce。\n", encoding="utf-8")
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 1, r.stdout + r.stderr
    line = len(text.splitlines()) + 2
    assert f"in the original {original}:{line}: `内核` is avoided" in r.stdout
    assert f"in the original {original}:{line}: `all-reduce` is avoided" in r.stdout


def test_the_originals_glossary_holds_the_chosen_terms_and_is_applied_by_the_book_check():
    from bookkit.check.report import _glossaries, terminology_findings
    terms = load_glossary(ROOT / "manuscripts" / "glossary.yml")
    avoided = {form: t.use for t in terms for form in t.avoid}
    assert avoided["内核"] == "核函数" and avoided["推测解码"] == "投机解码"
    assert avoided["活化值"] == "激活值" and avoided["下限"] == "下界"
    assert avoided["all-reduce"] == "全归约" and avoided["all-to-all"] == "全对全"
    assert avoided["张量核"] == "张量核心" and avoided["规约"] == "归约"
    out = []
    glossaries = _glossaries(ROOT, out)
    assert out == [] and glossaries["manuscripts"] == terms
    found = terminology_findings("manuscripts/x.md", "一个内核的下限。\n\n张量核心与操作系统内核。\n",
                                 glossaries["manuscripts"])
    assert [(f.where, f.message.split("`")[1]) for f in found] == [
        ("manuscripts/x.md:1", "内核"), ("manuscripts/x.md:1", "下限")]
