"""Helpers for the release tests: site parsing, text normalisation, build and release runners.

The session fixtures that use them are in conftest.py.
"""
from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bookkit.load.config import chapter_plan, load_edition_info  # noqa: E402

EDITIONS = ("zh", "en", "zh-tw")
# edition -> (site prefix, PDF build script, PDF name, EPUB name)
LAYOUT = {
    "zh": ("", "book/build_pdf.sh", "AI-Infra-Book.pdf", "AI-Infra-Book.epub"),
    "en": ("en/", "book-en/build_pdf.sh", "AI-Infra-Book-EN.pdf", "AI-Infra-Book-EN.epub"),
    "zh-tw": ("zh-tw/", "book-zh-tw/build_pdf.sh", "AI-Infra-Book-ZH-TW.pdf",
              "AI-Infra-Book-ZH-TW.epub"),
}
PDF_TIMEOUT = 600


# ------------------------------------------------------------------------------ text helpers
QUOTES = dict.fromkeys(map(ord, "\"'‘’“”「」『』"), None)


def norm(text: str) -> str:
    """Compare text across HTML and PDF: NFKC (ligatures, full-width forms, math italics), no
    whitespace (pdftotext breaks CJK lines anywhere), no quote marks (typography differs)."""
    text = unicodedata.normalize("NFKC", text).translate(QUOTES)
    return re.sub(r"\s+", "", text)


def strip_tags(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


@dataclass
class Chapter:
    number: int
    slug: str
    secno: str          # "Chapter 1", "第 1 章", "" for the preface
    title: str          # heading text without the number
    numbers: list[str]  # up to 3 rendered bound values (provenance stripped)


@dataclass
class SiteEdition:
    key: str
    chapters: list[Chapter]
    captions: list[tuple[str, str]]   # (label "Figure 1-1", leading caption text), book order
    figure_word: str                  # "Figure", "图", "圖"
    caption_sep: str


H1_RE = re.compile(r"<h1\b[^>]*>(.*?)</h1>", re.S)
SECNO_RE = re.compile(r'<span class="secno">(.*?)</span>', re.S)
ANCHOR_RE = re.compile(r'<a class="anchor".*?</a>', re.S)
NUM_RE = re.compile(r'<span class="num"[^>]*>(.*?)<span class="prov"', re.S)
CAPTION_RE = re.compile(r'<figcaption>\s*<span class="capno">(.*?)</span>(.*?)</figcaption>', re.S)


def read_site_edition(site: Path, key: str) -> SiteEdition:
    info = load_edition_info(ROOT, key)
    prefix = LAYOUT[key][0]
    sep = info.strings["caption_sep"]
    chapters, captions = [], []
    for number, _file, slug in chapter_plan(ROOT):
        page = (site / prefix / f"{slug}.html").read_text(encoding="utf-8")
        h1 = H1_RE.search(page)
        assert h1, f"{prefix}{slug}.html has no <h1>"
        m = SECNO_RE.search(h1.group(1))
        secno = strip_tags(m.group(1)).strip() if m else ""
        title = strip_tags(ANCHOR_RE.sub("", SECNO_RE.sub("", h1.group(1)))).strip()
        # the 3 most distinctive values (longest rendered text: "8,190,735,360", "16.1 GB"),
        # so a match in the PDF is not a coincidence with a page number or a small integer
        values = list(dict.fromkeys(strip_tags(raw).strip() for raw in NUM_RE.findall(page)))
        values = [v for v in values if sum(c.isdigit() for c in v) >= 1]
        numbers = sorted(values, key=lambda v: -len(norm(v)))[:3]
        chapters.append(Chapter(number, slug, secno, title, numbers))
        for label, rest in CAPTION_RE.findall(page):
            lead = rest.split("<", 1)[0]          # plain text before any math / number span
            lead = html.unescape(lead).strip()
            if lead.startswith(sep.strip()):
                lead = lead[len(sep.strip()):]
            captions.append((strip_tags(label).strip(), lead.strip()))
    word = info.strings["figure"].split("{n}")[0].strip()
    return SiteEdition(key, chapters, captions, word, sep)


# ------------------------------------------------------------------------------ fixtures
@dataclass
class Built:
    edition: str
    kind: str                 # "pdf" | "epub"
    path: Path
    returncode: int
    output: str
    seconds: float


@dataclass
class Books:
    root: Path
    site: Path
    artifacts: Path                        # the six files, named as in dist/
    builds: dict = field(default_factory=dict)   # (edition, kind) -> Built
    _text: dict = field(default_factory=dict)

    def pdf(self, edition: str) -> Built:
        return self.builds[(edition, "pdf")]

    def epub(self, edition: str) -> Built:
        return self.builds[(edition, "epub")]

    def pdf_text(self, edition: str) -> str:
        """pdftotext output (layout order) of the edition's PDF, cached."""
        if edition not in self._text:
            res = subprocess.run(["pdftotext", "-enc", "UTF-8", str(self.pdf(edition).path), "-"],
                                 capture_output=True, text=True, check=True)
            self._text[edition] = res.stdout
        return self._text[edition]


def _build(kind: str, edition: str, source: Path, out: Path) -> Built:
    if kind == "pdf":
        cmd = ["bash", str(ROOT / LAYOUT[edition][1]), "--source", str(source), "--out", str(out)]
    else:
        cmd = [sys.executable, str(ROOT / "book" / "build_epub.py"), "--edition", edition,
               "--source", str(source), "--out", str(out)]
    t0 = time.monotonic()
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=PDF_TIMEOUT)
    return Built(edition, kind, out, res.returncode, res.stdout + res.stderr,
                 time.monotonic() - t0)


RELEASE_EPOCH = "1700000000"


def run_release(*args, check: bool = False, env_extra: dict | None = None):
    env = dict(os.environ, SOURCE_DATE_EPOCH=RELEASE_EPOCH, **(env_extra or {}))
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "release.py"), *map(str, args)],
                         cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
    if check:
        assert res.returncode == 0, res.stdout + res.stderr
    return res

