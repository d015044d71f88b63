"""A chapter written for another toolchain (typed heading numbers, static SVG/PNG/PDF images with
alt-only captions, raw HTML anchors, repository links) builds into the PDF (real XeLaTeX) and the
EPUB (epubcheck) without hand edits; a LaTeX error names the author's file and line."""
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from bookkit.load.config import load_edition_info
from bookkit.pipeline.export import export_edition
from bookkit.render.pandoc import convert as P

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "realworld"))
from book import CHAPTER, builder, make_book  # noqa: E402

CAPTIONS = {
    "zh": ["图 2-1：推理服务的请求流水线：排队、预填充、解码",
           "图 2-2：显存里的三类数据：权重、KV 缓存与激活",
           "图 2-3：吞吐随批大小的变化（示意）"],
    "en": ["Figure 2-1: The request pipeline of an inference service: queueing, prefill, decode",
           "Figure 2-2: Three kinds of data in device memory: weights, KV cache and activations",
           "Figure 2-3: Throughput against batch size (schematic)"],
}
TITLE = {"zh": ("第 2 章", "推理服务的吞吐与延迟", "第 7 章"),
         "en": ("Chapter 2", "Throughput and latency of an inference service", "Chapter 7")}


@pytest.fixture(scope="module")
def real_builds(tmp_path_factory):
    """Each edition of the real-style book exported, built to PDF (kept book.tex) and EPUB."""
    tmp = tmp_path_factory.mktemp("realworld")
    root = make_book(tmp / "book")
    out = {}
    for ed in ("zh", "en"):
        src = export_edition(ed, tmp / "pandoc" / ed, builder=builder(root, [ed]))
        pdf = P.build_pdf(src, info=load_edition_info(root, ed), out=tmp / f"{ed}.pdf", keep_tex=tmp / f"tex-{ed}", log=lambda *_: None)
        epub = P.build_epub(src, info=load_edition_info(root, ed), out=tmp / f"{ed}.epub", check=True, log=lambda *_: None)
        out[ed] = (src, pdf, epub, (tmp / f"tex-{ed}" / "book.tex").read_text(encoding="utf-8"))
    return out


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("ed", ["zh", "en"])
def test_pdf_numbers_once_and_shows_captions(real_builds, ed):
    _src, pdf, _epub, tex = real_builds[ed]
    text = subprocess.run(["pdftotext", "-layout", str(pdf.output), "-"], capture_output=True,
                          text=True, check=True).stdout
    body = text.split("def pick_batch")[0]      # the code listing keeps its own "第 3 章"
    # the author's file:line reaches book.tex as TeX comments, in the original and in a
    # translation (read with raw TeX off), and never the page
    assert re.search(r"^% bookkit-source \d+ \S.*\.md$", tex, re.M)
    assert "bookkit-source" not in text
    chapter, title, typed = TITLE[ed]
    assert _squash(chapter + title) in _squash(text)
    assert typed not in body and "7.1" not in body
    outline = P.pdf_outline(pdf.output)
    assert any(_squash(t) == _squash(f"{chapter} {title}") for t in outline), outline
    assert not any(typed in t for t in outline)
    for caption in CAPTIONS[ed]:
        assert _squash(caption) in _squash(text), caption
    # every image reached LaTeX as a format it reads: converted SVG (PDF), PDF, PNG
    images = re.findall(r"\\includegraphics(?:\[[^]]*\])?\{([^}]+)\}", tex)
    assert sorted(Path(i).suffix for i in images) == [".pdf", ".pdf", ".png"]
    assert "includesvg" not in tex
    # text drawn in the SVG and in the PDF image is in the PDF: the images are really there
    assert "请求队列" in text.replace(" ", "") and "KV cache" in text


@pytest.mark.parametrize("ed", ["zh", "en"])
def test_pdf_raw_anchors_and_repository_links(real_builds, ed):
    _src, _pdf, _epub, tex = real_builds[ed]
    for ident in ("kv-budget", "note-batching"):
        assert f"\\label{{{ident}}}" in tex and f"\\hyperref[{ident}]" in tex
    assert "\\hyperref[sec-intro-basics]" in tex             # 01-intro.md#sec-intro-basics
    assert "\\href{https://example.org/repo/blob/main/calculations/kv_demo.py}" in tex
    assert ("\\href{https://example.org/repo/blob/main/calculations/data\\%20files/"
            "kv\\%20sizes.csv}") in tex


@pytest.mark.parametrize("ed", ["zh", "en"])
def test_epub_has_images_captions_anchors_and_links(real_builds, ed):
    _src, _pdf, epub, _tex = real_builds[ed]      # built with epubcheck: no errors or warnings
    with zipfile.ZipFile(epub.output) as z:
        names = z.namelist()
        xhtml = "".join(z.read(n).decode() for n in names if n.endswith(".xhtml"))
    media = [n for n in names if "/media/" in n]
    assert sum(n.endswith(".svg") for n in media) == 2 and any(n.endswith(".png") for n in media)
    captions = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<figcaption>(.*?)</figcaption>",
                                                              xhtml, re.S)]
    assert [_squash(c) for c in captions] == [_squash(c) for c in CAPTIONS[ed]]
    assert 'id="kv-budget"' in xhtml and re.search(r'href="ch\d+\.xhtml#kv-budget"', xhtml)
    assert 'href="https://example.org/repo/blob/main/calculations/kv_demo.py"' in xhtml
    assert TITLE[ed][2] not in xhtml.split("pick_batch")[0]
    assert "bookkit-source" not in xhtml            # the PDF's source markers stay out


def test_export_writes_a_map_back_to_the_sources(real_builds):
    import json
    src, *_ = real_builds["zh"]
    data = json.loads((src / "sourcemap.json").read_text(encoding="utf-8"))
    entry = data[CHAPTER]
    exported = (src / CHAPTER).read_text(encoding="utf-8").splitlines()
    source = Path(entry["source"]).read_text(encoding="utf-8").splitlines()
    assert len(entry["lines"]) == len(exported)
    i = next(i for i, line in enumerate(exported) if line.startswith("### 2.1.1 "))
    assert source[entry["lines"][i] - 1].startswith("### 7.1.1 ")


def test_latex_error_names_the_authors_file_and_line(tmp_path):
    root = make_book(tmp_path / "a-rather-long-directory-name-so-that-tex-would-wrap-it" / "book")
    chapter = root / "manuscripts" / CHAPTER
    lines = chapter.read_text(encoding="utf-8").splitlines()
    target = next(i for i, l in enumerate(lines) if l.startswith("权重只需要一份"))
    lines[target] += r" 这里有一个 \bogusmacro{} 命令。"
    chapter.write_text("\n".join(lines) + "\n", encoding="utf-8")
    src = export_edition("zh", tmp_path / "pandoc", chapter=2, builder=builder(root, ["zh"]))
    with pytest.raises(P.BuildError) as exc:
        P.build_pdf(src, info=load_edition_info(root, "zh"), out=tmp_path / "out.pdf", chapter=2, log=lambda *_: None)
    message = str(exc.value)
    assert message.startswith(f"{chapter}:{target + 1}: Undefined control sequence."), message
    assert "\\bogusmacro" in message          # TeX's context line, not cut at 79 columns
    assert not (tmp_path / "out.pdf").exists()
