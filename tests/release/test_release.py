"""Integration test on the REAL book: PDFs, EPUBs and the release tree.

The site, the three PDFs and the three EPUBs are built once per session (``conftest.books``,
about a minute on two cores); every assertion below reads those files.
"""
from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import tarfile
import zipfile

import pytest

from release_helpers import EDITIONS, LAYOUT, RELEASE_EPOCH, ROOT, norm, run_release, strip_tags

from bookkit.render.pandoc.convert import pdf_outline

DIST_FILES = sorted([LAYOUT[e][2] for e in EDITIONS] + [LAYOUT[e][3] for e in EDITIONS]
                    + ["AI-Infra-Book-site.tar.gz", "numbers.json", "SHA256SUMS"])


def _dehyphenate(text: str) -> str:
    """Join words LaTeX hyphenated at a line end (English)."""
    return re.sub(r"(?<=[A-Za-z])-\n(?=[a-z])", "", text)


def _pdf_norm(books, ed) -> tuple[str, str]:
    raw = books.pdf_text(ed)
    return norm(raw), norm(_dehyphenate(raw))


# ------------------------------------------------------------------------------ builds
@pytest.mark.parametrize("ed", EDITIONS)
def test_pdf_build_succeeds(books, ed):
    b = books.pdf(ed)
    assert b.returncode == 0, f"PDF {ed} failed:\n{b.output[-3000:]}"
    assert b.path.stat().st_size > 10_000
    assert b.path.read_bytes()[:5] == b"%PDF-"
    # a page built taller than the text block prints its foot below the margin (see
    # convert.short_tables_as_floats); the builder reports each such page
    assert "past its foot" not in b.output, b.output[-3000:]


@pytest.mark.parametrize("ed", EDITIONS)
def test_epub_build_succeeds_and_epubcheck_is_clean(books, ed):
    b = books.epub(ed)
    assert b.returncode == 0, f"EPUB {ed} failed (epubcheck runs inside the build):\n{b.output[-3000:]}"
    assert "epubcheck clean" in b.output, b.output
    with zipfile.ZipFile(b.path) as z:
        assert z.namelist()[0] == "mimetype"
        assert z.read("mimetype") == b"application/epub+zip"


# ------------------------------------------------------------------------------ PDF content
@pytest.mark.parametrize("ed", EDITIONS)
def test_pdf_has_every_chapter_title(books, site_editions, ed):
    assert books.pdf(ed).returncode == 0
    text, dehyph = _pdf_norm(books, ed)
    missing = [f"{c.secno} {c.title}" for c in site_editions[ed].chapters
               if norm(c.secno + c.title) not in text and norm(c.secno + c.title) not in dehyph]
    assert not missing, f"chapter headings missing from the {ed} PDF: {missing}"


@pytest.mark.parametrize("ed", EDITIONS)
def test_pdf_has_bound_numbers_from_the_site(books, site_editions, ed):
    assert books.pdf(ed).returncode == 0
    text, dehyph = _pdf_norm(books, ed)
    checked, missing = 0, []
    for ch in site_editions[ed].chapters:
        for value in ch.numbers:
            checked += 1
            if norm(value) not in text and norm(value) not in dehyph:
                missing.append(f"{ch.slug}: {value!r}")
    assert checked >= 9, f"too few bound numbers found on the {ed} site ({checked})"
    assert not missing, f"bound numbers rendered on the site but missing from the {ed} PDF: {missing}"


@pytest.mark.parametrize("ed", EDITIONS)
def test_pdf_figures_match_site_captions(books, site_editions, ed):
    assert books.pdf(ed).returncode == 0
    site = site_editions[ed]
    assert site.captions, f"the {ed} site has no figure captions"
    text, dehyph = _pdf_norm(books, ed)
    # a caption is "<label><sep><text>"; a cross-reference in prose has no separator after it
    pattern = re.compile(re.escape(norm(site.figure_word)) + r"(\d+-\d+)" + re.escape(norm(site.caption_sep)))
    pdf_labels = [norm(site.figure_word) + n for n in pattern.findall(dehyph)]
    site_labels = [norm(label) for label, _ in site.captions]
    assert pdf_labels == site_labels, (
        f"{ed}: PDF captions {pdf_labels} != site captions {site_labels}")
    for label, lead in site.captions:
        head = norm(lead)[:20]
        if len(head) >= 4:
            needle = norm(label) + norm(site.caption_sep) + head
            assert needle in text or needle in dehyph, f"{ed}: caption {label} text {lead[:40]!r} not in PDF"


@pytest.mark.parametrize("ed", EDITIONS)
def test_pdf_bookmarks_cover_every_chapter(books, site_editions, ed):
    assert books.pdf(ed).returncode == 0
    outline = [norm(t) for t in pdf_outline(books.pdf(ed).path)]
    assert outline, f"the {ed} PDF has no bookmarks"
    missing = [f"{c.secno} {c.title}" for c in site_editions[ed].chapters
               if not any(norm(c.secno + c.title) in o for o in outline)]
    assert not missing, f"{ed}: chapters without a bookmark: {missing}\noutline: {outline[:40]}"


def _pdffonts(pdf) -> list[dict]:
    """Rows of ``pdffonts``: parsed from the right (name and type may hold spaces or overflow
    their column; the last five columns are emb, sub, uni, object number and generation)."""
    out = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0].split()[-5:] == ["emb", "sub", "uni", "object", "ID"], lines[0]
    rows = []
    for line in lines[2:]:
        parts = line.split()
        if len(parts) < 6:
            continue
        emb, sub, uni, obj, gen = parts[-5:]
        assert emb in ("yes", "no") and obj.isdigit() and gen.isdigit(), line
        rows.append({"name": parts[0], "emb": emb, "sub": sub, "uni": uni})
    return rows


@pytest.mark.parametrize("ed", EDITIONS)
def test_pdf_fonts_all_embedded(books, ed):
    assert books.pdf(ed).returncode == 0
    rows = _pdffonts(books.pdf(ed).path)
    assert rows, "pdffonts lists no fonts"
    not_embedded = [r["name"] for r in rows if r["emb"] != "yes"]
    assert not not_embedded, f"{ed}: fonts not embedded: {not_embedded}"


# ------------------------------------------------------------------------------ EPUB
def _nav_text(epub) -> str:
    with zipfile.ZipFile(epub) as z:
        container = z.read("META-INF/container.xml").decode()
        opf_path = re.search(r'full-path="([^"]+)"', container).group(1)
        opf = z.read(opf_path).decode()
        item = next(m for m in re.finditer(r"<item\b[^>]*>", opf) if 'properties="nav"' in m.group(0)
                    or "properties=\"nav " in m.group(0))
        href = re.search(r'href="([^"]+)"', item.group(0)).group(1)
        base = opf_path.rsplit("/", 1)[0] + "/" if "/" in opf_path else ""
        nav = z.read(base + href).decode()
    toc = re.search(r'<nav[^>]*epub:type="toc"[^>]*>(.*?)</nav>', nav, re.S)
    assert toc, "nav document has no epub:type=toc"
    return "\n".join(strip_tags(a) for a in re.findall(r"<a\b[^>]*>(.*?)</a>", toc.group(1), re.S))


@pytest.mark.parametrize("ed", EDITIONS)
def test_epub_nav_lists_every_chapter(books, site_editions, ed):
    assert books.epub(ed).returncode == 0
    entries = [norm(x) for x in _nav_text(books.epub(ed).path).splitlines()]
    missing = [f"{c.secno} {c.title}" for c in site_editions[ed].chapters
               if not any(norm(c.title) in e for e in entries)]
    assert not missing, f"{ed}: chapters missing from the EPUB nav: {missing}"


# ------------------------------------------------------------------------------ release
def test_release_tree_and_checksums(release_dist):
    assert sorted(p.name for p in release_dist.iterdir()) == DIST_FILES
    assert not release_dist.with_name("dist.tmp").exists()
    sums = (release_dist / "SHA256SUMS").read_text().splitlines()
    names = [line.split("  ", 1)[1] for line in sums]
    assert names == sorted(names) == [n for n in DIST_FILES if n != "SHA256SUMS"]
    res = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=release_dist,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_release_copies_the_built_files(books, release_dist):
    for ed in EDITIONS:
        for kind, idx in (("pdf", 2), ("epub", 3)):
            name = LAYOUT[ed][idx]
            assert (release_dist / name).read_bytes() == (books.artifacts / name).read_bytes()


def test_site_archive_is_deterministic(books, release_dist, tmp_path):
    archive = release_dist / "AI-Infra-Book-site.tar.gz"
    raw = archive.read_bytes()
    assert raw[:2] == b"\x1f\x8b" and raw[4:8] == b"\0\0\0\0", "gzip header mtime must be 0"
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names == sorted(names)
    assert all(m.mtime == int(RELEASE_EPOCH) for m in members)
    assert all(m.uid == 0 and m.gid == 0 and m.uname == "" and m.gname == "" for m in members)
    assert all(m.isfile() or m.isdir() for m in members)
    files = {m.name.split("/", 1)[1] for m in members if m.isfile()}
    site_files = {p.relative_to(books.site).as_posix() for p in books.site.rglob("*")
                  if p.is_file()} - {".manifest.json"}
    assert files == site_files
    with gzip.open(archive) as gz:
        assert gz.read()  # decompresses
    again = run_release("--artifacts", books.artifacts, "--site", books.site,
                        "--out", tmp_path / "dist2", check=True)
    assert "9 files" in again.stdout
    assert (tmp_path / "dist2" / "AI-Infra-Book-site.tar.gz").read_bytes() == raw
    assert (tmp_path / "dist2" / "SHA256SUMS").read_bytes() == \
        (release_dist / "SHA256SUMS").read_bytes()


def test_numbers_json_has_every_bound_value(release_dist):
    from bookkit.pipeline.build import BuildOptions, Builder
    from bookkit.load.config import load_book

    numbers = json.loads((release_dist / "numbers.json").read_text(encoding="utf-8"))
    book = load_book(ROOT)
    cells = Builder(BuildOptions(root=ROOT, out=ROOT / "build" / "site", quiet=True)).resolve(book).cells
    slugs = {c.number: c.slug for c in book.original.chapters}
    expected = {f"{slugs[n]}/{name}": bv.value for n, r in cells.items() for name, bv in r.values.items()}
    assert expected and set(numbers) == set(expected)
    for key, value in expected.items():
        if isinstance(value, (int, float, str)):
            assert numbers[key] == value, key


def test_release_reports_missing_inputs_and_keeps_previous_dist(books, release_dist, tmp_path):
    partial = tmp_path / "artifacts"
    shutil.copytree(books.artifacts, partial)
    (partial / "AI-Infra-Book-EN.pdf").unlink()
    out = tmp_path / "dist"
    shutil.copytree(release_dist, out)
    before = sorted(p.name for p in out.iterdir())
    res = run_release("--artifacts", partial, "--site", books.site, "--out", out)
    assert res.returncode != 0
    assert ("AI-Infra-Book-EN.pdf" in res.stderr
            and "python -m bookkit pdf --edition en" in res.stderr)
    assert sorted(p.name for p in out.iterdir()) == before
    res = run_release("--artifacts", books.artifacts, "--site", tmp_path / "no-site", "--out", out)
    assert res.returncode != 0 and "make site" in res.stderr


def test_numbers_diff_reports_changes(release_dist, tmp_path):
    current = json.loads((release_dist / "numbers.json").read_text(encoding="utf-8"))
    keys = sorted(k for k, v in current.items() if isinstance(v, (int, float)) and not isinstance(v, bool))
    changed, removed = keys[0], keys[1]
    previous = dict(current)
    previous[changed] = current[changed] * 2 + 1
    del previous[removed]                       # so it is "added" now
    previous["old-chapter/gone"] = 42           # so it is "removed" now
    prev_file = tmp_path / "previous_numbers.json"
    prev_file.write_text(json.dumps(previous), encoding="utf-8")
    notes = tmp_path / "notes.md"

    for extra in (["--current", release_dist / "numbers.json"], []):   # file, then live book
        res = run_release("--diff", prev_file, *extra, "--notes", notes, check=True)
        out = res.stdout
        assert "1 changed, 1 added, 1 removed" in out, out
        assert f"changed  {changed}: {json.dumps(previous[changed])} -> {json.dumps(current[changed])}" in out
        assert f"added    {removed}:" in out
        assert "removed  old-chapter/gone: 42" in out
        body = notes.read_text(encoding="utf-8")
        assert "Numbers diff" in body and f"`{changed}`" in body

    same = run_release("--diff", release_dist / "numbers.json", "--current",
                       release_dist / "numbers.json", check=True)
    assert "0 changed, 0 added, 0 removed" in same.stdout


# ------------------------------------------------------------------------------ PDF typography
@pytest.mark.parametrize("ed", ["zh", "zh-tw"])
def test_chinese_quotes_are_cjk_punctuation(books, ed):
    """“” between Chinese characters are set as CJK punctuation: no Latin spaces around them
    (把“占着”, not 把 “占着”)."""
    text = books.pdf_text(ed)
    assert "“" in text and "”" in text
    spaced = re.findall(r"[\u4e00-\u9fff] [“‘]|[”’] [\u4e00-\u9fff]", text)
    assert not spaced, spaced[:5]


@pytest.mark.parametrize("ed", EDITIONS)
def test_code_and_chinese_lines_never_hyphenate(books, ed):
    """Inline code never breaks at a hyphen it does not have (cal-culations/), and the Chinese
    editions hyphenate no Latin word at all (a Chinese line breaks between characters)."""
    text = books.pdf_text(ed)
    splits = {a + b for a, b in re.findall(r"([A-Za-z_./]+[a-z])-\n\s*([a-z][A-Za-z_./]*)", text)}
    if ed != "en":
        assert not splits, sorted(splits)[:10]
        return
    folder = ROOT / "book-en"
    code = {w for f in folder.glob("*.md")
            for span in re.findall(r"`([^`\n]+)`", f.read_text(encoding="utf-8"))
            for w in re.findall(r"[A-Za-z_./]+", span)}
    assert not splits & code, sorted(splits & code)
