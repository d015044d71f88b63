"""The edition registry (`editions:` in manuscripts/book.yml): validation with file:line, what a
fallback gives, and the tables derived from it."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bookkit.load.config import load_registry
from bookkit.load.config import load_edition_info
from bookkit.model import BuildError

ROOT = Path(__file__).resolve().parents[2]
HEAD = "site_url: https://example.org/\n# editions follow\neditions:\n"
ORIGINAL = '  - {id: zh, dir: manuscripts, lang: zh-Hans, path: ""}\n'
ENGLISH = "  - {id: en, dir: book-en, lang: en, path: en}\n"
TAIL = "chapters:\n  - {file: 00-preface.md, slug: preface}\n"


def book(tmp_path: Path, *lines: str, folders=("manuscripts", "book-en")) -> Path:
    for folder in folders:
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    (tmp_path / "manuscripts" / "book.yml").write_text(HEAD + "".join(lines) + TAIL,
                                                       encoding="utf-8")
    return tmp_path


def error(root: Path) -> BuildError:
    with pytest.raises(BuildError) as exc:
        load_registry(root)
    return exc.value


def test_the_real_registry():
    reg = load_registry(ROOT)
    assert reg.ids == ["zh", "en", "zh-tw"] and reg.original.dir == "manuscripts"
    assert [e.url_prefix for e in reg] == ["", "en/", "zh-tw/"]
    assert [e.pdf_name for e in reg] == ["AI-Infra-Book.pdf", "AI-Infra-Book-EN.pdf",
                                         "AI-Infra-Book-ZH-TW.pdf"]
    assert [f"{e.out}/{e.epub_name}" for e in reg] == [
        "book/AI-Infra-Book.epub", "book-en/AI-Infra-Book-EN.epub",
        "book-zh-tw/AI-Infra-Book-ZH-TW.epub"]
    assert [(e.name, e.locale) for e in reg] == [("简体", "zh_CN"), ("EN", "en_US"),
                                                ("繁體", "zh_TW")]
    assert [e.is_traditional_chinese for e in reg] == [False, False, True]


def test_fallback_derives_what_the_line_leaves_out(tmp_path):
    root = book(tmp_path, ORIGINAL, "  - {id: en, dir: book-en, lang: en, path: en, locale: en_US}\n",
                "  - {id: en-gb, dir: book-en-gb, lang: en-GB, path: en-gb, fallback: en}\n",
                "  - {id: en-in, dir: book-en-in, lang: en-IN, path: en-in, fallback: en-gb}\n",
                folders=("manuscripts", "book-en", "book-en-gb", "book-en-in"))
    reg = load_registry(root)
    gb, india = reg.by_id("en-gb"), reg.by_id("en-in")
    assert (gb.name, gb.locale, gb.pdf_name, gb.out) == ("EN-GB", "en_GB", "AI-Infra-Book-EN-GB.pdf",
                                                         "book-en-gb")
    assert india.langs == ("en-IN", "en-GB", "en") and india.number_lang == "en"
    assert [e.id for e in reg.chain("en-in")] == ["en-in", "en-gb", "en"]
    assert reg.inherit("en-in", {"en": 1, "zh-Hans": 2}, "fonts") == "en"
    with pytest.raises(BuildError) as exc:
        reg.inherit("en-in", {"zh-Hans": 1}, "fonts")
    assert exc.value.line == 7 and "en-in" in exc.value.message and "fallback" in exc.value.hint


@pytest.mark.parametrize("lines, line, words", [
    ((ORIGINAL, ENGLISH, "  - {id: en, dir: book-en, lang: en-GB, path: gb}\n"), 6,
     "id `en` is used twice"),
    ((ORIGINAL, ENGLISH, "  - {id: gb, dir: book-en, lang: en-GB, path: en}\n"), 6,
     "dir `book-en` is used twice"),
    ((ORIGINAL, "  - {id: en, dir: book-en, lang: en, path: en, fallback: fr}\n"), 5,
     "unknown fallback `fr`"),
    ((ORIGINAL, "  - {id: en, dir: book-nowhere, lang: en, path: en}\n"), 5,
     "`book-nowhere/` does not exist"),
    ((ORIGINAL, "  - {id: en, dir: book-en, lang: en, path: en, fallback: zh-tw}\n",
      "  - {id: zh-tw, dir: book-zh-tw, lang: zh-Hant, path: zh-tw, fallback: en}\n"), 5,
     "fallback cycle: en -> zh-tw -> en"),
    ((ORIGINAL, "  - {id: en, dir: book-en, lang: en, path: en, colour: red}\n"), 5,
     "unknown field(s) colour"),
    ((ORIGINAL, "  - {id: en, dir: book-en, lang: en}\n"), 5, "lacks path"),
    ((ORIGINAL, "  - {id: fr, dir: book-en, lang: fr, path: fr}\n"), 5,
     "no number conventions"),
    (("  - {id: en, dir: book-en, lang: en, path: en}\n", ORIGINAL), 4,
     "the original (the first edition) is the site root"),
])
def test_bad_registry_is_an_error_at_its_line(tmp_path, lines, line, words):
    exc = error(book(tmp_path, *lines, folders=("manuscripts", "book-en", "book-zh-tw")))
    assert exc.path.endswith("manuscripts/book.yml") and exc.line == line
    assert words in exc.render()


def test_no_editions_list(tmp_path):
    exc = error(book(tmp_path))
    assert "`editions:` must be a non-empty list" in exc.render()


def test_fallback_gives_missing_interface_strings_and_titles(tmp_path):
    root = book(tmp_path, ORIGINAL, ENGLISH,
                "  - {id: en-gb, dir: book-en-gb, lang: en-GB, path: en-gb, fallback: en}\n",
                folders=("manuscripts", "book-en", "book-en-gb"))
    for folder in ("manuscripts", "book-en"):
        shutil.copy(ROOT / folder / "edition.yml", root / folder / "edition.yml")
    (root / "book-en-gb" / "edition.yml").write_text(
        "title: Understanding AI Infrastructure (UK)\nstrings:\n  theme: Toggle dark/light colours\n"
        "  phrases:\n    memory: memory-bandwidth-limited\n", encoding="utf-8")
    gb, en = load_edition_info(root, "en-gb"), load_edition_info(root, "en")
    assert gb.title == "Understanding AI Infrastructure (UK)" and gb.author == en.author
    phrases = {**en.strings["phrases"], "memory": "memory-bandwidth-limited"}
    assert gb.strings == {**en.strings, "theme": "Toggle dark/light colours", "phrases": phrases}
    assert en.strings["phrases"]["memory"] == "memory-bandwidth-bound"   # the fallback's intact
    assert (gb.lang, gb.url_prefix, gb.spec.fallback) == ("en-GB", "en-gb/", "en")
    # Without the fallback the same edition.yml lacks most strings: an error naming the file.
    (root / "manuscripts" / "book.yml").write_text(
        HEAD + ORIGINAL + ENGLISH + "  - {id: en-gb, dir: book-en-gb, lang: en-GB, path: en-gb}\n"
        + TAIL, encoding="utf-8")
    with pytest.raises(BuildError) as exc:
        load_edition_info(root, "en-gb")
    assert exc.value.path.endswith("book-en-gb/edition.yml")
    assert "missing interface strings" in exc.value.message


def test_edition_yml_lang_must_agree(tmp_path):
    root = book(tmp_path, ORIGINAL, ENGLISH)
    shutil.copy(ROOT / "manuscripts" / "edition.yml", root / "manuscripts" / "edition.yml")
    (root / "book-en" / "edition.yml").write_text(
        "lang: en-GB\n" + (ROOT / "book-en" / "edition.yml").read_text(encoding="utf-8"),
        encoding="utf-8")
    with pytest.raises(BuildError) as exc:
        load_edition_info(root, "en")
    assert exc.value.path.endswith("book-en/edition.yml") and "contradicts" in exc.value.message


def test_cli_lists_the_editions_and_rejects_unknown_ones():
    run = [sys.executable, "-m", "bookkit"]
    out = subprocess.run(run + ["editions"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.split() == ["zh", "en", "zh-tw"]
    out = subprocess.run(run + ["editions", "--translations", "--field", "dir"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.stdout.split() == ["book-en", "book-zh-tw"]
    bad = subprocess.run([sys.executable, "scripts/build_site.py", "--edition", "fr", "--out",
                          "/nonexistent/site"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and "invalid choice: 'fr' (choose from zh, en, zh-tw)" in bad.stderr


def test_build_with_a_bad_registry_fails_at_its_line(book_copy):
    config = book_copy / "manuscripts" / "book.yml"
    text = config.read_text(encoding="utf-8")
    line = text.splitlines().index(next(x for x in text.splitlines() if "{id: zh-tw" in x)) + 1
    config.write_text(text.replace("{id: zh-tw,", "{id: zh-tw, fallback: nope,"), encoding="utf-8")
    res = subprocess.run([sys.executable, "scripts/build_site.py", "--quiet"], cwd=book_copy,
                         capture_output=True, text=True)
    assert res.returncode == 1
    assert f"manuscripts/book.yml:{line}: unknown fallback `nope`" in res.stderr
    assert "previous site (if any) is intact" in res.stderr


def test_interface_strings_reach_the_page_scripts(built_site):
    """The search box's words come from edition.yml (no per-language table in the scripts)."""
    for folder, prefix in (("manuscripts", ""), ("book-en", "en/"), ("book-zh-tw", "zh-tw/")):
        strings = load_edition_info(ROOT, load_registry(ROOT).by_dir(folder).id).strings
        page = (built_site / prefix / "index.html").read_text(encoding="utf-8")
        assert f'data-label-suggest="{strings["search_suggest"]}"' in page
