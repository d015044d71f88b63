"""A chapter written for another toolchain builds into the site without hand edits: typed heading
numbers removed once (with warnings), static SVG/PNG/PDF images as numbered figures with their
alt text as caption, raw HTML anchors, links to repository files; check_site's source checks."""
import re
import sys
from pathlib import Path

import pytest

from bookkit.check.sources import source_findings
from bookkit.source.markdown import parse
from bookkit.model import BuildError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "realworld"))
from book import CHAPTER, builder, make_book  # noqa: E402


@pytest.fixture(scope="module")
def real_book(tmp_path_factory):
    root = make_book(tmp_path_factory.mktemp("realworld") / "book")
    report = builder(root, ["zh", "en"]).build()
    return root, root / "build" / "site", report


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


@pytest.mark.parametrize("heading, title, number", [
    ("# 第 7 章 推理服务", "推理服务", "第 7 章"),
    ("# 第三章　推理服务", "推理服务", "第三章"),
    ("# Chapter 7: Serving", "Serving", "Chapter 7"),
    ("## 7.1 显存预算 {#sec-x}", "显存预算", "7.1"),
    ("### 7.1.2：激活", "激活", "7.1.2"),
    ("## 3. Introduction", "Introduction", "3."),
    ("## 1.5 倍的加速从何而来", "1.5 倍的加速从何而来", None),   # a quantity, not a number
    ("## 2025 年的集群", "2025 年的集群", None),
    ("## `3.1` in code", "`3.1` in code", None),
])
def test_typed_heading_numbers(heading, title, number):
    tokens, _ = parse(heading + "\n")
    assert tokens[1].content.strip() == title
    typed = tokens[0].meta.get("typed_number")
    assert (typed.number if typed else None) == number


def test_typed_numbers_appear_once_in_title_toc_and_search(real_book):
    _root, site, _report = real_book
    for prefix, chapter, old in (("", "第 2 章", "第 7 章"), ("en/", "Chapter 2", "Chapter 7")):
        page = (site / prefix / "serving.html").read_text(encoding="utf-8")
        h1 = re.search(r"<h1[^>]*>(.*?)</h1>", page, re.S).group(1)
        assert _text(h1).count(chapter) == 1 and old not in page
        # sections: the pipeline's 2.1 / 2.1.1, never the typed 7.1
        headings = [_text(h) for h in re.findall(r"<h[23][^>]*>(.*?)</h[23]>", page, re.S)]
        assert headings[0].startswith("2.1 ") and not any("7." in h for h in headings)
        # the TOC of another page and the search index
        toc = (site / prefix / "intro.html").read_text(encoding="utf-8")
        assert old not in toc and "7.1" not in toc
        index = (site / prefix / "search-index.js").read_text(encoding="utf-8")
        assert old not in index


def test_build_warns_typed_numbers_with_file_and_line(real_book):
    _root, _site, report = real_book
    warnings = "\n".join(report.warnings)
    assert f"manuscripts/{CHAPTER}:1: typed number `第 7 章`" in warnings
    assert f"book-en/{CHAPTER}:1: typed number `Chapter 7`" in warnings
    assert f"manuscripts/{CHAPTER}:21: typed number `7.1`" in warnings
    assert f"manuscripts/{CHAPTER}:17: typed number `图 7-1` removed from the figure caption" in warnings


def test_static_images_are_numbered_figures_with_captions(real_book):
    _root, site, _report = real_book
    page = (site / "serving.html").read_text(encoding="utf-8")
    figures = re.findall(r'<figure id="([^"]+)"><img src="([^"]+)"[^>]*>'
                         r'<figcaption>(.*?)</figcaption>', page, re.S)
    assert [(f[1], _text(f[2])) for f in figures] == [
        ("images/pipeline.svg", "图 2-1：推理服务的请求流水线：排队、预填充、解码"),
        ("images/memory%20layout.pdf.svg", "图 2-2：显存里的三类数据：权重、KV 缓存与激活"),
        ("images/throughput.png", "图 2-3：吞吐随批大小的变化（示意）"),
    ]
    for prefix in ("", "en/"):          # the translation reuses the original's image files
        assert (site / prefix / "images" / "pipeline.svg").is_file()
        assert (site / prefix / "images" / "throughput.png").read_bytes().startswith(b"\x89PNG")
        converted = (site / prefix / "images" / "memory layout.pdf.svg").read_text()
        assert "<svg" in converted      # the PDF image converted for browsers
    # sizes from the files: no layout shift
    assert 'width="480" height="160"' in page and 'width="320" height="200"' in page


def test_raw_anchors_and_repository_links(real_book):
    _root, site, _report = real_book
    page = (site / "serving.html").read_text(encoding="utf-8")
    assert re.search(r'<a id="kv-budget">', page) and '<span id="note-batching">' in page
    assert 'href="#kv-budget"' in page and 'href="intro.html#sec-intro-basics"' in page
    assert 'href="https://example.org/repo/blob/main/calculations/kv_demo.py"' in page
    assert ('href="https://example.org/repo/blob/main/calculations/data%20files/kv%20sizes.csv"'
            in page)


def test_repository_link_without_repo_url_is_an_error(tmp_path):
    root = make_book(tmp_path / "book")
    config = root / "manuscripts" / "book.yml"
    config.write_text(re.sub(r"(?m)^repo_url:.*\n", "", config.read_text()))
    with pytest.raises(BuildError) as exc:
        builder(root, ["zh"]).build()
    text = str(exc.value)
    line = next(i for i, l in enumerate((root / "manuscripts" / CHAPTER).read_text().splitlines(), 1)
                if "kv%20sizes" in l)
    assert f"manuscripts/{CHAPTER}:{line}:" in text and "repo_url:" in text
    assert "data files/kv sizes.csv" in text and "%20" not in text     # decoded


def test_missing_image_is_an_error_with_its_line(tmp_path):
    root = make_book(tmp_path / "book")
    (root / "manuscripts" / "images" / "throughput.png").unlink()
    with pytest.raises(BuildError) as exc:
        builder(root, ["zh"]).build()
    assert re.search(rf"manuscripts/{CHAPTER}:55: image not found: images/throughput.png",
                     str(exc.value))


def test_check_site_source_findings(tmp_path):
    root = make_book(tmp_path / "book")
    clean = source_findings(root)
    assert {f.kind for f in clean} == {"typed-number"}
    assert f"manuscripts/{CHAPTER}:1" in {f.where for f in clean}
    chapter = root / "manuscripts" / CHAPTER
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\n".join([
        "",
        '<div id="aside"></div>',
        "回到[不存在的锚点](#nowhere)。",
        "![坏图](images/broken.svg)",
        "![没有的图](images/none.png)",
        "[外部脚本](../calculations/missing.py)",
        "`<div id=\"in-code\">` 与 [代码](#kv-budget) 不报告。",
        "",
        "![批大小与延迟](images/pipeline.svg)",
        "",
        "*图 2-9 批大小与延迟*",
        "",
    ]), encoding="utf-8")
    (root / "manuscripts" / "images" / "broken.svg").write_text("<svg><unclosed")
    found = {(f.kind, f.where.rsplit(":", 1)[1]) for f in source_findings(root)
             if f.kind != "typed-number"}
    n = len(chapter.read_text(encoding="utf-8").splitlines())
    assert found == {("raw-anchor", str(n - 9)), ("unresolved-anchor", str(n - 8)),
                     ("image", str(n - 7)), ("image", str(n - 6)), ("repo-link", str(n - 5))}
    # the italic line under the last image is its caption (shown once), not a duplicate
    assert all(f.severity == "warning" for f in source_findings(root))


def test_check_site_cli_reports_source_findings(real_book):
    import subprocess
    root, site, _report = real_book
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_site.py"), "--root",
                          str(root), "--site", str(site), "--no-translations"],
                         capture_output=True, text=True)
    assert f"manuscripts/{CHAPTER}:1: typed-number: typed number `第 7 章`" in res.stdout
    assert res.returncode == 0          # warnings only
