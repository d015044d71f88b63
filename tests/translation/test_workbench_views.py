"""Issue 29's reports: the side-by-side HTML page in Chromium (findings at the right
paragraphs, filters, keyboard navigation, escaping, axe), GitHub annotations, the glossary by
edition, the revision a skewed translation follows (real git), and the whole book at once."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus_score import WORKBENCH, apply_faults, load_manifest  # noqa: E402

CHECK = [sys.executable, str(ROOT / "scripts" / "check_translation.py")]
AXE = ROOT / "website" / "node_modules" / "axe-core" / "axe.min.js"


def run(args, **kw):
    return subprocess.run(CHECK + [str(a) for a in args], capture_output=True, text=True,
                          timeout=120, **kw)


def _faulty(name, tmp_path_factory):
    pair = next(p for p in load_manifest(WORKBENCH)["pairs"] if p["name"] == name)
    text, _ = apply_faults((WORKBENCH / pair["translation"]).read_text(encoding="utf-8"),
                           pair["faults"], name)
    path = tmp_path_factory.mktemp(name) / pair["translation"]
    path.write_text(text, encoding="utf-8")
    return WORKBENCH / pair["original"], path


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    """The sched pair's translation with all its seeded faults (two one-sided paragraphs)."""
    return _faulty("sched", tmp_path_factory)


@pytest.fixture(scope="module")
def skewed(tmp_path_factory):
    """The data pair's translation with its faults: three one-sided paragraphs of 14."""
    return _faulty("data", tmp_path_factory)


@pytest.fixture(scope="module")
def page_file(faulty, tmp_path_factory):
    original, translation = faulty
    out = tmp_path_factory.mktemp("html") / "sched.html"
    r = run([original, translation, "--lang", "en", "--format", "html", "--output", out])
    assert r.returncode == 1, r.stderr
    return out


def test_revision_skew_is_said_once_at_the_top(skewed):
    r = run([*skewed, "--lang", "en"])
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert lines[0].startswith("revision skew: 1 paragraph(s) only in the original, 2 only in the translation")
    assert sum("revision skew" in x for x in lines) == 1
    assert [x.split(": ")[1] for x in lines if ": paragraph [" in x] == ["paragraph [high]"] * 3


def test_text_report_has_precision_line_and_paragraph_findings(faulty):
    r = run([*faulty, "--lang", "en"])
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert not any("revision skew" in x for x in lines)   # two one-sided paragraphs of 17
    assert lines[0].startswith("1 number(s) written at another precision (e.g. 2,795.66 as 2,796)")
    assert not any(" precision [" in x for x in lines)
    para = [x for x in lines if ": paragraph [" in x]
    assert len(para) == 2 and any("Since the spring of 2024" in x for x in para)
    assert "glossary: book-en/glossary.yml (the edition's" in r.stderr
    # --precision lists it as a finding instead
    r = run([*faulty, "--lang", "en", "--precision"])
    assert any(": precision [low]" in x for x in r.stdout.splitlines())


def test_github_annotations(faulty):
    r = run([*faulty, "--lang", "en", "--format", "github"])
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert lines and all(re.match(r"^::(error|warning|notice) file=[^,]+,line=\d+,title=[^:]+::\S", x)
                         for x in lines), lines
    para = next(x for x in lines if "Since the spring of 2024" in x)
    assert para.startswith(f"::error file={faulty[1]},line=19,")
    assert "%" not in r.stdout.replace("%25", "")   # data escaped: % is %25


def test_glossary_of_the_edition_is_used_and_named(tmp_path):
    original = tmp_path / "ch.zh.md"
    original.write_text("# 甲\n\n推理服务的延迟为 12 ms。\n", encoding="utf-8")
    translation = tmp_path / "ch.zh-tw.md"
    translation.write_text("# 甲\n\n推理服務的延遲為 12 ms。\n", encoding="utf-8")
    r = run([original, translation, "--lang", "zh-tw", "--format", "json"])
    assert r.returncode == 1
    assert "glossary: book-zh-tw/glossary.yml (the edition's, from manuscripts/book.yml)" in r.stderr
    (f,) = json.loads(r.stdout)
    assert f["kind"] == "terminology" and "推論" in f["message"]
    r = run([original, translation, "--lang", "zh-tw", "--no-glossary"])
    assert r.returncode == 0 and "glossary: none (--no-glossary)" in r.stderr
    (tmp_path / "glossary.yml").write_text("terms:\n  - {concept: x, use: 甲, avoid: [乙]}\n", encoding="utf-8")
    r = run([original, translation, "--lang", "zh-tw"])
    assert r.returncode == 0 and f"glossary: {tmp_path / 'glossary.yml'} (beside the translation)" in r.stderr


def test_the_revision_the_translation_follows(tmp_path):
    """A translation made from an older revision of the original: git names that revision."""
    from bookkit.check.skew import best_revision
    from bookkit.check.pair import compare_pair

    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True,
                       env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
                            "GIT_COMMITTER_EMAIL": "t@x", "PATH": "/usr/bin:/bin",
                            "GIT_AUTHOR_DATE": "2026-01-02T00:00:00", "GIT_COMMITTER_DATE": "2026-01-02T00:00:00"})
    paras = ["集群有 512 张卡。", "调度器每 30 秒重算一次，耗时 120 ms。", "P99 为 3.5 小时。",
             "缓存为 80 GB，带宽 3.35 TB/s。"]
    later = ["新增 64 张卡用于交互作业，等待少于 2 分钟。", "另有 40 TB 的本地盘与 16 个备用节点。",
             "每年电费约 1,051 万美元。"]
    original = tmp_path / "manuscripts" / "ch.md"   # in a folder: git's paths are the top's
    original.parent.mkdir()
    git("init", "-q")
    original.write_text("# 甲\n\n" + "\n\n".join(paras) + "\n", encoding="utf-8")
    git("add", "manuscripts/ch.md")
    git("commit", "-qm", "first")
    first = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True,
                           text=True).stdout.strip()
    original.write_text("# 甲\n\n" + "\n\n".join(paras[:2] + later + paras[2:]) + "\n", encoding="utf-8")
    git("commit", "-qam", "second")
    translation = ("# A\n\nThe cluster has 512 GPUs.\n\nThe scheduler recomputes every 30 seconds, in 120 ms.\n\n"
                   "The P99 is 3.5 hours.\n\nThe cache is 80 GB at 3.35 TB/s.\n")
    result = compare_pair(original.read_text(encoding="utf-8"), translation, "en")
    assert result.skewed and result.only_original == 3
    rev = best_revision(original, translation, "en")
    assert rev is not None and rev.commit == first and rev.one_sided == 0 and rev.date == "2026-01-02"


def test_book_at_once_exit_status_and_summary():
    r = run(["--book", "all", "--no-history"])
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.strip().splitlines()
    chapters = [x for x in lines if x.startswith(("book-en/", "book-zh-tw/"))]
    assert len(chapters) >= 20 and all(x.endswith(": 0 finding(s)") for x in chapters), lines
    assert re.match(r"^\d+ chapter\(s\), 0 finding\(s\): 0 high", lines[-1])
    r = run(["--book", "zh-tw", "--no-history"])
    assert all(x.startswith("book-zh-tw/") for x in r.stdout.splitlines()[:-1])
    r = run(["--book", "xx"])
    assert r.returncode == 2 and "no translated edition xx" in r.stderr


# --- the page in Chromium ---------------------------------------------------------------------

def test_page_shows_findings_at_their_paragraphs(browser, page_file):
    page = browser.new_page()
    page.goto(page_file.as_uri())
    items = page.locator("li.finding")
    assert items.count() >= 8
    for k in range(items.count()):
        li = items.nth(k)
        assert li.is_visible()
        row = li.locator("xpath=ancestor::tr[1]")
        tline, oline = li.get_attribute("data-translation-line"), li.get_attribute("data-original-line")
        cells = row.locator("td")
        orig_cell, trans_cell = cells.nth(0).inner_text(), cells.nth(1).inner_text()
        # the row is the paragraph the finding is about, on one side or the other
        here = (tline and re.search(rf"lines? {tline}\b", trans_cell)) or \
            (oline and re.search(rf"lines? {oline}\b", orig_cell))
        assert here, (li.inner_text(), orig_cell[:80], trans_cell[:80])
    skew = page.locator("li.finding", has_text="Since the spring of 2024")
    assert skew.count() == 1
    assert "(nothing in the original)" in skew.locator("xpath=ancestor::tr[1]").inner_text()
    # numbers are highlighted by what the comparison made of them
    assert page.locator("mark.changed", has_text="1,400").count() == 1
    assert page.locator("mark.unpaired").count() >= 1 and page.locator("mark.paired").count() > 20
    page.close()


def test_filters_and_keyboard_navigation(browser, page_file):
    page = browser.new_page()
    page.goto(page_file.as_uri())
    total = page.locator("li.finding").count()
    assert page.get_by_label(re.compile(r"high \(\d+\)")).count() == 1   # each box has its label
    high = page.locator("li.finding[data-severity=high]").count()
    page.locator("input[data-filter=severity][value=high]").uncheck()
    assert page.locator("li.finding:visible").count() == total - high
    assert page.locator("#shown").inner_text() == f"{total - high} finding(s) shown"
    page.locator("input[data-filter=severity][value=high]").check()
    page.locator("input[data-filter=kind][value=paragraph]").uncheck()
    assert page.locator("li.finding[data-kind=paragraph]:visible").count() == 0
    page.locator("input[data-filter=kind][value=paragraph]").check()
    page.locator("h1").click()
    ids = page.eval_on_selector_all("li.finding", "els => els.map(e => e.id)")
    page.keyboard.press("j")
    assert page.evaluate("document.activeElement.id") == ids[0]
    page.keyboard.press("n")
    assert page.evaluate("document.activeElement.id") == ids[1]
    page.keyboard.press("k")
    assert page.evaluate("document.activeElement.id") == ids[0]
    page.keyboard.press("p")   # stays at the first
    assert page.evaluate("document.activeElement.id") == ids[0]
    page.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_page_is_accessible(browser, page_file, scheme):
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    page.goto(page_file.as_uri())
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    problems = [f"{v['id']} ({v['impact']}): {v['help']}: {v['nodes'][0]['html'][:120]}"
                for v in result["violations"]]
    assert problems == []
    context.close()


def test_untrusted_translation_text_is_escaped(browser, tmp_path):
    original = tmp_path / "ch.zh.md"
    original.write_text("# 甲\n\n延迟为 12 ms。\n", encoding="utf-8")
    translation = tmp_path / "ch.en.md"
    evil = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> 13 ms'
    translation.write_text(f"# A\n\nThe latency is {evil}.\n", encoding="utf-8")
    out = tmp_path / "out.html"
    r = run([original, translation, "--lang", "en", "--format", "html", "--output", out])
    assert r.returncode == 1
    page = browser.new_page()
    page.goto(out.as_uri())
    assert page.evaluate("window.pwned") is None
    assert page.locator("script").count() == 1 and page.locator("main img").count() == 0
    assert "<script>window.pwned = 1</script>" in page.locator("main").inner_text()
    page.close()


def test_ci_annotates_pull_requests_that_change_translations():
    import yaml
    ci = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))
    job = ci["jobs"]["translations"]
    assert "pull_request" in job["if"] and job["permissions"] == {"contents": "read"}
    runs = " ".join(step.get("run", "") for step in job["steps"])
    assert "scripts/check_translation.py --book all --format github" in runs
    assert "book-en book-zh-tw" in runs and "BASE_SHA" in runs


def test_bad_output_and_bad_arguments_are_bad_input(faulty, tmp_path):
    keep = tmp_path / "old.html"
    keep.write_text("previous report", encoding="utf-8")
    r = run([*faulty, "--lang", "en", "--format", "html", "--output", tmp_path / "no" / "x.html"])
    assert r.returncode == 2 and "cannot write the report" in r.stderr and "no/x.html" in r.stderr
    assert keep.read_text(encoding="utf-8") == "previous report"
    r = run([faulty[0], "--lang", "en"])
    assert r.returncode == 2 and "ORIGINAL.md TRANSLATION.md" in r.stderr
    r = run(["--book", "en", "--format", "html"])
    assert r.returncode == 2 and "--book writes text or github" in r.stderr


def _small_book(root: Path, en: str) -> Path:
    zh = "# 负载\n\n一天有 86400 秒。\n\n## 方法\n\n每秒 1000 个词元。\n"
    tw = "# 負載\n\n一天有 86400 秒。\n\n## 方法\n\n每秒 1000 個詞元。\n"
    for folder, text in (("manuscripts", zh), ("book-en", en), ("book-zh-tw", tw)):
        (root / folder).mkdir(parents=True)
        (root / folder / "01-load.md").write_text(text, encoding="utf-8")
    (root / "manuscripts" / "book.yml").write_text(
        "site_url: https://example.org/book/\neditions:\n"
        "  - {id: zh, dir: manuscripts, lang: zh-Hans, path: \"\"}\n"
        "  - {id: en, dir: book-en, lang: en, path: en}\n"
        "  - {id: zh-tw, dir: book-zh-tw, lang: zh-Hant, path: zh-tw}\n"
        "chapters:\n  - {file: 01-load.md, slug: load}\n", encoding="utf-8")
    return root


def test_check_book_counts_per_chapter_and_fails_on_high(tmp_path):
    from bookkit.check.translation import book_summary, check_book
    good = "# Load\n\nA day has 86400 seconds.\n\n## Method\n\n1000 tokens per second.\n"
    book = check_book(_small_book(tmp_path / "a", good), find_revision=False)
    assert not book.has_high() and book_summary(book).splitlines() == [
        "book-en/01-load.md: 0 finding(s)", "book-zh-tw/01-load.md: 0 finding(s)",
        "2 chapter(s), 0 finding(s): 0 high, 0 medium, 0 low"]
    bad = good.replace("1000 tokens", "1200 tokens")
    book = check_book(_small_book(tmp_path / "b", bad), ["en"], find_revision=False)
    assert book.has_high()
    assert book_summary(book).splitlines()[0] == "book-en/01-load.md: 1 finding(s): 1 high, 0 medium, 0 low"
    (tmp_path / "b" / "book-zh-tw" / "01-load.md").unlink()
    book = check_book(tmp_path / "b", ["zh-tw"], find_revision=False)
    assert book.has_high() and "book-zh-tw/01-load.md: cannot read" in book.problems[0]
