"""PDF (XeLaTeX) and EPUB3 builds of the resolved fixture sources."""
import datetime as dt
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from bookkit.render.pandoc import fonts
from bookkit.load.config import load_edition_info
from bookkit.render.pandoc import convert as P

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "pandoc"


def _info(src):
    """The edition the exported sources `src` are for, as the book's registry gives it."""
    return load_edition_info(ROOT, str(P.load_source(src).meta["edition"]))


def _spec(ed):
    return load_edition_info(ROOT, ed).spec
EDITIONS = ("zh", "en", "zh-tw")

FIG_WORD = {"zh": "图", "en": "Figure", "zh-tw": "圖"}


def _chapters(ed):
    d = FIXTURES / ed
    return [d / n for n in (d / "chapters.txt").read_text(encoding="utf-8").split()]


def _titles(ed):
    """Level-1 heading text of each chapter, without the attribute block."""
    out = []
    for f in _chapters(ed):
        first = f.read_text(encoding="utf-8").splitlines()[0]
        out.append(re.sub(r"\s*\{[^}]*\}\s*$", "", first[2:]).strip())
    return out


def _figure_captions(ed):
    caps = []
    for f in _chapters(ed):
        caps += re.findall(r"^!\[([^\]]*)\]\(figures/[^)]+\.pdf\)\{#fig-", f.read_text(encoding="utf-8"), re.M)
    return caps


def _squash(s):
    return re.sub(r"\s+", "", s)


def _pdftext(pdf):
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout


def _copy_fixture(ed, tmp_path):
    dst = tmp_path / ed
    shutil.copytree(FIXTURES / ed, dst)
    return dst


# ------------------------------------------------------------------ fixtures follow the contract
@pytest.mark.parametrize("ed", EDITIONS)
def test_fixture_follows_contract(ed):
    src = P.load_source(FIXTURES / ed)
    meta = yaml.safe_load((FIXTURES / ed / "metadata.yaml").read_text(encoding="utf-8"))
    assert meta["edition"] == ed and meta["lang"] == load_edition_info(ROOT, ed).lang
    assert [P.chapter_number(p) for p in src.chapters] == [0, 1, 2]
    for f in src.chapters:
        text = f.read_text(encoding="utf-8")
        assert re.match(r"# .+ \{#sec-[\w-]+ \.unnumbered\}\n", text)
    for fig in re.findall(r"\]\((figures/[^)]+)\.pdf\)", "".join(p.read_text() for p in src.chapters)):
        assert (FIXTURES / ed / f"{fig}.pdf").exists() and (FIXTURES / ed / f"{fig}.svg").exists()


# ------------------------------------------------------------------ font preflight
@pytest.mark.parametrize("ed", EDITIONS)
def test_preflight_passes_on_fixtures(ed):
    n = fonts.preflight(_chapters(ed), fonts.fontset_for(_spec(ed)), FIXTURES / ed / "metadata.yaml")
    assert n > 500


def test_fonts_are_real_files():
    for fam in ("Noto Serif CJK SC", "Noto Sans CJK TC Bold", "DejaVu Serif", "DejaVu Math TeX Gyre"):
        path, index = fonts.resolve_font(fam)
        assert path.exists() and index >= 0
    with pytest.raises(fonts.CoverageError, match="not installed"):
        fonts.resolve_font("No Such Font Family XYZ")


def test_preflight_reports_file_and_line_for_missing_glyph(tmp_path):
    src = _copy_fixture("zh", tmp_path)
    chap = src / "02-workloads.md"
    lines = chap.read_text(encoding="utf-8").splitlines()
    lines.insert(3, "这一行有一个表情符号 😀，字体里没有。")
    chap.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(P.BuildError) as err:
        P.build_pdf(src, info=_info(src), out=tmp_path / "out.pdf", log=lambda *_: None)
    msg = str(err.value)
    assert f"{chap}:4: character U+1F600 '😀' is not covered by Noto Serif CJK SC" in msg


def test_preflight_checks_headings_with_sans_fonts(tmp_path):
    src = _copy_fixture("zh-tw", tmp_path)
    chap = src / "01-getting-started.md"
    text = chap.read_text(encoding="utf-8").replace("## 1.1 參數量與記憶體", "## 1.1 參數量 \U00013000 記憶體")
    chap.write_text(text, encoding="utf-8")
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "\U00013000" in l)
    with pytest.raises(fonts.CoverageError, match=rf"01-getting-started.md:{line}: character U\+13000 .*DejaVu Sans .*sans"):
        fonts.preflight([chap], fonts.fontset_for(_spec("zh-tw")))


def test_preflight_math_and_code_roles(tmp_path):
    fs = fonts.fontset_for(_spec("zh"))
    f = tmp_path / "x.md"
    # ∑ in math is covered by the math font; CJK in \text{} by the CJK serif font
    f.write_text("# 标题 {#sec-x .unnumbered}\n\n$$ \\sum_i x_i \\text{总} ∑ $$\n\n`代码 ü`\n", encoding="utf-8")
    assert fonts.preflight([f], fs) > 5
    f.write_text("正文\n\n```\nprint('\U0001F600')\n```\n", encoding="utf-8")
    with pytest.raises(fonts.CoverageError, match=r"x.md:4: .*DejaVu Sans Mono.*mono"):
        fonts.preflight([f], fs)


def test_preflight_remembers_a_character_per_role(tmp_path):
    """The preflight looks each character up once, but per role: '˪' (U+02EA) is in the zh
    edition's serif font, not in its mono font, so after a line of body text that has it, the
    same character in code is still reported."""
    fs = fonts.fontset_for(_spec("zh"))
    f = tmp_path / "x.md"
    f.write_text("正文 ˪ 正文 ˪\n\n```\nx ˪\n```\n", encoding="utf-8")
    with pytest.raises(fonts.CoverageError, match=r"x.md:4: character U\+02EA .*DejaVu Sans Mono"):
        fonts.preflight([f], fs)
    f.write_text("正文 ˪ 正文 ˪\n", encoding="utf-8")
    assert fonts.preflight([f], fs) == 6     # every character counted, repeated ones too


def test_preflight_remembers_the_files_that_passed(tmp_path, monkeypatch):
    """With a folder to keep them in, files that passed are not parsed again while their text
    (and the fonts) are unchanged; an edited file is, and its new character is reported."""
    fs = fonts.fontset_for(_spec("zh"))
    files = [tmp_path / "a.md", tmp_path / "b.md"]
    files[0].write_text("# 标题 {#sec-a .unnumbered}\n\n正文一。\n", encoding="utf-8")
    files[1].write_text("正文二，`code`。\n", encoding="utf-8")
    keep = tmp_path / "keep"
    parsed = []
    real = fonts._segments
    monkeypatch.setattr(fonts, "_segments", lambda text: parsed.append(text) or real(text))
    first = fonts.preflight(files, fs, keep=keep)
    assert len(parsed) == 2 and first > 10
    parsed.clear()
    assert fonts.preflight(files, fs, keep=keep) == first and parsed == []
    files[1].write_text("正文二 \U00013000。\n", encoding="utf-8")
    with pytest.raises(fonts.CoverageError, match=r"b.md:1: character U\+13000"):
        fonts.preflight(files, fs, keep=keep)
    assert len(parsed) == 1
    files[1].write_text("正文二。\n", encoding="utf-8")
    parsed.clear()
    fonts.preflight(files, fonts.fontset_for(_spec("en")), keep=keep)
    assert len(parsed) == 2                                     # other fonts: checked again


# ------------------------------------------------------------------ PDF
@pytest.mark.parametrize("ed", EDITIONS)
def test_pdf_text_titles_numbers_and_figures(built_pdfs, ed):
    res = built_pdfs[ed]
    assert res.output.exists() and res.latex_runs <= P.MAX_LATEX_RUNS and res.pages >= 6
    text = _pdftext(res.output)
    flat = _squash(text)
    for title in _titles(ed):
        assert _squash(title) in flat, title
    for number in ("147,456", "(1.1)", "(1.2)", "16.4", "141.1"):
        assert number in text, number
    # figure captions: same count and numbering as the source, no LaTeX "Figure 1:" prefix
    caps = _figure_captions(ed)
    assert len(caps) == 2
    word = FIG_WORD[ed]
    found = re.findall(rf"{word}\s*(\d+-\d+)[:：]", text)
    expected = [re.match(rf"{word}\s*(\d+-\d+)", c).group(1) for c in caps]
    # each caption once as a caption; references in the prose have no colon after the number
    assert sorted(set(found)) == sorted(expected)
    for cap in caps:
        assert _squash(cap) in flat
    assert not re.search(r"(Figure|Table|图|表)\s*\d+\s*[:：]\s*(图|表|Figure|Table)", text)


@pytest.mark.parametrize("ed", EDITIONS)
def test_pdf_bookmarks_metadata_fonts(built_pdfs, ed):
    pdf = built_pdfs[ed].output
    outline = [_squash(t) for t in P.pdf_outline(pdf)]
    for title in _titles(ed):
        assert _squash(title) in outline, (title, outline)
    assert "1.2" in "".join(outline)  # sections too
    assert P.check_pdffonts(pdf) == []
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    meta = yaml.safe_load((FIXTURES / ed / "metadata.yaml").read_text(encoding="utf-8"))
    assert re.search(rf"^Title:\s+{re.escape(meta['title'])}$", info, re.M)
    assert re.search(rf"^Author:\s+{re.escape(meta['author'])}$", info, re.M)
    fonts_out = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True).stdout
    # the Chinese editions set Latin in Noto Serif CJK's own Latin (test_pdf_layout.py)
    assert ("DejaVuSerif" in fonts_out or ed != "en") and "NotoSerifCJK" in fonts_out


def _pdf_blob(pdf):
    import zlib

    data = Path(pdf).read_bytes()
    parts = [data]
    for m in re.finditer(rb"stream\r?\n", data):
        try:
            parts.append(zlib.decompressobj().decompress(data[m.end():m.end() + 2_000_000]))
        except zlib.error:
            pass
    return b"".join(parts)


def test_pdf_cross_references_are_links(built_pdfs):
    # Undefined references fail the build (checked in the log); here: every cross-reference of
    # the source became a link annotation (plus TOC and footnote links).
    blob = _pdf_blob(built_pdfs["zh"].output).replace(b" ", b"")
    refs = sum(f.read_text(encoding="utf-8").count("](#") for f in _chapters("zh"))
    assert refs >= 10
    assert blob.count(b"/Subtype/Link") >= refs
    assert b"/S/GoTo" in blob or b"/Dest" in blob


def test_pdf_title_page_has_version_and_date(built_pdfs):
    text = _pdftext(built_pdfs["en"].output)
    assert re.search(r"Version\s+dev\s+\|\s+Date\s+2026-05-01", text)


def test_pdf_failed_latex_keeps_previous_output(tmp_path):
    src = _copy_fixture("en", tmp_path)
    chap = src / "02-workloads.md"
    lines = chap.read_text(encoding="utf-8").splitlines()
    # in math: a translation's prose reaches LaTeX as text (bookkit/source/trust.py), its math as TeX
    lines.insert(2, "This line has $\\undefinedmacroxyz{}$ in it.")
    chap.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "book.pdf"
    out.write_bytes(b"previous build")
    with pytest.raises(P.BuildError) as err:
        P.build_pdf(src, info=_info(src), out=out, chapter=2, log=lambda *_: None)
    assert f"{chap}:3: Undefined control sequence" in str(err.value)
    assert out.read_bytes() == b"previous build"


def test_pdf_preflight_failure_keeps_previous_output(tmp_path):
    src = _copy_fixture("en", tmp_path)
    (src / "00-preface.md").write_text("# Preface {#sec-preface .unnumbered}\n\nA \U00013000 here.\n",
                                       encoding="utf-8")
    out = tmp_path / "book.pdf"
    out.write_bytes(b"previous build")
    with pytest.raises(P.BuildError, match=r"00-preface.md:3: character U\+13000"):
        P.build_pdf(src, info=_info(src), out=out, log=lambda *_: None)
    assert out.read_bytes() == b"previous build"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.pdf", "en"]  # no stray temp files


def test_pdf_build_starts_from_the_last_builds_cross_references(tmp_path):
    """With `aux_dir`, the cross-reference files of one build seed the next: unchanged text
    takes one XeLaTeX run instead of several, and gives the same PDF. Kept files that break
    LaTeX are dropped and the build starts from nothing (and keeps the good files after)."""
    src = _copy_fixture("en", tmp_path)
    aux = tmp_path / "aux"
    first = P.build_pdf(src, info=_info(src), out=tmp_path / "a.pdf", chapter=2, aux_dir=aux,
                        log=lambda *_: None)
    assert first.latex_runs >= 2 and (aux / "book.aux").is_file()
    again = P.build_pdf(src, info=_info(src), out=tmp_path / "b.pdf", chapter=2, aux_dir=aux,
                        log=lambda *_: None)
    assert again.latex_runs == 1
    assert (tmp_path / "a.pdf").read_bytes() == (tmp_path / "b.pdf").read_bytes()
    good = (aux / "book.aux").read_text(encoding="utf-8")
    (aux / "book.aux").write_text("\\relax\n\\undefinedmacroxyz\n", encoding="utf-8")
    broken = P.build_pdf(src, info=_info(src), out=tmp_path / "c.pdf", chapter=2, aux_dir=aux,
                         log=lambda *_: None)
    assert broken.latex_runs >= 2
    assert (tmp_path / "c.pdf").read_bytes() == (tmp_path / "a.pdf").read_bytes()
    assert (aux / "book.aux").read_text(encoding="utf-8") == good


@pytest.mark.parametrize("ed", EDITIONS)
def test_chapter_by_chapter_latex_is_one_pandoc_runs(ed, tmp_path, monkeypatch):
    """`pandoc_latex` converts each chapter on its own and fills the template around them: the
    LaTeX is the same as one Pandoc run over the whole book makes. With a folder to keep the
    chapters in, a second build runs Pandoc once (the template) and an edited chapter once
    more."""
    src = _copy_fixture(ed, tmp_path)
    source = P.load_source(src)
    files = P.select_chapters(source, None)
    work = tmp_path / "work"
    work.mkdir()
    (work / "latex.lua").write_text(P.lua_filter("latex.lua"), encoding="utf-8")
    options = ["--from", P.reader_format(False), "--to", "latex", "--top-level-division=chapter",
               "--metadata-file", str(source.metadata_file), "--lua-filter",
               str(work / "latex.lua"), "--resource-path", str(src),
               "--syntax-highlighting=default", "--fail-if-warnings", "-V", "toc-depth=1"]
    whole = subprocess.run([P.pandoc_exe(), *map(str, files), *options, "--standalone",
                            "--template", str(P.TEMPLATE), "-o", "one.tex"], cwd=work,
                           capture_output=True, text=True)
    assert whole.returncode == 0, whole.stderr
    one_run = (work / "one.tex").read_text(encoding="utf-8")
    keep = tmp_path / "keep"
    assert P.pandoc_latex(files, options, work, src, keep) == one_run
    assert "\\chapter" in one_run and len(files) >= 3

    runs = []
    real_run = P._run
    monkeypatch.setattr(P, "_run", lambda cmd, **kw: runs.append(cmd) or real_run(cmd, **kw))
    # a build's own folder (where its filters are written) differs from the last build's
    other = tmp_path / "work2"
    shutil.copytree(work, other)
    options = [o.replace(str(work), str(other)) for o in options]
    work = other
    assert P.pandoc_latex(files, options, work, src, keep) == one_run
    assert len(runs) == 1                                  # the template only
    edited = files[1]
    edited.write_text(edited.read_text(encoding="utf-8") + "\nOne more paragraph.\n",
                      encoding="utf-8")
    runs.clear()
    assert "One more paragraph." in P.pandoc_latex(files, options, work, src, keep)
    assert len(runs) == 2 and str(edited) in runs[0]
    assert len(list(keep.glob("*.tex"))) == len(files)     # the old chapter's file is gone


def test_pdf_chapter_build_flags_unknown_reference(tmp_path):
    src = _copy_fixture("zh", tmp_path)
    chap = src / "02-workloads.md"
    text = chap.read_text(encoding="utf-8").replace("见[图 1-1](#fig-roofline)", "见[图 9-9](#fig-nowhere)")
    chap.write_text(text, encoding="utf-8")
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "#fig-nowhere" in l)
    with pytest.raises(P.BuildError) as err:
        P.build_pdf(src, info=_info(src), out=tmp_path / "ch.pdf", chapter=2, log=lambda *_: None)
    msg = str(err.value)
    assert f"{chap}:{line}: undefined cross-reference #fig-nowhere" in msg
    # references into chapter 1 are expected in a one-chapter build: not errors
    assert "#sec-kv-cache" not in msg and "#tbl-params" not in msg


def test_one_chapter_export_knows_the_other_chapters_labels(tmp_path):
    """A one-chapter export holds only that chapter; its book-ids.txt lists the book's labels so
    references to other chapters are warnings, while an unknown label stays an error."""
    src = _copy_fixture("zh", tmp_path)
    others = [p for p in src.glob("0*.md") if P.chapter_number(p) != 2]
    ids = sorted(P._ids_in(others))
    for p in others:
        p.unlink()
    (src / "chapters.txt").write_text("02-workloads.md\n", encoding="utf-8")
    (src / "book-ids.txt").write_text("\n".join(ids) + "\n", encoding="utf-8")
    warnings = []
    P.build_pdf(src, info=_info(src), out=tmp_path / "ch.pdf", chapter=2, log=warnings.append)
    assert any("points outside this chapter" in w for w in warnings)
    (src / "book-ids.txt").unlink()
    with pytest.raises(P.BuildError) as err:
        P.build_pdf(src, info=_info(src), out=tmp_path / "ch.pdf", chapter=2, log=lambda *_: None)
    assert "undefined cross-reference" in str(err.value)


# ------------------------------------------------------------------ EPUB
@pytest.mark.parametrize("ed", EDITIONS)
def test_epub_is_deterministic_and_clean(built_epubs, ed):
    first, second = built_epubs[ed]
    assert first.output.read_bytes() == second.output.read_bytes()
    meta = yaml.safe_load((FIXTURES / ed / "metadata.yaml").read_text(encoding="utf-8"))
    day = dt.date.fromisoformat(str(meta["date"]))
    with zipfile.ZipFile(first.output) as z:
        infos = z.infolist()
        assert infos[0].filename == "mimetype" and infos[0].compress_type == zipfile.ZIP_STORED
        assert {i.date_time for i in infos} == {(day.year, day.month, day.day, 0, 0, 0)}


@pytest.mark.parametrize("ed", EDITIONS)
def test_epub_content(built_epubs, ed):
    epub = built_epubs[ed][0].output
    meta = yaml.safe_load((FIXTURES / ed / "metadata.yaml").read_text(encoding="utf-8"))
    with zipfile.ZipFile(epub) as z:
        names = z.namelist()
        opf = z.read("EPUB/content.opf").decode()
        nav = z.read("EPUB/nav.xhtml").decode()
        chapters = [n for n in names if re.match(r"EPUB/text/ch\d+\.xhtml$", n)]
        xhtml = "".join(z.read(n).decode() for n in sorted(chapters))
        css = "".join(z.read(n).decode() for n in names if n.endswith(".css"))
    # epub|type selectors only apply when the stylesheet declares the namespace, before any rule
    assert "epub|type" in css
    namespace = css.index('@namespace epub "http://www.idpf.org/2007/ops";')
    assert namespace < css.index("{")
    assert f"<dc:language>{meta['lang']}</dc:language>" in opf
    assert meta["identifier"] in opf
    assert 'properties="cover-image"' in opf
    assert len(chapters) == 3  # one file per chapter
    assert not any(n.endswith(".pdf") for n in names)
    assert sum(n.endswith(".svg") for n in names) == 2
    for title in _titles(ed):
        assert title in nav
    assert "1.2 " in nav  # sections in the navigation document
    assert "<math" in xhtml and "(1.1)" in xhtml and "mtable" in xhtml  # MathML, aligned
    assert 'epub:type="footnote"' in xhtml
    assert 'href="ch002.xhtml#fig-roofline"' in xhtml  # cross-file figure link resolved


def test_epub_failure_keeps_previous_output(tmp_path):
    src = _copy_fixture("zh", tmp_path)
    chap = src / "01-getting-started.md"
    chap.write_text(chap.read_text(encoding="utf-8").replace("fig-roofline.pdf", "missing.pdf"),
                    encoding="utf-8")
    out = tmp_path / "book.epub"
    out.write_bytes(b"previous build")
    with pytest.raises(P.BuildError, match="missing.pdf"):
        P.build_epub(src, info=_info(src), out=out, check=False)
    assert out.read_bytes() == b"previous build"


def test_cover_png_is_deterministic(tmp_path):
    meta = yaml.safe_load((FIXTURES / "zh-tw" / "metadata.yaml").read_text(encoding="utf-8"))
    a = P.make_cover_png(meta, tmp_path / "a.png", _spec("zh-tw")).read_bytes()
    b = P.make_cover_png(meta, tmp_path / "b.png", _spec("zh-tw")).read_bytes()
    assert a == b and a.startswith(b"\x89PNG")


# ------------------------------------------------------------------ CLI
def test_cli_chapter_output_never_clobbers_the_book():
    assert P.default_out("pdf", _spec("zh"), 3, ROOT).name == "AI-Infra-Book-ch03.pdf"
    assert P.default_out("epub", _spec("zh-tw"), 0, ROOT).name == "AI-Infra-Book-ZH-TW-ch00.epub"
    assert P.default_out("pdf", _spec("en"), None, ROOT) == ROOT / "book-en" / "AI-Infra-Book-EN.pdf"


def test_cli_epub_chapter_from_source(tmp_path, capsys):
    out = tmp_path / "one.epub"
    from bookkit.__main__ import main
    rc = main(["epub", "--edition", "en", "--source", str(FIXTURES / "en"), "--chapter", "1",
               "--out", str(out), "--no-check"])
    assert rc == 0 and out.exists()
    with zipfile.ZipFile(out) as z:
        chapters = [n for n in z.namelist() if re.match(r"EPUB/text/ch\d+\.xhtml$", n)]
    assert len(chapters) == 1
