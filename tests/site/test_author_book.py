"""A trilingual book written for MkDocs and Pandoc/LaTeX (tests/fixtures/authorbook) is imported
with one command and builds with no hand edit: one caption per figure, repository files and
folders linked under the repository's browse URL, an errata link of its own, a translation's
missing chapter shown from the original with a notice, emphasis next to CJK punctuation,
unnumbered headings, stale sections named by their headings."""
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bookkit.check import report
from bookkit.check.sources import source_findings
from bookkit.model import BuildError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "authorbook"))
from author_book import CH1, CH2, builder, make_book  # noqa: E402

EDITIONS = ["zh", "en", "zh-tw"]
REPO = "https://example.org/author/gpu-book"


def _import(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bookkit", "import", *args], cwd=ROOT,
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def author_book(tmp_path_factory):
    root = make_book(tmp_path_factory.mktemp("authorbook") / "book")
    res = _import(root, str(root / "mkdocs.yml"))
    assert res.returncode == 0, res.stderr
    report_ = builder(root, EDITIONS).build()
    return root, root / "build" / "site", report_


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def _page(site: Path, prefix: str, slug: str) -> str:
    return (site / prefix / f"{slug}.html").read_text(encoding="utf-8")


# -- import ----------------------------------------------------------------------------------
def test_import_writes_chapter_order_editions_and_file_names(author_book):
    root, _site, _report = author_book
    data = yaml.safe_load((root / "manuscripts" / "book.yml").read_text(encoding="utf-8"))
    assert [c["file"] for c in data["chapters"]] == ["00-前言.md", CH1, CH2]   # mkdocs nav order
    assert [c["slug"] for c in data["chapters"]] == [
        "preface", "compute-and-memory", "queueing-in-an-inference-service"]
    assert [c.get("files") for c in data["chapters"]] == [
        {"en": "preface.md"}, {"en": "chapter01.md", "zh-tw": "01-算力 與 顯存.md"},
        {"en": "chapter02.md"}]                         # zh-tw has no chapter 2
    assert [(e["id"], e["dir"], e["lang"], e["path"]) for e in data["editions"]] == [
        ("zh", "manuscripts", "zh-Hans", ""), ("en", "book-en", "en", "en"),
        ("zh-tw", "book-zh-tw", "zh-Hant", "zh-tw")]
    assert (data["repo_url"], data["repo_branch"]) == (REPO, "trunk")   # from edit_uri
    assert data["release_url"] == f"{REPO}/releases/latest/download/"
    assert (data["site_url"], data["file_name"]) == ("https://author.example.org/gpu-book/",
                                                     "gpu-book")


def test_import_from_the_folder_layout_and_refusing_to_overwrite(tmp_path):
    root = make_book(tmp_path / "book")
    (root / "mkdocs.yml").unlink()
    assert _import(root, str(root), "--dry-run").returncode == 0
    res = _import(root, str(root))
    assert res.returncode == 0, res.stderr
    data = yaml.safe_load((root / "manuscripts" / "book.yml").read_text(encoding="utf-8"))
    assert [c["file"] for c in data["chapters"]] == ["00-前言.md", CH1, CH2]   # NN- order
    again = _import(root, str(root))
    assert again.returncode == 1 and "--force" in again.stderr and "book.yml" in again.stderr
    assert _import(root, str(root), "--force").returncode == 0


# -- captions ---------------------------------------------------------------------------------
@pytest.mark.parametrize("prefix, caption, alt", [
    ("", "图 1-1：屋顶线模型：带宽与算力两条边界", "屋顶线模型示意"),
    ("en/", "Figure 1-1: The roofline model: the bandwidth bound and the compute bound",
     "Sketch of the roofline model"),
    ("zh-tw/", "圖 1-1：屋頂線模型：頻寬與算力兩條邊界", "屋頂線模型示意"),
])
def test_one_caption_per_figure(author_book, prefix, caption, alt):
    _root, site, _report = author_book
    page = _page(site, prefix, "compute-and-memory")
    figures = re.findall(r'<figure id="[^"]+"><img src="[^"]+" alt="([^"]*)"[^>]*>'
                         r'<figcaption>(.*?)</figcaption></figure>', page, re.S)
    assert len(figures) == 2
    assert (figures[0][0], _text(figures[0][1])) == (alt, caption)   # alt stays alt
    body = _text(page.split("<main", 1)[1])
    words = caption.split("：" if "：" in caption else ": ", 1)[1]
    assert body.count(words) == 1, words           # not again as an italic line below
    # the second figure's caption line is not italic: it opens with the label
    assert _text(figures[1][1]).split("：" if prefix != "en/" else ": ")[1].startswith(
        ("显存的三层", "Three levels", "顯存的三層"))
    assert "1-1 1-1" not in body and "图 1-1 屋顶线" not in body


def test_caption_typed_numbers_warn_at_the_caption_line(author_book):
    _root, _site, rep = author_book
    assert f"manuscripts/{CH1}:13: typed number `图 1-1` removed from the figure caption" in \
        "\n".join(rep.warnings)


# -- links ------------------------------------------------------------------------------------
@pytest.mark.parametrize("prefix", ["", "en/", "zh-tw/"])
def test_repository_files_and_folders_link_to_the_browse_url(author_book, prefix):
    _root, site, _report = author_book
    page = _page(site, prefix, "compute-and-memory")
    assert f'href="{REPO}/blob/trunk/experiments/ch01/01-03/README.md"' in page
    assert f'href="{REPO}/tree/trunk/tools/plot/"' in page
    if prefix != "zh-tw/":
        assert f'href="{REPO}/blob/trunk/manuscripts/ch01/README.md"' in page
    assert 'href="#roofline-note"' in page and '<a id="roofline-note">' in page


def test_chapter_links_by_either_editions_file_name(author_book):
    _root, site, _report = author_book
    for prefix in ("", "en/"):    # `01-算力%20与%20显存.md#…` and `chapter01.md#…`
        page = _page(site, prefix, "queueing-in-an-inference-service")
        assert 'href="compute-and-memory.html#roofline-note"' in page


def test_errata_link_has_its_own_setting(author_book, tmp_path):
    _root, site, _report = author_book
    page = _page(site, "", "compute-and-memory")
    assert f'href="{REPO}/issues/new?' in page                 # derived from repo_url
    assert "/blob/trunk/issues" not in page
    root = make_book(tmp_path / "book")
    assert _import(root, str(root / "mkdocs.yml")).returncode == 0
    config = root / "manuscripts" / "book.yml"
    config.write_text(config.read_text(encoding="utf-8")
                      + "errata_url: https://errata.example.net/gpu-book\n", encoding="utf-8")
    builder(root, ["zh"]).build()
    page = _page(root / "build" / "site", "", "compute-and-memory")
    assert 'href="https://errata.example.net/gpu-book/new?' in page
    assert f'href="{REPO}/blob/trunk/tools/plot/"' not in page     # still a folder: tree
    assert f'href="{REPO}/tree/trunk/tools/plot/"' in page


def test_link_to_a_missing_repository_file_is_an_error_with_its_line(tmp_path):
    root = make_book(tmp_path / "book")
    assert _import(root, str(root / "mkdocs.yml")).returncode == 0
    chapter = root / "manuscripts" / CH1
    text = chapter.read_text(encoding="utf-8")
    chapter.write_text(text.replace("ch01/README.md", "ch01/NOTES.md"), encoding="utf-8")
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "ch01/README.md" in l)
    with pytest.raises(BuildError) as exc:
        builder(root, ["zh"]).build()
    assert f"manuscripts/{CH1}:{line}: link target not found: ch01/NOTES.md" in str(exc.value)


# -- the missing translated chapter ----------------------------------------------------------
def test_missing_translated_chapter_shows_the_original_with_a_notice(author_book):
    root, site, rep = author_book
    page = _page(site, "zh-tw/", "queueing-in-an-inference-service")
    notice = re.search(r'<blockquote class="untranslated">\s*<p>(.*?)</p>', page, re.S)
    assert notice and notice.group(1) == "本章尚未翻譯，以下為原文。"
    assert "请求到达的速度一旦接近服务的速度" in page          # the original's words
    assert re.search(r'<h1[^>]*><span class="secno">第 2 章</span> 推理服务的排队', page)
    assert "untranslated" not in _page(site, "en/", "queueing-in-an-inference-service")
    assert "untranslated" not in _page(site, "zh-tw/", "compute-and-memory")
    warnings = [w for w in rep.warnings if "not translated" in w]
    assert warnings == [f"book-zh-tw/{CH2}: chapter not translated: manuscripts/{CH2} is shown "
                        "in its place with a notice (translate it, or --strict to make this "
                        "an error)"]
    # the original's typed numbers are warned once, at the original's lines
    assert not any(re.match(rf"(book-zh-tw/)?manuscripts/{CH2}:\d|book-zh-tw/{CH2}:\d", w)
                   and not w.startswith("manuscripts/") for w in rep.warnings)
    assert sum(w.startswith(f"manuscripts/{CH2}:1: typed number") for w in rep.warnings) == 1


def test_missing_translated_chapter_is_an_error_with_strict(author_book, tmp_path):
    root = make_book(tmp_path / "book")
    assert _import(root, str(root / "mkdocs.yml")).returncode == 0
    with pytest.raises(BuildError) as exc:
        builder(root, ["zh-tw"], strict=True).build()
    assert f"book-zh-tw/{CH2}: chapter not translated" in str(exc.value)
    assert not (root / "build" / "site").exists()             # nothing half-written


def test_check_site_stale_lists_the_untranslated_chapter_and_names_sections(author_book):
    root, site, _report = author_book
    found = report.stale_findings(root)
    untranslated = [f for f in found if f.kind == "untranslated"]
    assert [f.where for f in untranslated] == [f"book-zh-tw/{CH2}:1"]
    stale = [f.message for f in found if f.kind == "stale" and f.where.startswith("book-en/")]
    assert "section “屋顶线模型”: never synced" in stale           # by heading, typed number out
    assert "section “本章小结”: never synced" in stale
    assert not any("_h" in m for m in stale)
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_site.py"), "--root",
                          str(root), "--site", str(site), "--no-translations", "--stale",
                          "--strict"], capture_output=True, text=True)
    assert f"book-zh-tw/{CH2}:1: untranslated: chapter not translated" in res.stdout
    assert res.returncode == 1


# -- emphasis and headings ---------------------------------------------------------------------
def test_emphasis_next_to_cjk_punctuation(author_book):
    root, site, _report = author_book
    page = _page(site, "", "compute-and-memory")
    assert "<strong>粗体（注）</strong>后面" in page and "<strong>“引号”</strong>也" in page
    assert "<em>优化（尤其是融合）</em>的出发点" in page
    assert "<strong>粗體（註）</strong>後面" in _page(site, "zh-tw/", "compute-and-memory")
    assert "**" not in _text(page.split("<main", 1)[1])
    assert not [f for f in source_findings(root) if f.kind == "markup-as-text"]


@pytest.mark.parametrize("prefix, summary", [("", "本章小结"), ("en/", "Summary")])
def test_unnumbered_headings_on_the_page_and_in_the_tocs(author_book, prefix, summary):
    _root, site, _report = author_book
    page = _page(site, prefix, "compute-and-memory")
    headings = [_text(h).replace("#", "").strip()
                for h in re.findall(r"<h2[^>]*>(.*?)</h2>", page, re.S)]
    assert headings[:3] == [h for h in headings[:3] if h[:3] in ("1.1", "1.2") or h == summary]
    assert headings[2] == summary and headings[1].startswith("1.2 ")   # `{-}` takes no number
    assert re.search(rf'<a href="#sec-compute-and-memory-u1">{summary}</a>', page)  # page TOC
    index = (site / prefix / "index.html").read_text(encoding="utf-8")
    entry = re.search(r'href="compute-and-memory.html#sec-compute-and-memory-u1">(.*?)</a>',
                      index)
    assert entry and _text(entry.group(1)) == summary                  # no number, no gap
    queue = _page(site, prefix, "queueing-in-an-inference-service")
    assert not re.search(r'<span class="secno">2\.2</span>', queue)   # `{.unnumbered}`
    assert "{.unnumbered}" not in page + queue and "{-}" not in page


def test_sync_translation_finds_the_original_of_a_renamed_file(tmp_path):
    root = make_book(tmp_path / "book")
    assert _import(root, str(root / "mkdocs.yml")).returncode == 0
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "sync_translation.py"),
                          "--root", str(root), "--edition", "en"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "chapter01.md.json: synced" in res.stdout
    found = report.stale_findings(root)
    assert not [f for f in found if f.kind == "stale" and f.where.startswith("book-en/")]
    chapter = root / "manuscripts" / CH1
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("两条线的交点", "两线交点"),
                       encoding="utf-8")
    stale = [(f.where, f.message) for f in report.stale_findings(root)
             if f.kind == "stale" and f.where.startswith("book-en/")]
    assert stale == [("book-en/chapter01.md:5", "section “屋顶线模型”: original changed")]


def test_check_site_passes_on_the_first_build(author_book):
    root, site, _report = author_book
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_site.py"), "--root",
                          str(root), "--site", str(site)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert ", 0 errors," in res.stderr
    kinds = {line.split(": ")[1] for line in res.stdout.splitlines() if ": " in line}
    assert kinds == {"typed-number"}          # warnings only: what the author may tidy up


def test_import_gives_a_folder_without_edition_yml_a_fallback(tmp_path):
    root = make_book(tmp_path / "book")
    (root / "book-en" / "edition.yml").unlink()
    assert _import(root, str(root / "mkdocs.yml")).returncode == 0
    data = yaml.safe_load((root / "manuscripts" / "book.yml").read_text(encoding="utf-8"))
    assert data["editions"][1] == {"id": "en", "dir": "book-en", "lang": "en", "path": "en",
                                   "fallback": "zh"}
    assert yaml.safe_load((root / "book-en" / "edition.yml").read_text(encoding="utf-8")) == {
        "title": "从一块 GPU 说起"}
    builder(root, ["en"]).build()            # builds, with the original's interface strings
    assert "The roofline model" in _page(root / "build" / "site", "en/", "compute-and-memory")


@pytest.mark.parametrize("prefix", ["", "en/", "zh-tw/"])
def test_footnotes_with_urls(author_book, prefix):
    _root, site, _report = author_book
    page = _page(site, prefix, "compute-and-memory")
    notes = page.split('class="footnotes', 1)[1]
    assert "https://example.org/specs/hbm3.pdf" in _text(notes)
    assert re.search(r'href="#fn\d+"', page)                 # the reference links to its note
