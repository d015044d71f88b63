"""The search tokeniser, shared byte for byte in meaning with ``website/static/search-engine.js``.

lunr (Python and JS) splits only on whitespace and hyphens, so Chinese text would become
one token per sentence. We therefore pre-tokenise every field and every query ourselves:

1. ``unicodedata.normalize("NFKC", text).lower()`` (JS: ``normalize("NFKC").toLowerCase()``);
   full-width Latin and digits become ASCII, compatibility ideographs become unified ones.
2. Classify the code points:

   * a *CJK* character is a letter or number (Unicode L* or N*) in U+2E80-U+9FFF,
     U+AC00-U+D7AF, U+F900-U+FAFF or U+20000-U+3FFFF (Han, kana, bopomofo, hangul). It is
     folded through ``charmap`` (Traditional -> Simplified, see :func:`build_charmap`) and
     appended to the current CJK run;
   * any other letter or number extends the current *word* run (Latin, Greek, digits...);
   * a combining mark (M*) extends a word run; after a CJK character or a separator it is
     dropped (so variation selectors do not break a Han run);
   * a format character (Cf: soft hyphen, zero-width space/joiner, BOM) is dropped;
   * anything else (space, punctuation, symbols, emoji) ends both runs.
3. A word run is one token (lunr stems it later). A CJK run of one character is that
   character. A longer run gives, at index time, each character followed by the bigram it
   starts (``a ab b bc c``), and at query time its overlapping bigrams only (``ab bc``):
   every query bigram and character is then required, so matching is exact and
   segmentation-free on both sides.

The two implementations must stay identical; ``tests/search/test_tokenizer_parity.py`` runs a
few hundred generated strings through both.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

__all__ = ["tokenize", "is_cjk", "build_charmap", "fold_map", "compute_fold_map", "charmap_to_string", "charmap_from_string"]


def is_cjk(ch: str) -> bool:
    """True for a CJK letter/number (the characters that are split into bigrams)."""
    cp = ord(ch)
    if not (
        0x2E80 <= cp <= 0x9FFF
        or 0xAC00 <= cp <= 0xD7AF
        or 0xF900 <= cp <= 0xFAFF
        or 0x20000 <= cp <= 0x3FFFF
    ):
        return False
    return unicodedata.category(ch)[0] in "LN"


#: code point -> class: "C" CJK letter/number, "W" other letter/number, "M" combining mark,
#: "" format character (dropped), " " anything else (a separator). Filled lazily, one entry
#: per distinct character ever seen: a book has a few thousand among ~10^5 per edition.
_CLASS: dict[int, str] = {}
_RUN = re.compile(r"W[WM]*|C[CM]*")
_FOLD_TABLES: dict[int, tuple[dict, dict]] = {}
_concat = str.__add__
_chain = itertools.chain.from_iterable


def _classify(ch: str) -> str:
    major = unicodedata.category(ch)
    if major[0] in "LN":
        return "C" if is_cjk(ch) else "W"
    if major[0] == "M":
        return "M"
    return "" if major == "Cf" else " "


def _fold_table(charmap: dict[str, str]) -> dict[int, str]:
    hit = _FOLD_TABLES.get(id(charmap))
    if hit is None or hit[0] is not charmap:
        hit = (charmap, {ord(k): v for k, v in charmap.items()})
        if len(_FOLD_TABLES) > 8:
            _FOLD_TABLES.clear()
        _FOLD_TABLES[id(charmap)] = hit
    return hit[1]


def tokenize(text: str, charmap: dict[str, str] | None = None, query: bool = False) -> list[str]:
    """Split ``text`` into search tokens (index mode, or query mode when ``query``).

    Why not a per-character loop (as search-engine.js does): mapping the text to a string of
    character classes with ``str.translate`` and finding the runs with one regular expression
    keeps the work in C; it is ~5x faster on an edition, with the same tokens (the parity
    test runs both implementations on the same strings).
    """
    if not text:
        return []
    s = unicodedata.normalize("NFKC", text).lower()
    classes = _CLASS
    dropped = None
    for ch in set(s):
        cp = ord(ch)
        kind = classes.get(cp)
        if kind is None:
            kind = classes[cp] = _classify(ch)
        if kind == "":
            dropped = dropped or {}
            dropped[cp] = None
    if dropped:
        s = s.translate(dropped)   # format characters neither join nor split runs
    kinds = s.translate(classes)
    fold = _fold_table(charmap) if charmap else None
    out: list[str] = []
    for m in _RUN.finditer(kinds):
        start, end = m.span()
        piece = s[start:end]
        if kinds[start] == "W":
            out.append(piece)
            continue
        if "M" in m.group():   # marks inside a CJK run are dropped (variation selectors)
            piece = "".join(c for c, k in zip(piece, m.group()) if k == "C")
        if fold:
            piece = piece.translate(fold)
        if len(piece) == 1:
            out.append(piece)
        elif query:
            out.extend(map(_concat, piece, piece[1:]))
        else:   # a ab b bc c
            out.extend(_chain(zip(piece, map(_concat, piece, piece[1:]))))
            out.append(piece[-1])
    return out


# --- Traditional/Simplified folding -------------------------------------------------------

# Characters OpenCC folds that are also standard Simplified characters with their own meaning
# (著名 vs 着, 乾坤 vs 干, 什么): folding them would merge unrelated words, so they stay as is.
_KEEP_DISTINCT = frozenset("乾著么麽吒榘薹袷捱")

_SCAN_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0x20000, 0x2A6DF), (0x2A700, 0x2EBEF), (0x30000, 0x3134F))


#: `compute_fold_map()` as shipped: pairs "variant folded" one per line, after a header line
#: naming the OpenCC version. Why a data file: building the map from OpenCC converts every CJK
#: code point twice (~0.15 s, a sixth of a cold site build); `tests/search` checks that the file
#: still equals what the installed OpenCC computes.
FOLD_TABLE = Path(__file__).with_name("cjk_fold.txt")


@lru_cache(maxsize=1)
def fold_map() -> dict[str, str]:
    """Every CJK character that OpenCC folds to a different single character, mapped to it."""
    lines = FOLD_TABLE.read_text(encoding="utf-8").splitlines()
    return dict(line.split(" ") for line in lines[1:] if line)


def fold_table_text(fold: dict[str, str], opencc_version: str) -> str:
    return f"# OpenCC {opencc_version}: t2s then tw2s, per character, chains resolved\n" + "".join(
        f"{k} {v}\n" for k, v in sorted(fold.items()))


def compute_fold_map() -> dict[str, str]:
    """The fold map computed from OpenCC (what `cjk_fold.txt` holds).

    Built by converting each code point on its own line with ``t2s`` and then ``tw2s``
    (Taiwan variants), so the mapping is character-level and the same at index and query
    time. Chains are resolved so the map is idempotent.
    """
    import opencc  # imported lazily: only regenerating the table needs it

    chars = [chr(cp) for lo, hi in _SCAN_RANGES for cp in range(lo, hi + 1)]
    chars = [c for c in chars if unicodedata.category(c) != "Cn"]
    joined = "\n".join(chars)
    result: dict[str, str] = {}
    for config in ("t2s", "tw2s"):
        converted = opencc.OpenCC(config).convert(joined).split("\n")
        if len(converted) != len(chars):  # pragma: no cover - defensive
            raise RuntimeError(f"OpenCC {config} changed the line count")
        for c, t in zip(chars, converted):
            if c in result or c in _KEEP_DISTINCT or t == c or len(t) != 1 or not is_cjk(t):
                continue
            result[c] = t
    for c in list(result):
        seen = {c}
        t = result[c]
        while t in result and t not in seen:
            seen.add(t)
            t = result[t]
        result[c] = t
    return {c: t for c, t in result.items() if c != t}


_CHARS: dict[str, frozenset[str]] = {}


def _chars_of(text: str) -> frozenset[str]:
    """The distinct characters of a normalised text (memoised: `--serve` rebuilds an index
    after an edit, and all but the edited texts are unchanged)."""
    hit = _CHARS.get(text)
    if hit is None:
        if len(_CHARS) > 100_000:
            _CHARS.clear()
        hit = _CHARS[text] = frozenset(unicodedata.normalize("NFKC", text).lower())
    return hit


def build_charmap(texts) -> dict[str, str]:
    """The part of :func:`fold_map` relevant to a corpus, both directions.

    Contains every variant whose folded form occurs in the (folded) corpus: the Traditional
    characters of a zh-Hant corpus, and the Traditional spellings of a zh-Hans corpus's
    characters, so a query in either script is folded to what the index holds.
    """
    full = fold_map()
    chars: set[str] = set()
    for text in texts:
        chars.update(_chars_of(text))
    # Classify each distinct character once (a book has ~3k of them among ~10^5 characters).
    folded_chars = {full.get(ch, ch) for ch in chars if is_cjk(ch)}
    return {c: t for c, t in sorted(full.items()) if t in folded_chars}


def charmap_to_string(charmap: dict[str, str]) -> str:
    """Serialise as a string of pairs ``t1 s1 t2 s2 ...`` (code points, sorted by key)."""
    return "".join(k + v for k, v in sorted(charmap.items()))


def charmap_from_string(s: str) -> dict[str, str]:
    cps = list(s)
    return {cps[i]: cps[i + 1] for i in range(0, len(cps) - 1, 2)}


if __name__ == "__main__":   # python -m bookkit.lunr.cjk: rewrite cjk_fold.txt from OpenCC
    import importlib.metadata
    FOLD_TABLE.write_text(fold_table_text(compute_fold_map(), importlib.metadata.version("opencc")),
                          encoding="utf-8")
    print(FOLD_TABLE)
