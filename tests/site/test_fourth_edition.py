"""A fourth edition is a folder and one line: copy book-en/ to book-en-gb/, add one `editions:`
line to manuscripts/book.yml, change nothing else, and the real entry points build it.

One copy of the book is built once for the module (the shared warm cache copied in, so only the
new edition's figures are drawn), through the command lines a user runs.
"""
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from bookkit.util.cache import copy_cache
from bookkit.load.config import book_dirs
from bookkit.load.config import chapter_plan

ROOT = Path(__file__).resolve().parents[2]
SHARED_CACHE = ROOT / ".cache" / "bookkit"   # warmed by the session's `built_site`

NEW_LINE = "  - {id: en-gb, dir: book-en-gb, lang: en-GB, path: en-gb, fallback: en}\n"
HTML_LANG_RE = re.compile(r'<html lang="([^"]+)"')
SWITCHER_RE = re.compile(r'<nav class="langs"[^>]*>(.*?)</nav>', re.S)


def _run(root: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=root, capture_output=True, text=True,
                          timeout=timeout)


def copy_sources(root: Path) -> Path:
    """The book's sources as a checkout has them: editions, calculations, pipeline, scripts,
    the PDF/EPUB templates, the website (its node_modules and the .venv linked: only read)."""
    skip = shutil.ignore_patterns("__pycache__", "*.pdf", "*.epub")
    for name in (*book_dirs(ROOT), "calculations", "bookkit", "scripts", "book"):
        shutil.copytree(ROOT / name, root / name, ignore=skip)
    for name in ("templates", "static"):
        shutil.copytree(ROOT / "website" / name, root / "website" / name)
    (root / "website" / "node_modules").symlink_to(ROOT / "website" / "node_modules")
    (root / ".venv").symlink_to(ROOT / ".venv")    # what book*/build_pdf.sh runs
    return root


@pytest.fixture(scope="module")
def gb_book(tmp_path_factory, built_site) -> Path:
    """The book with an en-GB edition added as CONTRIBUTING.md says, built with build_site.py."""
    root = copy_sources(tmp_path_factory.mktemp("fourth") / "book")
    copy_cache(SHARED_CACHE, root / ".cache" / "bookkit")
    shutil.copytree(root / "book-en", root / "book-en-gb")
    config = root / "manuscripts" / "book.yml"
    lines = config.read_text(encoding="utf-8").splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if line.lstrip().startswith("- {id:"))
    config.write_text("".join(lines[:last + 1] + [NEW_LINE] + lines[last + 1:]), encoding="utf-8")
    res = _run(root, "scripts/build_site.py", "--quiet")
    assert res.returncode == 0, res.stderr
    return root


def _pages(site: Path, prefix: str) -> list[Path]:
    names = [f"{slug}.html" for _n, _f, slug in chapter_plan(ROOT)] + ["index.html", "404.html"]
    return [site / prefix / name for name in names]


def test_every_page_in_its_language(gb_book):
    site = gb_book / "build" / "site"
    for page in _pages(site, "en-gb"):
        text = page.read_text(encoding="utf-8")
        assert HTML_LANG_RE.search(text).group(1) == "en-GB", page
        assert '<meta property="og:locale" content="en_GB">' in text, page
    # Numbers in English conventions (its fallback's), figures drawn for its language.
    chapter = (site / "en-gb" / "getting-started.html").read_text(encoding="utf-8")
    english = (site / "en" / "getting-started.html").read_text(encoding="utf-8")
    nums = re.findall(r'<span class="num"[^>]*>(.*?)<span class="prov"', chapter, re.S)
    assert nums and nums == re.findall(r'<span class="num"[^>]*>(.*?)<span class="prov"',
                                       english, re.S)
    figures = re.findall(r'src="(figures/[^"]+\.svg)"', chapter)
    assert figures and all(f.endswith(".en-GB.svg") and (site / "en-gb" / f).is_file()
                           for f in figures)
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert sitemap.count("<loc>") == 4 * 14 and "/en-gb/getting-started.html</loc>" in sitemap


def test_its_own_search_index(gb_book):
    from bookkit.lunr.index import ASSET_NAME, load_payload
    site = gb_book / "build" / "site"
    payload = load_payload({ASSET_NAME: (site / "en-gb" / ASSET_NAME).read_bytes()})
    urls = {row[0].split("#")[0] for row in payload["docs"]}
    assert urls == {p.name for p in _pages(site, "en-gb") if p.name not in ("index.html",
                                                                            "404.html")}
    assert (site / "en-gb" / ASSET_NAME).read_bytes() == (site / "en" / ASSET_NAME).read_bytes()


def test_switcher_links_to_it_from_every_edition(gb_book):
    site = gb_book / "build" / "site"
    for prefix, up in (("", ""), ("en/", "../"), ("zh-tw/", "../"), ("en-gb/", "../")):
        text = (site / prefix / "workloads.html").read_text(encoding="utf-8")
        nav = SWITCHER_RE.search(text).group(1)
        assert f'href="{up}en-gb/workloads.html" hreflang="en-GB" lang="en-GB"' in nav, prefix
        assert ">EN-GB</a>" in nav and nav.count('class="lang') == 4
        assert ('<link rel="alternate" hreflang="en-GB" href="https://ai-infra-book.github.io/'
                'ai-infra-book/en-gb/workloads.html">') in text


def test_check_site_is_clean(gb_book):
    res = _run(gb_book, "scripts/check_site.py", "--site", str(gb_book / "build" / "site"),
               "--root", str(gb_book), "--stale", "--strict")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "0 errors, 0 warnings" in res.stderr
    assert f"{4 * 15} pages" in res.stderr      # 13 chapters, home and 404 per edition


def test_epub(gb_book):
    res = _run(gb_book, "book/build_epub.py", "--edition", "en-gb")
    assert res.returncode == 0, res.stdout + res.stderr
    epub = gb_book / "book-en-gb" / "AI-Infra-Book-EN-GB.epub"
    with zipfile.ZipFile(epub) as z:
        opf = next(n for n in z.namelist() if n.endswith(".opf"))
        meta = z.read(opf).decode("utf-8")
        svgs = [n for n in z.namelist() if n.endswith(".svg")]
    assert "<dc:language>en-GB</dc:language>" in meta
    assert "Understanding AI Infrastructure" in meta
    assert svgs and "epubcheck clean" in res.stdout


def test_copied_pdf_script_builds_its_own_edition(gb_book):
    """book-en-gb/build_pdf.sh is book-en's, copied: it finds its edition from its folder."""
    res = subprocess.run(["bash", "book-en-gb/build_pdf.sh", "--chapter", "0"], cwd=gb_book,
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    pdf = gb_book / "book-en-gb" / "AI-Infra-Book-EN-GB-ch00.pdf"
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout
    assert re.search(r"^Pages:\s+[1-9]", info, re.M)
    assert not (gb_book / "book-en" / "AI-Infra-Book-EN-ch00.pdf").exists()


def test_no_op_check_watches_the_new_folder(gb_book):
    """Last: it edits the copy. The no-op fast path fingerprints the registry's folders, so an
    edit in the new edition's folder is built, not skipped as "up to date"."""
    assert _run(gb_book, "scripts/build_site.py").returncode == 0   # after the EPUB, written
    res = _run(gb_book, "scripts/build_site.py")                    # into book-en-gb/
    assert res.returncode == 0 and "is up to date" in res.stderr, res.stderr
    chapter = gb_book / "book-en-gb" / "00-preface.md"
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\nColour, not color.\n",
                       encoding="utf-8")
    res = _run(gb_book, "scripts/build_site.py")
    assert res.returncode == 0 and "is up to date" not in res.stderr, res.stderr
    page = (gb_book / "build" / "site" / "en-gb" / "preface.html").read_text(encoding="utf-8")
    assert "Colour, not color." in page
