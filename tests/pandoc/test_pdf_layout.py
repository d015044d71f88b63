"""PDF page layout as a reader sees it: footnotes numbered per chapter, the Latin font beside
Chinese text, no figure alone on a page, no table row stranded at a page's foot."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bookkit.load.config import load_edition_info
from bookkit.render.pandoc import convert as P

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "pandoc"
EDITIONS = ("zh", "en", "zh-tw")
CAPTION = re.compile(r"^(图|圖|Figure) \d+-\d+[：:]")


def _pages(pdf: Path) -> list[str]:
    out = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                         check=True).stdout
    return out.split("\f")


def _footnotes(ed: str) -> list[list[str]]:
    """Each chapter's footnote texts (their first words), in order."""
    chapters = (FIXTURES / ed / "chapters.txt").read_text(encoding="utf-8").split()
    out = []
    for name in chapters:
        text = (FIXTURES / ed / name).read_text(encoding="utf-8")
        out.append([m.strip()[:12] for m in re.findall(r"^\[\^[^\]]+\]:\s*(.+)$", text, re.M)])
    return out


@pytest.mark.parametrize("ed", EDITIONS)
def test_footnotes_are_numbered_per_chapter(built_pdfs, ed):
    lines = [line.strip() for page in _pages(built_pdfs[ed].output) for line in page.splitlines()
             if line.strip()]
    seen = 0
    for notes in _footnotes(ed):
        for i, start in enumerate(notes, 1):
            at = next(k for k, line in enumerate(lines) if line.startswith(start))
            # the mark is set on its own line above the note's text
            assert lines[at - 1] == str(i), (ed, start, lines[at - 1])
            seen += 1
    assert seen >= 3 and sum(1 for notes in _footnotes(ed) if notes) >= 2


def _fonts_of(pdf: Path, word: str) -> set[str]:
    """Font families that set `word` in the PDF (pdftohtml's XML names a font per text run)."""
    xml = subprocess.run(["pdftohtml", "-xml", "-i", "-stdout", str(pdf)], capture_output=True,
                         text=True, check=True).stdout
    families = dict(re.findall(r'<fontspec id="(\d+)"[^>]*family="[A-Z]{6}\+([^"]+)"', xml))
    return {families[f] for f, text in re.findall(r'<text [^>]*font="(\d+)"[^>]*>(.*?)</text>', xml)
            if word in re.sub(r"<[^>]+>", "", text)}


@pytest.mark.parametrize("ed, latin", [("zh", "NotoSerifCJK"), ("zh-tw", "NotoSerifCJK"),
                                       ("en", "DejaVuSerif")])
def test_latin_in_chinese_text_matches_the_chinese_serif(built_pdfs, ed, latin):
    """In the Chinese editions Latin words are set in Noto Serif CJK's own Latin (drawn to
    match its Han in weight), not DejaVu Serif (visibly heavier: stems ~8% thicker, text ~16%
    darker); the English edition keeps DejaVu Serif."""
    pdf = built_pdfs[ed].output
    families = _fonts_of(pdf, "TFLOPS")
    assert families and all(f.startswith(latin) for f in families), families
    if ed != "en":
        text = "".join(_pages(pdf))
        assert "\u2011" not in text          # copied words keep their hyphen ("Qwen3-8B")
        assert "Qwen3-8B" in text


def _float_only_pages(pdf: Path) -> list[int]:
    """Pages holding a figure caption and no line of prose (a figure left alone)."""
    bad = []
    for no, page in enumerate(_pages(pdf), 1):
        lines = [line.strip() for line in page.splitlines() if line.strip()][1:]   # no running head
        captions = [line for line in lines if CAPTION.match(line)]
        prose = [line for line in lines if not CAPTION.match(line) and (
            len(re.findall(r"[\u4e00-\u9fff]", line)) >= 8 or len(re.findall(r"[A-Za-z]{2,}", line)) >= 5)]
        if captions and not prose:
            bad.append(no)
    return bad


def test_a_tall_figure_that_misses_its_page_is_not_left_alone_on_the_next(tmp_path):
    """A figure taller than half a page that does not fit where it is written used to get a
    page of its own (LaTeX's default float page may be half empty); it now heads the next
    page with text under it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    src = tmp_path / "zh"
    shutil.copytree(FIXTURES / "zh", src)
    fig, ax = plt.subplots(figsize=(3, 5))
    ax.plot([0, 1], [0, 1])
    for ext in ("pdf", "svg"):
        fig.savefig(src / "figures" / f"fig-tall.{ext}")
    plt.close(fig)
    chapter = src / "02-workloads.md"
    filler = ("预填充阶段一次处理整段提示，矩阵乘法的算术强度高，受算力限制；解码阶段每步只生成一个词元，"
              "却要读取全部权重与 KV 缓存，受带宽限制。") * 3
    text = chapter.read_text(encoding="utf-8")
    text = text.replace("![图 2-1", f"{filler}\n\n{filler}\n\n![图 2-1", 1)
    text = text.replace("{#fig-kv-growth}", "{#fig-kv-growth}\n\n"
                        "![图 2-2：一张高的图](figures/fig-tall.pdf){#fig-tall height=58%}", 1)
    text = text.replace("## 2.2", "\n\n".join([filler] * 12) + "\n\n## 2.2", 1)
    chapter.write_text(text, encoding="utf-8")
    pdf = P.build_pdf(src, tmp_path / "tall.pdf", info=load_edition_info(ROOT, "zh"),
                      log=lambda *_: None).output
    pages = _pages(pdf)
    assert any("图 2-2：" in page for page in pages)
    assert _float_only_pages(pdf) == []


def test_first_and_last_table_rows_stay_together():
    """No row alone at a page's foot (the table's start) or head (its end): the first three
    body rows and the last two are joined by `\\\\*` in Pandoc's longtable."""
    rows = "\n".join(f"| r{i} | {i} |" for i in range(1, 7))
    md = f"| A | B |\n|---|--:|\n{rows}\n\n: Caption {{#tbl-x}}\n"
    tex = subprocess.run([P.pandoc_exe(), "-f", "markdown", "-t", "latex"], input=md,
                         capture_output=True, text=True, check=True).stdout
    kept = P.keep_table_rows_together(tex)
    ends = re.findall(r"^r(\d) & \d (\\\\\*?)$", kept, re.M)
    assert ends == [("1", "\\\\*"), ("2", "\\\\*"), ("3", "\\\\"), ("4", "\\\\"), ("5", "\\\\*"),
                    ("6", "\\\\")]
    assert kept.count("\\endlastfoot") == tex.count("\\endlastfoot")
    two = P.keep_table_rows_together(tex.replace("r3 & 3 \\\\\nr4 & 4 \\\\\nr5 & 5 \\\\\nr6 & 6 \\\\\n", ""))
    assert re.findall(r"^r(\d) & \d (\\\\\*?)$", two, re.M) == [("1", "\\\\*"), ("2", "\\\\")]
