"""bench/adapter.py lays the peers' synthetic book out as a book root our pipeline builds.

No timing here: structure, byte-identical content, and one build of a reduced copy (preface +
2 chapters per edition).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import adapter  # noqa: E402

pytestmark = pytest.mark.skipif(not adapter.GEN_BOOK.is_file(),
                                reason=f"{adapter.GEN_BOOK} not available")

# The reduced copy keeps the preface and chapters 1-2; the book links across all 12 chapters, and a
# link to a chapter outside the copy is a build error, so those links become plain text there.
CHAPTERS = 2


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    book = tmp_path_factory.mktemp("gen") / "book"
    adapter.generate(book)
    return book


def _trim_links(root: Path, keep: set[str]) -> None:
    """Unlink `[text](chNN.md…)` to files outside a reduced copy (text kept, structure kept)."""
    import re
    pattern = re.compile(r"\[([^\]]*)\]\((ch\d\d\.md|preface\.md)(#[^)]*)?\)")
    for folder in adapter.EDITION_DIRS.values():
        for path in (root / folder).glob("*.md"):
            text = path.read_text(encoding="utf-8")
            new = pattern.sub(lambda m: m.group(0) if m.group(2) in keep else m.group(1), text)
            if new != text:
                path.write_text(new, encoding="utf-8")


def test_layout_and_content(synthetic, tmp_path):
    root = adapter.adapt_synthetic(synthetic, tmp_path / "root")
    for folder in ("manuscripts", "book-en", "book-zh-tw"):
        names = sorted(p.name for p in (root / folder).glob("*.md"))
        assert names == sorted(adapter.SYNTHETIC_FILES)
        assert (root / folder / "edition.yml").is_file()
        assert (root / folder / "images" / "figure.png").is_file()
    yml = (root / "manuscripts" / "book.yml").read_text(encoding="utf-8")
    assert "{file: ch07.md, slug: ch07}" in yml and "{file: preface.md, slug: preface}" in yml
    # the pipeline finds its root from these files: they must be real copies, not symlinks
    assert not (root / "bookkit").is_symlink() and not (root / "scripts").is_symlink()
    assert (root / "scripts" / "build_site.py").is_file()
    assert (root / "website" / "node_modules").exists()
    assert adapter.verify_content(synthetic, root) == []


def test_edit_paragraph(synthetic, tmp_path):
    root = adapter.adapt_synthetic(synthetic, tmp_path / "root", chapters=7)
    path = root / "manuscripts" / adapter.EDIT_FILE
    before = adapter.edit_paragraph(path, "MARK")
    after = path.read_text(encoding="utf-8")
    assert after != before and after.count("MARK") == 1
    lines = after.split("\n")
    i = next(k for k, line in enumerate(lines) if "MARK" in line)
    h3 = next(k for k, line in enumerate(lines) if line.startswith("### "))
    assert i > h3 and all(not line.strip() for line in lines[h3 + 1:i])


def test_reduced_copy_builds(synthetic, tmp_path):
    root = adapter.adapt_synthetic(synthetic, tmp_path / "root", chapters=CHAPTERS)
    keep = set(adapter.SYNTHETIC_FILES[: CHAPTERS + 1])
    _trim_links(root, keep)
    out = root / "site"
    proc = subprocess.run([sys.executable, str(root / "scripts" / "build_site.py"), "--out",
                           str(out), "--quiet"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for prefix in ("", "en/", "zh-tw/"):
        for name in ("index.html", "preface.html", "ch01.html", "ch02.html", "search-index.js"):
            assert (out / prefix / name).is_file(), prefix + name
        assert (out / prefix / "images" / "figure.png").is_file()
    page = (out / "ch01.html").read_text(encoding="utf-8")
    assert 'class="katex' in page                     # math rendered at build time
    assert 'id="s1-1"' in page                        # the book's own heading IDs kept
    assert 'href="ch02.html' in page                  # .md links mapped to pages
    # nothing was written into the checkout
    assert not (REPO / "bench" / "site").exists()
