"""A new language is its folder, one registry line and its language record: the small real-style
book gets a Japanese edition (`ja`, whose record is in bookkit/locale/languages.py) and builds
with no other change. The page is in Japanese (lang, text, the untranslated notice), the bound
numbers follow the record's conventions (億, not 亿 or billion), the original's image is reused,
and the edition's search index finds a Japanese word."""
import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "realworld"))
from book import builder, make_book  # noqa: E402

REGISTRY_LINE = "  - {id: ja, dir: book-ja, lang: ja, path: ja, name: 日本語}\n"
CHAPTERS = {
    "01-intro.md": "# はじめに {#sec-intro}\n\n"
                   "モデルの重み、KV キャッシュ、活性化は同じデバイスメモリを共有する。\n\n"
                   "## 基本的な考え方 {#sec-intro-basics}\n\n"
                   "デコードのたびに、すべての重みを一度読み込む。\n",
    "02-serving.md": "# 推論サービスのスループットとレイテンシ\n\n"
                     "トークンあたりの KV キャッシュは {{ kv_per_token | int }} バイト"
                     "（約 {{ kv_per_token | count sig=3 }} バイト）、合計で "
                     "{{ kv_total | count sig=3 }} バイトになる。\n\n"
                     "![推論サービスのリクエストパイプライン](images/pipeline.svg)\n",
}
# The interface strings a translator writes in edition.yml (the rest copied from English).
STRINGS = {"chapter": "第 {n} 章", "chapter_short": "第 {n} 章", "figure": "図 {n}",
           "table": "表 {n}", "preface": "まえがき", "contents": "目次", "search": "検索",
           "caption_sep": "："}


def add_japanese(root: Path) -> None:
    folder = root / "book-ja"
    folder.mkdir()
    for name, text in CHAPTERS.items():
        (folder / name).write_text(text, encoding="utf-8")
    edition = yaml.safe_load((root / "book-en" / "edition.yml").read_text(encoding="utf-8"))
    edition.update(title="AI インフラを理解する", subtitle="定量的な分析", author="著者")
    edition["strings"].update(STRINGS)
    (folder / "edition.yml").write_text(yaml.safe_dump(edition, allow_unicode=True),
                                        encoding="utf-8")
    config = root / "manuscripts" / "book.yml"
    lines = config.read_text(encoding="utf-8").splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if line.lstrip().startswith("- {id:"))
    config.write_text("".join(lines[:last + 1] + [REGISTRY_LINE] + lines[last + 1:]),
                      encoding="utf-8")


@pytest.fixture(scope="module")
def ja_site(tmp_path_factory):
    root = make_book(tmp_path_factory.mktemp("ja") / "book")
    add_japanese(root)
    report = builder(root, None).build()
    return root / "build" / "site", report


def _page(site: Path, name: str) -> str:
    return (site / "ja" / name).read_text(encoding="utf-8")


def test_pages_are_japanese(ja_site):
    site, _report = ja_site
    for name in ("index.html", "preface.html", "intro.html", "serving.html"):
        assert re.search(r'<html lang="ja"', _page(site, name)), name
    intro = _page(site, "intro.html")
    assert "モデルの重み、KV キャッシュ、活性化は同じデバイスメモリを共有する。" in intro
    assert "第 1 章" in intro
    # the chapter it lacks: the original's text under the record's notice
    preface = _page(site, "preface.html")
    assert "この章はまだ翻訳されていません。" in preface and "本书的测试样例" in preface
    # the switcher of another edition names it
    assert 'hreflang="ja" lang="ja"' in (site / "intro.html").read_text(encoding="utf-8")


def test_numbers_follow_the_record(ja_site):
    site, _report = ja_site
    nums = re.findall(r'<span class="num"[^>]*>(.*?)<span class="prov"', _page(site, "serving.html"),
                      re.S)
    # 2·36·8·128·2 bytes per token; × 4096 × 32 = 19,327,352,832. 万 with 億 is Japanese
    # only: Simplified Chinese writes 亿, Traditional 萬, English thousand and billion.
    assert nums == ["147,456", "14.7 万", "193 億"]


def test_the_original_image_is_reused(ja_site):
    site, _report = ja_site
    page = _page(site, "serving.html")
    assert re.search(r'<img src="images/pipeline.svg"', page)
    assert (site / "ja" / "images" / "pipeline.svg").is_file()
    assert "図 2-1" in page


def test_search_finds_a_japanese_word(ja_site):
    from bookkit.lunr.index import ASSET_NAME, search
    site, _report = ja_site
    assets = {ASSET_NAME: (site / "ja" / ASSET_NAME).read_bytes()}
    assert any(url.startswith("intro.html") for url in search(assets, "デバイスメモリ", "ja"))
    assert any(url.startswith("serving.html") for url in search(assets, "推論サービス", "ja"))
    assert search(assets, "量子コンピュータ", "ja") == []
