"""The language records: lookup by tag, alias and shorter tag; what a record gives its consumers
(number conventions, fonts, CJK typography, the number check's reader); the registry carries the
record of each edition, found through its fallbacks."""
import pytest

from bookkit.check.extract import normalize_lang as number_reader
from bookkit.locale.languages import LANGUAGES, Language, canonical_tag, find, lookup
from bookkit.locale.numbers import format_value, parse_spec


@pytest.mark.parametrize("tag, record", [
    ("zh-Hans", "zh-Hans"), ("zh", "zh-Hans"), ("zh-CN", "zh-Hans"), ("zh_cn", "zh-Hans"),
    ("zh-Hans-CN", "zh-Hans"), ("zh-Hant", "zh-Hant"), ("zh-TW", "zh-Hant"),
    ("zh-HK", "zh-Hant"), ("zh-Hant-HK", "zh-Hant"), ("en", "en"), ("en-GB", "en"),
    ("EN-us", "en"), ("ja", "ja"), ("ja-JP", "ja"), ("fr", None), ("", None), ("ko", None),
])
def test_find(tag, record):
    hit = find(tag)
    assert (hit.tag if hit else None) == record


def test_lookup_names_the_known_languages():
    with pytest.raises(ValueError, match=r"unknown language 'fr'.*zh-Hans, en, zh-Hant, ja"):
        lookup("fr")


def test_canonical_tag_maps_aliases_only():
    assert [canonical_tag(t) for t in ("zh-tw", "zh", "en", "en-gb", "ja", "fr")] == [
        "zh-Hant", "zh-Hans", "en", "en-gb", "ja", "fr"]


def test_records_are_complete_and_distinct():
    assert list(LANGUAGES) == ["zh-Hans", "en", "zh-Hant", "ja"]
    for tag, rec in LANGUAGES.items():
        assert rec.tag == tag and rec.figure_fonts and rec.magnitudes and rec.untranslated
        powers = [p for p, _ in rec.magnitudes]
        assert powers == sorted(powers, reverse=True)
    aliases = [a for rec in LANGUAGES.values() for a in (rec.tag.lower(), *rec.aliases)]
    assert len(aliases) == len(set(aliases))


def test_unknown_search_tokenizer_is_refused():
    with pytest.raises(ValueError, match="unknown search tokenizer 'mecab'"):
        Language("xx", "Latn", False, "SC", ("DejaVu Sans",), ((3, "k"),), "…",
                 search_tokenizer="mecab")


@pytest.mark.parametrize("lang, expected", [
    ("zh-Hans", "705.54 亿"), ("en", "70.554 billion"), ("zh-Hant", "705.54 億"),
    ("ja", "705.54 億"), ("ja-JP", "705.54 億"),
])
def test_count_in_each_language(lang, expected):
    assert format_value(70_553_706_496, parse_spec("count sig=5"), lang) == expected


def test_japanese_magnitudes():
    count = parse_spec("count sig=3")
    assert format_value(12_345, count, "ja") == "1.23 万"
    assert format_value(1.5e12, count, "ja") == "1.50 兆"
    assert format_value(1.5e12, count, "zh-Hans") == "1.50 万亿"


def test_number_check_readers():
    assert [number_reader(t) for t in ("zh", "zh-tw", "en-GB")] == ["zh-Hans", "zh-Hant", "en"]
    with pytest.raises(ValueError, match="for the number check"):
        number_reader("ja")      # a record without a reader: its numbers are not read


def test_registry_gives_each_edition_its_record(tmp_path):
    from bookkit.load.config import load_registry
    (tmp_path / "manuscripts").mkdir()
    for folder in ("book-en", "book-ja", "book-en-gb", "book-ko"):
        (tmp_path / folder).mkdir()
    (tmp_path / "manuscripts" / "book.yml").write_text(
        "editions:\n"
        "  - {id: zh, dir: manuscripts, lang: zh-Hans, path: \"\"}\n"
        "  - {id: en, dir: book-en, lang: en, path: en}\n"
        "  - {id: ja, dir: book-ja, lang: ja, path: ja}\n"
        "  - {id: en-gb, dir: book-en-gb, lang: en-GB, path: en-gb}\n"
        "  - {id: ko, dir: book-ko, lang: ko, path: ko, fallback: ja}\n"
        "chapters: []\n", encoding="utf-8")
    reg = load_registry(tmp_path)
    assert [e.language.tag for e in reg] == ["zh-Hans", "en", "ja", "en", "ja"]
    assert [e.is_cjk for e in reg] == [True, False, True, False, True]
    assert {e.original_dir for e in reg} == {"manuscripts"}
    assert reg.by_id("ja").number_lang == "ja" and not reg.by_id("ja").is_traditional_chinese
