"""One record per language: everything the pipeline knows about writing in it.

An edition (`manuscripts/book.yml`) names its language by a BCP 47 tag; the registry
(`bookkit.load.editions`) finds the record of that tag here once, walking the edition's fallbacks
when its own tag has none, and every consumer asks the edition's record:

* the PDF and EPUB fonts (`bookkit.render.pandoc.fonts`) and CJK typography (`bookkit.render.pandoc.convert`),
* the figure fonts (`bookkit.resolve.figures`),
* the number conventions (`bookkit.locale.numbers`: magnitude words such as 亿 or billion),
* the search tokeniser (`bookkit.lunr.index`),
* which reader of the translation number check reads its numbers (`bookkit.check.extract`),
* the notice over a chapter the edition has not translated (`bookkit.resolve.book`).

A new language is one `Language(...)` entry in `LANGUAGES` below; a regional variant of a
language that has one (en-GB, zh-HK) needs none: its tag finds the record by its aliases or by
dropping subtags from the right (`en-GB` -> `en`, `zh-Hant-HK` -> `zh-Hant`).

What is not here, and why: the site's font stacks are CSS (`website/static/style.css`,
`:root:lang(...)` rules), which the browser picks by the page's `lang`; an edition's fallbacks
(strings, figure texts) are the registry's (`fallback:` in book.yml), not a language's; OpenCC
is used only for Traditional Chinese (the zh-tw draft and its leftover check), so it stays with
those two tools rather than as a field every record would leave empty.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Language", "LANGUAGES", "SEARCH_TOKENIZERS", "find", "lookup", "canonical_tag"]

#: The search tokenisers `bookkit.lunr.index` implements (and website/static/search-engine.js
#: mirrors): words for letters, overlapping bigrams for CJK runs, for every language.
SEARCH_TOKENIZERS = ("cjk-bigram",)


@dataclass(frozen=True)
class Language:
    """What the pipeline needs to know to set, number and index text in one language."""

    tag: str                              # BCP 47 of the record: "zh-Hans", "en", "ja"
    script: str                           # ISO 15924 of its text: "Hans", "Hant", "Latn", "Jpan"
    cjk: bool                             # CJK typography in the PDF (xeCJK, CJK quotes, indents)
    #: Noto CJK region of its PDF/EPUB fonts (SC, TC, JP, KR): the CJK glyph forms it is set in;
    #: a Latin-script language still names one, for the stray CJK character.
    cjk_region: str
    figure_fonts: tuple[str, ...]         # matplotlib's font.family for its figures, in order
    #: magnitude words for `count` numbers, largest first: (power of ten, word)
    magnitudes: tuple[tuple[int, str], ...]
    untranslated: str                     # notice over a chapter its edition lacks
    search_tokenizer: str = "cjk-bigram"  # one of SEARCH_TOKENIZERS
    #: which reader of the translation number check (bookkit/check/extract.py) reads numbers
    #: written in it: "zh-Hans", "zh-Hant" or "en"; None: its numbers are not checked.
    number_reader: str | None = None
    aliases: tuple[str, ...] = ()         # other tags meaning it, lower case: "zh-tw", "zh-cn"

    def __post_init__(self):
        if self.search_tokenizer not in SEARCH_TOKENIZERS:
            raise ValueError(f"language {self.tag}: unknown search tokenizer "
                             f"{self.search_tokenizer!r} (known: {', '.join(SEARCH_TOKENIZERS)})")


#: Every language the book can be written in, by tag (the order of the three first is the
#: order the number tests print them in).
LANGUAGES: dict[str, Language] = {lang.tag: lang for lang in (
    Language("zh-Hans", "Hans", cjk=True, cjk_region="SC",
             figure_fonts=("Noto Sans CJK SC", "DejaVu Sans"),
             magnitudes=((12, "万亿"), (8, "亿"), (4, "万")),
             untranslated="本章尚未翻译，以下是原文。",
             number_reader="zh-Hans", aliases=("zh", "zh-cn", "zh-sg")),
    Language("en", "Latn", cjk=False, cjk_region="SC",
             figure_fonts=("DejaVu Sans", "Noto Sans CJK SC"),
             magnitudes=((12, "trillion"), (9, "billion"), (6, "million"), (3, "thousand")),
             untranslated="This chapter is not translated yet; the original text follows.",
             number_reader="en"),
    # Taiwan usage: 兆 is 10^12 (notes/number-formats.md).
    Language("zh-Hant", "Hant", cjk=True, cjk_region="TC",
             figure_fonts=("Noto Sans CJK TC", "DejaVu Sans"),
             magnitudes=((12, "兆"), (8, "億"), (4, "萬")),
             untranslated="本章尚未翻譯，以下為原文。",
             number_reader="zh-Hant", aliases=("zh-tw", "zh-hk", "zh-mo")),
    # Japanese counts in 万 (10^4), 億 (10^8), 兆 (10^12), as Chinese does. The translation
    # number check has no Japanese reader yet.
    Language("ja", "Jpan", cjk=True, cjk_region="JP",
             figure_fonts=("Noto Sans CJK JP", "DejaVu Sans"),
             magnitudes=((12, "兆"), (8, "億"), (4, "万")),
             untranslated="この章はまだ翻訳されていません。以下は原文です。"),
)}

_BY_ALIAS: dict[str, Language] = {}
for _lang in LANGUAGES.values():
    for _name in (_lang.tag, *_lang.aliases):
        _BY_ALIAS[_name.lower()] = _lang


@lru_cache(maxsize=256)   # asked per formatted number; a book has a handful of tags
def find(tag: str) -> Language | None:
    """The record of a BCP 47 tag (any case, `_` taken as `-`): the tag itself or an alias,
    else the tag with subtags dropped from the right; None when no record matches."""
    parts = (tag or "").strip().replace("_", "-").lower().split("-")
    while parts and parts[0]:
        hit = _BY_ALIAS.get("-".join(parts))
        if hit is not None:
            return hit
        parts.pop()
    return None


def lookup(tag: str) -> Language:
    """:func:`find`, or a ValueError naming the languages there are records for."""
    hit = find(tag)
    if hit is None:
        raise ValueError(f"unknown language {tag!r} (expected one of {', '.join(LANGUAGES)}; "
                         "a new language is a record in bookkit/locale/languages.py)")
    return hit


def canonical_tag(tag: str) -> str:
    """The record's tag when `tag` is a record's tag or alias exactly (`zh-tw` -> `zh-Hant`),
    else `tag` unchanged (a regional variant such as `en-gb` keeps its region)."""
    hit = _BY_ALIAS.get(tag.strip().replace("_", "-").lower())
    return hit.tag if hit is not None else tag
