"""Issue 27, attack 2: files of the build machine in the PDF. A translation's prose reaches LaTeX
as text; raw TeX is the original author's alone; XeLaTeX itself may read only its build folder."""
import subprocess

import pytest

from conftest import ORIGINAL, TRANSLATION, build_site, run, trust_errors


@pytest.fixture
def secret(tmp_path):
    path = tmp_path / "secret.tex"
    path.write_text("SECRET-FILE-CONTENT-1234\n")
    return path


def pdf_text(path) -> str:
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True,
                          check=True).stdout


def test_tex_in_translated_prose_is_text(attacked, secret):
    text = (TRANSLATION + f"\nProse \\input{{{secret}}} and \\immediate\\write18{{touch x}}, "
            "[s]{onclick=1} end.\n")
    root = attacked(translation=text)
    edition = root / "book-en" / "edition.yml"     # an interface string is text too
    text = edition.read_text().replace("version: Version", f"version: V\\input{{{secret}}}")
    # (a short path: a long one runs off the title page)
    edition.write_text(text.replace("title: Understanding", "title: T\\input{/etc/hostname} U"))
    res = run(root, "-m", "bookkit", "pdf", "--edition", "en")
    assert res.returncode == 0, res.stderr
    shown = " ".join(pdf_text(root / "book-en" / "AI-Infra-Book-EN.pdf").split())
    assert f"\\input{{{secret}}}" in shown           # as written, in the prose...
    assert f"V\\input{{{secret}}}" in shown           # ...on the title page...
    assert "T\\input{/etc/hostname} U" in shown       # ...and in the title
    assert "[s]{onclick=1}" in shown
    assert "SECRET-FILE-CONTENT" not in shown
    assert not (root / "book-en" / "x").exists()


def test_xelatex_reads_no_file_outside_its_build_folder(attacked, secret):
    """The original's author may write raw TeX, but even then XeLaTeX (openin_any=p) refuses a
    file outside the build folder: the PDF build fails, naming the line and the refused file."""
    root = attacked(original=ORIGINAL + f"\n原文 \\input{{{secret}}} 结束。\n")
    res = run(root, "-m", "bookkit", "pdf", "--edition", "zh")
    assert res.returncode != 0
    assert "manuscripts/01-x.md:11" in res.stderr, res.stderr
    assert f"XeLaTeX refused to read {secret}" in res.stderr
    assert not list(root.glob("book/*.pdf"))
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize("payload, reason", [
    ("Math $\\input{/etc/hostname}$.", "math command \\input is not used in the original"),
    ("Math $x^^5cinput$.", "`^^` in math"),
    ("```{=latex}\n\\input{/etc/hostname}\n```", "a raw ```{=latex} block is not allowed"),
    ("Inline `\\input{/etc/hostname}`{=latex} raw.", "a raw inline"),
])
def test_raw_tex_from_a_translation_is_refused(attacked, payload, reason):
    root = attacked(translation=TRANSLATION + "\n" + payload + "\n")
    res = run(root, "-m", "bookkit", "pdf", "--edition", "en")
    assert res.returncode != 0 and f"book-en/01-x.md:7: {reason}" in res.stderr, res.stderr
    assert not list(root.glob("book-en/*.pdf"))
    assert any(reason in f.message for f in trust_errors(root))
    assert build_site(root).returncode != 0
