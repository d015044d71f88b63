"""LaTeX error mapping through the `% bookkit-source LINE FILE` markers the export writes into
book.tex (bookkit/render/pandoc/latex_errors.py), on a hand-made book.tex and log: the line TeX names,
however the chapter title above it wraps, maps to the author's file:line."""
from pathlib import Path

from bookkit.render.pandoc.latex_errors import MARKER, locate

PREFACE = "# 前言\n\n前言的正文，讲本书的写法。\n"
CHAPTER = ("# 第 1 章 算力与显存\n\n第一段讲算力。\n第二行讲带宽，这里有一个 \\bogusmacro{} 命令。\n\n"
           "## 屋顶线\n\n屋顶线的正文[^n]。\n\n[^n]: 脚注里也有 \\othermacro{} 一个。\n")


def _book(tmp_path: Path) -> tuple[Path, Path, Path]:
    pre, ch1 = tmp_path / "00-前言.md", tmp_path / "01-算力 与 显存.md"
    pre.write_text(PREFACE, encoding="utf-8")
    ch1.write_text(CHAPTER, encoding="utf-8")
    tex = "\n".join([
        "\\documentclass{book}", "\\begin{document}",
        f"{MARKER} 1 {pre}", "\\chapter*{前言}\\label{sec-preface}", "",
        f"{MARKER} 3 {pre}", "前言的正文，讲本书的写法。", "",
        f"{MARKER} 1 {ch1}",
        "\\chapter*{\\texorpdfstring{第 1", "章 算力与显存}{第 1 章 算力与显存}}\\label{sec-ch1}", "",
        f"{MARKER} 3 {ch1}", "第一段讲算力。", "第二行讲带宽，这里有一个 \\bogusmacro{} 命令。", "",
        f"{MARKER} 6 {ch1}", "\\section*{屋顶线}", "",
        f"{MARKER} 8 {ch1}", "屋顶线的正文\\footnote{脚注里也有 \\othermacro{} 一个。}。", "",
        "\\end{document}", ""])
    path = tmp_path / "book.tex"
    path.write_text(tex, encoding="utf-8")
    return path, pre, ch1


def _log(tex: Path, needle: str) -> tuple[str, int]:
    line = next(i for i, l in enumerate(tex.read_text(encoding="utf-8").splitlines(), 1)
                if needle in l)
    return (f"./book.tex:{line}: Undefined control sequence.\n"
            f"l.{line} ...这里有一个 {needle}\n"), line


def test_error_under_a_wrapped_chapter_title_names_the_chapter_and_line(tmp_path):
    tex, pre, ch1 = _book(tmp_path)
    log, line = _log(tex, "\\bogusmacro")
    message = locate(log, tex, [pre, ch1], {"sec-preface": pre, "sec-ch1": ch1}, tmp_path)
    assert message.startswith(f"{ch1}:4: Undefined control sequence."), message
    assert f"book.tex:{line}" in message


def test_error_in_a_footnote_names_the_footnote_line(tmp_path):
    tex, pre, ch1 = _book(tmp_path)
    log, _line = _log(tex, "\\othermacro")
    message = locate(log, tex, [pre, ch1], {}, tmp_path)
    assert message.startswith(f"{ch1}:10: "), message       # where the note is written
