"""The imported author's book (tests/fixtures/authorbook) as PDF (real XeLaTeX) and EPUB
(epubcheck), with no hand edit: one caption per figure inside its float, the alt text kept as
alt, repository links, the untranslated chapter's notice, CJK emphasis, unnumbered headings,
and a LaTeX error named at the author's file:line although the chapter title wraps in book.tex."""
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from bookkit.load.config import load_edition_info
from bookkit.pipeline.export import export_edition
from bookkit.cli.importer import main as import_main
from bookkit.render.pandoc import convert as P

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "authorbook"))
from author_book import CH1, builder, make_book  # noqa: E402

REPO = "https://example.org/author/gpu-book"
CAPTIONS = {
    "zh": ("图 1-1：屋顶线模型：带宽与算力两条边界", "屋顶线模型示意"),
    "en": ("Figure 1-1: The roofline model: the bandwidth bound and the compute bound",
           "Sketch of the roofline model"),
    "zh-tw": ("圖 1-1：屋頂線模型：頻寬與算力兩條邊界", "屋頂線模型示意"),
}
SUMMARY = {"zh": "本章小结", "en": "Summary", "zh-tw": "本章小結"}


def _book(path: Path) -> Path:
    root = make_book(path)
    assert import_main([str(root / "mkdocs.yml")]) == 0
    return root


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("authorbook")
    root = _book(tmp / "book")
    out = {}
    for ed in ("zh", "en", "zh-tw"):
        src = export_edition(ed, tmp / "pandoc" / ed, builder=builder(root, [ed]))
        pdf = P.build_pdf(src, info=load_edition_info(root, ed), out=tmp / f"{ed}.pdf", keep_tex=tmp / f"tex-{ed}", log=lambda *_: None)
        epub = P.build_epub(src, info=load_edition_info(root, ed), out=tmp / f"{ed}.epub", check=True, log=lambda *_: None)
        text = subprocess.run(["pdftotext", "-layout", str(pdf.output), "-"],
                              capture_output=True, text=True, check=True).stdout
        with zipfile.ZipFile(epub.output) as z:
            xhtml = "".join(z.read(n).decode() for n in z.namelist() if n.endswith(".xhtml"))
        out[ed] = (pdf, text, (tmp / f"tex-{ed}" / "book.tex").read_text(encoding="utf-8"),
                   xhtml)
    return out


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("ed", ["zh", "en", "zh-tw"])
def test_one_caption_per_figure_in_its_float_and_alt_kept(builds, ed):
    _pdf, text, tex, xhtml = builds[ed]
    caption, alt = CAPTIONS[ed]
    words = caption.split("：" if ed != "en" else ": ", 1)[1]
    assert _squash(text).count(_squash(words)) == 1          # printed once in the PDF
    # in the figure environment, with the image: LaTeX floats them together
    figure = re.search(r"\\begin\{figure\}(.*?)\\end\{figure\}", tex, re.S).group(1)
    assert "\\includegraphics" in figure and _squash(words) in _squash(figure)
    assert len(re.findall(r"\\begin\{figure\}", tex)) == 3
    captions = [re.sub(r"<[^>]+>", "", c) for c in
                re.findall(r"<figcaption>(.*?)</figcaption>", xhtml, re.S)]
    assert _squash(captions[0]) == _squash(caption) and len(captions) == 3
    assert f'alt="{alt}"' in xhtml                           # the author's alt text
    assert _squash(xhtml).count(_squash(words)) == 1


@pytest.mark.parametrize("ed", ["zh", "en", "zh-tw"])
def test_repository_links_in_pdf_and_epub(builds, ed):
    _pdf, _text, tex, xhtml = builds[ed]
    for url in (f"{REPO}/blob/trunk/experiments/ch01/01-03/README.md",
                f"{REPO}/tree/trunk/tools/plot/"):
        assert f"\\href{{{url}}}" in tex and f'href="{url}"' in xhtml
    assert "\\label{roofline-note}" in tex and "\\hyperref[roofline-note]" in tex


def test_untranslated_chapter_has_its_notice_in_pdf_and_epub(builds):
    _pdf, text, tex, xhtml = builds["zh-tw"]
    assert "本章尚未翻譯，以下為原文。" in text and "本章尚未翻譯" in xhtml
    assert _squash("请求到达的速度一旦接近服务的速度") in _squash(text)   # the original's text
    assert "本章尚未" not in builds["en"][1] + builds["zh"][1]


def test_emphasis_next_to_cjk_punctuation_in_the_pdf(builds):
    tex = builds["zh"][2]
    assert "\\textbf{粗体（注）}后面" in tex and "\\emph{优化（尤其是融合）}的出发点" in tex
    assert "**" not in builds["zh"][1]


@pytest.mark.parametrize("ed", ["zh", "en", "zh-tw"])
def test_unnumbered_headings_in_the_pdf_outline_and_toc(builds, ed):
    pdf, text, _tex, xhtml = builds[ed]
    outline = [_squash(t) for t in P.pdf_outline(pdf.output)]
    assert _squash(SUMMARY[ed]) in outline                     # no number in front
    assert any(t.startswith("1.2") for t in outline) and not any(
        t.startswith("1.3") for t in outline)
    assert not any(t.startswith("2.2") for t in outline)      # `{.unnumbered}` in chapter 2
    assert "{-}" not in text and "unnumbered}" not in text
    assert re.search(rf">\s*{SUMMARY[ed]}\s*<", xhtml)


def test_latex_error_names_the_authors_file_and_line_when_the_title_wraps(tmp_path):
    root = _book(tmp_path / "book")
    chapter = root / "manuscripts" / CH1
    lines = chapter.read_text(encoding="utf-8").splitlines()
    target = next(i for i, l in enumerate(lines) if l.startswith("寄存器、片上缓存和显存"))
    lines[target] += r" 这里有一个 \bogusmacro{} 命令。"
    chapter.write_text("\n".join(lines) + "\n", encoding="utf-8")
    src = export_edition("zh", tmp_path / "pandoc", builder=builder(root, ["zh"]))
    with pytest.raises(P.BuildError) as exc:
        P.build_pdf(src, info=load_edition_info(root, "zh"), out=tmp_path / "out.pdf", keep_tex=tmp_path / "tex", log=lambda *_: None)
    message = str(exc.value)
    assert message.startswith(f"{chapter}:{target + 1}: Undefined control sequence."), message
    tex = (tmp_path / "tex" / "book.tex").read_text(encoding="utf-8")
    # the situation that misled the old mapping: the chapter title wraps in book.tex
    assert re.search(r"\\chapter\*\{[^}\n]*\n", tex)
    assert not (tmp_path / "out.pdf").exists()


def test_export_warns_about_the_untranslated_chapter_and_strict_stops_it(tmp_path):
    from author_book import CH2
    from bookkit.model import BuildError
    root = _book(tmp_path / "book")
    warnings: list[str] = []
    export_edition("zh-tw", tmp_path / "zh-tw", builder=builder(root, ["zh-tw"]),
                   warn=warnings.append)
    assert [w.split(":")[0] for w in warnings] == [f"book-zh-tw/{CH2}"]
    exported = (tmp_path / "zh-tw" / CH2).read_text(encoding="utf-8")
    assert "本章尚未翻譯，以下為原文。" in exported
    with pytest.raises(BuildError) as exc:
        export_edition("zh-tw", tmp_path / "strict", builder=builder(root, ["zh-tw"], strict=True))
    assert f"book-zh-tw/{CH2}: chapter not translated" in str(exc.value)
