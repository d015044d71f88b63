"""Integration: the embedded book builds; every page, nav link, switcher target and anchor exists."""
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from bookkit.build import BuildOptions, Builder
from bookkit.load import chapter_plan
from bookkit.model import BuildError

ROOT = Path(__file__).resolve().parents[2]
PREFIXES = ("", "en/", "zh-tw/")
SHARED_CACHE = ROOT / ".cache" / "bookkit"


class Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links, self.imgs, self.lang, self.switch = [], [], [], None, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "html":
            self.lang = a.get("lang")
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
            if "lang" in (a.get("class") or "").split():
                self.switch.append(a["href"])
        if tag == "img":
            self.imgs.append(a)


def parse(path: Path) -> Collect:
    c = Collect()
    c.feed(path.read_text(encoding="utf-8"))
    return c


def test_every_page_of_every_edition_exists(built_site):
    slugs = [slug for _, _, slug in chapter_plan(ROOT)]
    assert len(slugs) == 13
    for prefix in PREFIXES:
        for slug in slugs:
            assert (built_site / prefix / f"{slug}.html").is_file(), prefix + slug
        assert (built_site / prefix / "index.html").is_file()
        assert (built_site / prefix / "search-index.js").is_file()
    assert (built_site / "sitemap.xml").read_text().count("<loc>") == 3 * 14


def test_languages_declared(built_site):
    for prefix, lang in zip(PREFIXES, ("zh-Hans", "en", "zh-Hant")):
        assert parse(built_site / prefix / "getting-started.html").lang == lang


def test_internal_links_and_anchors_resolve(built_site):
    pages = sorted(built_site.rglob("*.html"))
    ids = {p: set(parse(p).ids) for p in pages}
    problems = []
    for page in pages:
        info = parse(page)
        assert len(info.ids) == len(set(info.ids)), f"duplicate ids in {page}"
        for href in info.links:
            if href.startswith(("http:", "https:", "mailto:")):
                continue
            target = urlsplit(urljoin(page.as_uri(), href))
            path = Path(target.path)
            if path.is_dir():
                path = path / "index.html"
            if not path.is_file():
                problems.append(f"{page.relative_to(built_site)}: {href} (no file)")
            elif target.fragment and target.fragment not in ids.get(path, set(parse(path).ids)):
                problems.append(f"{page.relative_to(built_site)}: {href} (no anchor)")
        for img in info.imgs:
            assert img.get("alt"), f"{page}: image without alt"
            assert (page.parent / img["src"]).is_file(), f"{page}: missing {img['src']}"
    assert not problems, "\n".join(problems[:20])


def test_switcher_targets_same_chapter(built_site):
    page = built_site / "en" / "workloads.html"
    targets = {Path(urlsplit(urljoin(page.as_uri(), h)).path) for h in parse(page).switch}
    assert targets == {built_site / "workloads.html", page, built_site / "zh-tw" / "workloads.html"}


def test_ids_identical_across_editions(built_site):
    def numbered(p):
        return {i for i in parse(p).ids if i.startswith(("sec-", "fig-", "tbl-", "eq-"))}
    zh = numbered(built_site / "getting-started.html")
    assert zh and zh == numbered(built_site / "en" / "getting-started.html") \
        == numbered(built_site / "zh-tw" / "getting-started.html")


def test_localised_numbers_and_labels(built_site):
    zh = (built_site / "getting-started.html").read_text()
    en = (built_site / "en" / "getting-started.html").read_text()
    tw = (built_site / "zh-tw" / "getting-started.html").read_text()
    assert "8,640 万" in zh and "86.4 million" in en and "8,640 萬" in tw
    assert ">图 1-1<" in zh and ">Figure 1-1<" in en and ">圖 1-1<" in tw
    # Provenance travels with the number.
    assert "tokens_per_day = tokens_per_second * seconds_per_day" in en


def test_build_is_deterministic(built_site, tmp_path):
    again = tmp_path / "again"
    Builder(BuildOptions(root=ROOT, out=again, quiet=True)).build()
    first = {p.relative_to(built_site): p.read_bytes() for p in built_site.rglob("*") if p.is_file()}
    second = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert first.keys() == second.keys()
    assert [k for k in first if first[k] != second[k]] == []


def _break(book: Path, edition: str, file: str, old: str, new: str) -> int:
    path = book / edition / file
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return text[: text.index(old)].count("\n") + 1


@pytest.mark.parametrize("edition,old,new,message", [
    ("book-en", "@tbl-workloads-glance", "@tbl-no-such-table", "unknown label `@tbl-no-such-table`"),
    ("book-zh-tw", "{{ tokens_per_second }}", "{{ tokens_per_sec }}", "unknown name `tokens_per_sec`"),
    ("manuscripts", "tokens_per_second = 1000", "tokens_per_second = 1 / 0", "ZeroDivisionError"),
])
def test_source_errors_name_file_and_line_and_keep_previous_site(book_copy, tmp_path, edition, old,
                                                                  new, message):
    out = tmp_path / "out"
    builder = Builder(BuildOptions(root=book_copy, out=out, quiet=True, cache_dir=SHARED_CACHE))
    builder.build()
    before = (out / "index.html").read_bytes()
    line = _break(book_copy, edition, "03-workloads.md", old, new)
    with pytest.raises(BuildError) as err:
        Builder(BuildOptions(root=book_copy, out=out, quiet=True, cache_dir=SHARED_CACHE)).build()
    text = err.value.render()
    assert f"{edition}/03-workloads.md:{line}:" in text
    assert message in text
    assert (out / "index.html").read_bytes() == before


def test_malformed_front_config_is_reported(book_copy, tmp_path):
    (book_copy / "book-en" / "edition.yml").write_text("lang: en\ntitle: [unclosed\n")
    with pytest.raises(BuildError) as err:
        Builder(BuildOptions(root=book_copy, out=tmp_path / "o", quiet=True, cache_dir=SHARED_CACHE)).build()
    assert "book-en/edition.yml:" in err.value.render() and "malformed YAML" in err.value.render()
