"""The search data (one file per edition), and the Python side of the query.

Each edition gets one ``search-index.js`` that sets ``window.bookSearchIndex``: the section
texts and titles, the Traditional/Simplified fold map and the glossary's query synonyms. It
ships no index: in the browser, when it is idle after load, ``website/static/search-engine.js``
feeds the same text to lunr.js's own Builder (the pinned ``lunr`` of ``website/package.json``,
shipped as ``static/lunr.min.js``) with the same tokeniser (:mod:`bookkit.lunr.cjk`) and
pipeline (lunr's stop-word filter and stemmer), as MkDocs does; the text, needed for snippets
anyway, compresses far better than postings of CJK bigrams (zh: 45 KiB gzipped in all, against
54 KiB for the index alone).

Shipped format: ``window.bookSearchIndex=JSON.parse('...')`` (V8 parses a JSON string
several times faster than the same object literal), UTF-8 with a BOM so it decodes right
whatever the page's or server's charset. The JSON: ``{"v": 5, "lang", "fields": [[name,
boost], ...], "chapters": [...], "pages": [file, ...], "runs": [[page, chapter, count], ...],
"anchors": [...], "titles": [...], "texts": [...], "charmap": "t1s1t2s2...", "syn": [[avoid,
use], ...], "keep": [word, ...]}`` (``syn``/``keep`` only for an edition with a glossary).
Columns, not a row per document: each column compresses better beside its like (3 % of the
gzipped file for the synthetic book's en edition), and a run of documents on one page names
the page and chapter once. :func:`docs_of` gives the rows back: ``[url, chapter_no, section,
text]``.

:func:`index_payload` is the index lunr's Builder makes of it (`_compact_direct`, held equal to
lunr.py's Builder by a test); :func:`expand` turns it into lunr's serialised index with lunr.js's
BM25 field scores (held equal to the index lunr.js builds, in Node); :func:`search` queries it
with lunr.py as search-engine.js queries with lunr.js (the browser tests compare the two on every
golden query and on generated ones).

Why one module of this size: it is a port of one library (lunr.js 2.3.9's stemmer, stop
words, Builder and BM25 scores) that tests hold equal to the original operation by operation;
split, the pieces would only be read together.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from lunr.builder import Builder
from lunr.index import Index
from lunr.pipeline import Pipeline
from lunr.query import Query, QueryPresence
from lunr.stop_word_filter import WORDS as STOP_WORDS, stop_word_filter
from lunr.token import Token

from bookkit.locale.languages import LANGUAGES
from bookkit.lunr.cjk import (build_charmap, charmap_from_string, charmap_to_string, is_cjk,
                               tokenize)

__all__ = ["SearchDoc", "Synonyms", "build_search_assets", "glossary_synonyms", "search", "index_report", "LANGS"]

#: the languages an index can be made for: those with a record (each names its tokeniser)
LANGS = tuple(LANGUAGES)
ASSET_NAME = "search-index.js"
_PREFIX = "window.bookSearchIndex="
_BOM = "\ufeff"
#: fields and their boosts: section title, chapter title, body text
FIELDS = (("s", 4), ("c", 1), ("b", 1))
#: lunr's BM25 parameters (its defaults)
K1, B = 1.2, 0.75
#: at most this many results
MAX_RESULTS = 50


# --- lunr.js's stemmer, ported ---------------------------------------------------------------
# lunr.py 0.8.0 ships Martin Porter's reference stemmer, which differs from lunr.js 2.3.9's on
# step 1c ("key" -> "kei" in Python, "key" in JS; "sky" -> "sky" vs "ski"), so an index
# stemmed by lunr.py misses such words when queried from the browser. This is a line-by-line
# port of lunr.js's porterStemmer, run on UTF-16 code units like JS; the parity test checks
# it against lunr.js in Node.

_C = "[^aeiou]"
_V = "[aeiouy]"
_CS = _C + "[^aeiouy]*"
_VS = _V + "[aeiou]*"
_RE_MGR0 = re.compile("^(" + _CS + ")?" + _VS + _CS)
_RE_MEQ1 = re.compile("^(" + _CS + ")?" + _VS + _CS + "(" + _VS + r")?\Z")
_RE_MGR1 = re.compile("^(" + _CS + ")?" + _VS + _CS + _VS + _CS)
_RE_S_V = re.compile("^(" + _CS + ")?" + _V)
_RE_1A = re.compile(r"^(.+?)(ss|i)es\Z")
_RE2_1A = re.compile(r"^(.+?)([^s])s\Z")
_RE_1B = re.compile(r"^(.+?)eed\Z")
_RE2_1B = re.compile(r"^(.+?)(ed|ing)\Z")
_RE_1B_2 = re.compile(r".\Z")
_RE2_1B_2 = re.compile(r"(at|bl|iz)\Z")
_RE3_1B_2 = re.compile(r"([^aeiouylsz])\1\Z")
_RE4_1B_2 = re.compile("^" + _CS + _V + r"[^aeiouwxy]\Z")
_RE_1C = re.compile(r"^(.+?[^aeiou])y\Z")
_STEP2 = {
    "ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize", "bli": "ble",
    "alli": "al", "entli": "ent", "eli": "e", "ousli": "ous", "ization": "ize", "ation": "ate",
    "ator": "ate", "alism": "al", "iveness": "ive", "fulness": "ful", "ousness": "ous", "aliti": "al",
    "iviti": "ive", "biliti": "ble", "logi": "log",
}
_STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}
_RE_2 = re.compile(
    r"^(.+?)(ational|tional|enci|anci|izer|bli|alli|entli|eli|ousli|ization|ation|ator|alism|iveness"
    r"|fulness|ousness|aliti|iviti|biliti|logi)\Z"
)
_RE_3 = re.compile(r"^(.+?)(icate|ative|alize|iciti|ical|ful|ness)\Z")
_RE_4 = re.compile(r"^(.+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)\Z")
_RE2_4 = re.compile(r"^(.+?)(s|t)(ion)\Z")
_RE_5 = re.compile(r"^(.+?)e\Z")
_RE_5_1 = re.compile(r"ll\Z")
_RE3_5 = re.compile("^" + _CS + _V + r"[^aeiouwxy]\Z")


def _to_utf16_units(w: str) -> str:
    out = []
    for ch in w:
        cp = ord(ch)
        if cp > 0xFFFF:
            cp -= 0x10000
            out.append(chr(0xD800 + (cp >> 10)))
            out.append(chr(0xDC00 + (cp & 0x3FF)))
        else:
            out.append(ch)
    return "".join(out)


def _from_utf16_units(w: str) -> str:
    return w.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _porter_js(w: str) -> str:
    if len(w) < 3:
        return w
    firstch = w[0]
    if firstch == "y":
        w = "Y" + w[1:]
    # step 1a
    if _RE_1A.search(w):
        w = _RE_1A.sub(r"\1\2", w, count=1)
    elif _RE2_1A.search(w):
        w = _RE2_1A.sub(r"\1\2", w, count=1)
    # step 1b
    m = _RE_1B.search(w)
    if m:
        if _RE_MGR0.search(m.group(1)):
            w = _RE_1B_2.sub("", w, count=1)
    else:
        m = _RE2_1B.search(w)
        if m:
            stem = m.group(1)
            if _RE_S_V.search(stem):
                w = stem
                if _RE2_1B_2.search(w):
                    w = w + "e"
                elif _RE3_1B_2.search(w):
                    w = _RE_1B_2.sub("", w, count=1)
                elif _RE4_1B_2.search(w):
                    w = w + "e"
    # step 1c
    m = _RE_1C.search(w)
    if m:
        w = m.group(1) + "i"
    # step 2
    m = _RE_2.search(w)
    if m and _RE_MGR0.search(m.group(1)):
        w = m.group(1) + _STEP2[m.group(2)]
    # step 3
    m = _RE_3.search(w)
    if m and _RE_MGR0.search(m.group(1)):
        w = m.group(1) + _STEP3[m.group(2)]
    # step 4
    m = _RE_4.search(w)
    if m:
        if _RE_MGR1.search(m.group(1)):
            w = m.group(1)
    else:
        m = _RE2_4.search(w)
        if m:
            stem = m.group(1) + m.group(2)
            if _RE_MGR1.search(stem):
                w = stem
    # step 5
    m = _RE_5.search(w)
    if m:
        stem = m.group(1)
        if _RE_MGR1.search(stem) or (_RE_MEQ1.search(stem) and not _RE3_5.search(stem)):
            w = stem
    if _RE_5_1.search(w) and _RE_MGR1.search(w):
        w = _RE_1B_2.sub("", w, count=1)
    if firstch == "y":
        w = "y" + w[1:]
    return w


@functools.lru_cache(maxsize=65536)
def stem_js(word: str) -> str:
    """Stem ``word`` exactly as lunr.js 2.3.9's ``lunr.stemmer`` does (memoised: a book has a
    few thousand distinct terms among a few hundred thousand tokens)."""
    return _from_utf16_units(_porter_js(_to_utf16_units(word)))


def js_stemmer(token, i=None, tokens=None):
    """lunr.py pipeline function wrapping :func:`stem_js`."""
    return token.update(lambda s, metadata=None: stem_js(s))


Pipeline.register_function(js_stemmer, "stemmerLunrJs")


@dataclass(frozen=True)
class SearchDoc:
    url: str  # relative to the edition root, e.g. "getting-started.html#sec-kv-cache"
    chapter: str  # chapter title as shown
    section: str  # section title as shown (== chapter for the chapter intro)
    text: str  # plain text of the section (no markup)


def _fields_of(doc: SearchDoc) -> dict[str, str]:
    # the chapter intro carries its title once, in "s"
    return {"s": doc.section, "c": "" if doc.chapter == doc.section else doc.chapter, "b": doc.text}


def _dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _js_string(json_text: str) -> str:
    """JSON text as a single-quoted JS string literal (for ``JSON.parse('...')``)."""
    return "'" + (json_text.replace("\\", "\\\\").replace("'", "\\'")
                  .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")) + "'"


# --- glossary synonyms (zh-tw: Mainland forms find the edition's terms) ----------------------

@dataclass(frozen=True)
class Synonyms:
    """Query rewriting from an edition's glossary: each ``avoid`` form (a Mainland or second
    rendering) is read as the edition's ``use`` form; ``keep`` words (the glossary's ``allow``
    forms and the ``use`` forms themselves) are never rewritten. All forms are folded
    (NFKC, lower case, Traditional -> Simplified) like the index terms."""
    pairs: tuple[tuple[str, str], ...] = ()
    keep: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.pairs)


def _fold_text(text: str, charmap: dict[str, str]) -> str:
    return "".join(charmap.get(ch, ch) for ch in unicodedata.normalize("NFKC", text).lower())


def _replacement(avoid: str, use: str) -> str:
    """What a query's ``avoid`` reads as. A CJK compound listed under a shorter rendering
    (張量並行 under 平行, "parallel") keeps its head: the tail the length of ``use`` is
    replaced when the two share a character in place (張量並行 -> 張量平行); otherwise the
    whole form is (筆記本電腦 -> 筆電)."""
    n = len(use)
    if (len(avoid) > n and all(is_cjk(c) for c in avoid + use)
            and any(a == u for a, u in zip(avoid[-n:], use))):
        return avoid[:-n] + use
    return use


def glossary_synonyms(edition_dir: Path) -> Synonyms:
    """The query synonyms of an edition folder's ``glossary.yml`` (none without one), the same
    object while the file is unchanged: every ``--serve`` rebuild asks for each edition's, and
    folding its forms again took ~3 ms an edition.

    A Latin form matches whole words, a trailing ``*`` any ending (as the glossary checker
    reads them); a CJK form matches anywhere."""
    from bookkit.source.glossary import GLOSSARY_FILE
    from bookkit.util.fsutil import kept_while_unchanged
    try:
        return kept_while_unchanged(Path(edition_dir) / GLOSSARY_FILE, _synonyms_of_glossary)
    except FileNotFoundError:
        return Synonyms()


def _synonyms_of_glossary(path: Path) -> Synonyms:
    from bookkit.source.glossary import glossary_for  # the glossary's reader and validator
    from bookkit.lunr.cjk import fold_map

    fold = fold_map()
    pairs: dict[str, str] = {}
    keep: set[str] = set()
    for term in glossary_for(path.parent):
        keep.add(_fold_text(term.use, fold))
        keep.update(_fold_text(a, fold) for a in term.allow)
        for avoid in term.avoid:
            key = _fold_text(avoid, fold)
            value = _fold_text(_replacement(avoid.rstrip("*"), term.use), fold)
            if key.rstrip("*") and key.rstrip("*") != value:
                pairs.setdefault(key, value)
    keep = {k for k in keep if k and any(a.rstrip("*") in k for a in pairs)}
    return Synonyms(tuple(sorted(pairs.items())), tuple(sorted(keep)))


def _is_word_char(ch: str) -> bool:
    return (ch.isalnum() or unicodedata.category(ch)[0] == "M") and not is_cjk(ch)


def _form_at(folded: str, i: int, form: str) -> int:
    """The length of ``form`` matched at ``i`` (0 if it does not match): CJK anywhere, a Latin
    form from a word start to a word end, or on to the word's end with a trailing ``*``."""
    star = form.endswith("*")
    body = form[:-1] if star else form
    if not folded.startswith(body, i):
        return 0
    if not _is_word_char(body[0]):
        return len(body)
    if i > 0 and _is_word_char(folded[i - 1]):
        return 0
    end = i + len(body)
    if star:
        while end < len(folded) and _is_word_char(folded[end]):
            end += 1
    elif end < len(folded) and _is_word_char(folded[end]):
        return 0
    return end - i


def rewrite_query(query: str, charmap: dict[str, str], syn: Synonyms) -> str | None:
    """The query with avoided forms read as the edition's, or None when nothing changes.

    Left to right: a ``keep`` word is copied whole, else the longest avoided form matching
    here is replaced (mirrored by ``rewriteQuery`` in search-engine.js)."""
    if not syn:
        return None
    folded = _fold_text(query, charmap)
    out, i, changed = [], 0, False
    while i < len(folded):
        kept = max((k for k in syn.keep if folded.startswith(k, i)), key=len, default=None)
        if kept:
            out.append(kept)
            i += len(kept)
            continue
        best, best_len = None, 0
        for avoid, use in syn.pairs:
            n = _form_at(folded, i, avoid)
            if n > best_len:
                best, best_len = use, n
        if best is not None:
            out.append(best)
            i += best_len
            changed = True
            continue
        out.append(folded[i])
        i += 1
    return "".join(out) if changed else None


def build_search_assets(docs: list[SearchDoc], lang: str,
                        synonyms: Synonyms | None = None) -> dict[str, bytes]:
    """Build ``{"search-index.js": bytes}`` for one edition; same input, same bytes.

    ``synonyms``: the edition's glossary (`glossary_synonyms`), so a query in an avoided form
    (Mainland 带宽 on the zh-tw site) also finds the edition's (頻寬).
    """
    if lang not in LANGS:
        raise ValueError(f"unknown edition language {lang!r}; expected one of {LANGS}")
    docs = list(docs)
    syn = synonyms or Synonyms()
    glossary_text = [w for pair in syn.pairs for w in pair] + list(syn.keep)
    charmap = build_charmap([t for d in docs for t in (d.chapter, d.section, d.text)] + glossary_text)
    chapters: list[str] = []
    chapter_no: dict[str, int] = {}
    pages: list[str] = []
    page_no: dict[str, int] = {}
    runs: list[list[int]] = []          # [page, chapter, documents]: consecutive documents
    anchors, titles, texts = [], [], []
    for doc in docs:
        if doc.chapter not in chapter_no:
            chapter_no[doc.chapter] = len(chapters)
            chapters.append(doc.chapter)
        page, _, anchor = doc.url.partition("#")
        if page not in page_no:
            page_no[page] = len(pages)
            pages.append(page)
        here = [page_no[page], chapter_no[doc.chapter]]
        if runs and runs[-1][:2] == here:
            runs[-1][2] += 1
        else:
            runs.append(here + [1])
        anchors.append(anchor)
        titles.append(doc.section)
        texts.append(doc.text)
    payload = {"v": 5, "lang": lang, "fields": [[f, b] for f, b in FIELDS], "chapters": chapters,
               "pages": pages, "runs": runs, "anchors": anchors, "titles": titles,
               "texts": texts, "charmap": charmap_to_string(charmap)}
    if any(doc.url.endswith("#") for doc in docs):   # `docs_of` could not give it back
        raise ValueError("a search document's url ends in '#' (no anchor after it)")
    if syn:   # [[avoid, use], ...] and the words never rewritten: a few hundred bytes
        payload["syn"] = [list(pair) for pair in syn.pairs]
        payload["keep"] = list(syn.keep)
    text = _BOM + _PREFIX + "JSON.parse(" + _js_string(_dumps(payload)) + ");\n"
    return {ASSET_NAME: text.encode("utf-8")}


def docs_of(payload: dict) -> list[list]:
    """The shipped columns as rows, [url, chapter number, section title, text] per document
    (``docsOf`` in search-engine.js does the same)."""
    rows, i = [], 0
    for page, chapter, count in payload["runs"]:
        for _ in range(count):
            anchor = payload["anchors"][i]
            rows.append([payload["pages"][page] + ("#" + anchor if anchor else ""), chapter,
                         payload["titles"][i], payload["texts"][i]])
            i += 1
    return rows


def synonyms_of(payload: dict) -> Synonyms:
    """The synonyms a shipped payload carries."""
    return Synonyms(tuple(tuple(p) for p in payload.get("syn", [])), tuple(payload.get("keep", [])))


def doc_fields(payload: dict) -> list[dict[str, str]]:
    """The indexed fields of the shipped documents (as `_fields_of` makes them)."""
    chapters = payload["chapters"]
    return [{"s": section, "c": "" if chapters[c] == section else chapters[c], "b": text}
            for _url, c, section, text in payload["docs"]]


def index_payload(payload: dict) -> dict:
    """The index the browser builds from the shipped payload (``buildIndex`` in search-engine.js)."""
    return _compact_direct(doc_fields(payload), charmap_from_string(payload["charmap"]))


_FIELD_TERMS: dict[str, tuple[tuple[tuple[str, int], ...], int]] = {}
#: token -> its index term (stemmed), or None for a stop word; one entry per distinct token
_TERM_OF: dict[str, str | None] = {}


def _field_terms(text: str, charmap: dict[str, str]) -> tuple[tuple[tuple[str, int], ...], int]:
    """Index terms of one field with their counts (in order of first appearance), and the
    field length: tokenised, lowercased, stop words dropped, stemmed.

    Memoised on the text: a character's folding depends only on the character (see
    `build_charmap`), so under `--serve` an edit re-tokenises only the sections it touched.
    Stemming and the stop-word test run once per distinct token (tokenize already lowercases).
    """
    hit = _FIELD_TERMS.get(text)
    if hit is None:
        tokens = tokenize(text, charmap)
        term_of = _TERM_OF
        for token in set(tokens).difference(term_of):
            term_of[token] = None if token in STOP_WORDS else stem_js(token)
        terms = tuple(filter(None, map(term_of.__getitem__, tokens)))
        # Counter keeps first-appearance order, which numbers new terms as lunr does
        hit = (tuple(Counter(terms).items()), len(terms))
        if len(_FIELD_TERMS) > 100_000:
            _FIELD_TERMS.clear()
        if len(term_of) > 1_000_000:
            term_of.clear()
        _FIELD_TERMS[text] = hit
    return hit


def _compact_direct(doc_fields: list[dict[str, str]], charmap: dict[str, str]) -> dict:
    """The same payload `_compact` makes from lunr's Builder, computed directly.

    Why by hand: lunr.py's Builder wraps every token in an object with copied metadata and runs
    it through a pipeline of Python calls; for a Chinese edition (~150k bigram tokens) that was
    80% of a cold site build. The semantics are the Builder's: per field, tokens lowercased,
    stop words dropped, stemmed; field length = tokens kept; terms numbered in order of first
    appearance (document, then field). `test_direct_index_matches_lunr_builder` holds the two
    byte-identical.
    """
    term_index: dict[str, int] = {}
    names = [name for name, _ in FIELDS]
    lengths: dict[str, list[int]] = {f: [] for f in names}
    per_doc: list[dict[str, dict[int, int]]] = []
    for fields in doc_fields:
        doc_tf: dict[str, dict[int, int]] = {}
        for field in names:
            counts, length = _field_terms(fields[field], charmap)
            doc_tf[field] = {term_index.setdefault(term, len(term_index)): n
                             for term, n in counts}
            lengths[field].append(length)
        per_doc.append(doc_tf)
    terms = [""] * len(term_index)
    for term, t in term_index.items():
        terms[t] = term
    return _payload(names, terms, lengths, per_doc)


def compact_with_lunr_builder(docs: list[SearchDoc], charmap: dict[str, str]) -> dict:
    """The reference: the payload from lunr.py's own Builder (slow; used by the tests)."""
    builder = Builder()
    builder.pipeline.add(stop_word_filter, js_stemmer)
    builder.ref("id")
    for name, boost in FIELDS:
        builder.field(name, boost=boost)
    builder.metadata_whitelist = []
    for i, doc in enumerate(docs):
        fields = _fields_of(doc)
        builder.add({"id": str(i), **{k: tokenize(v, charmap) for k, v in fields.items()}})
    return _compact(builder, len(docs))


def _compact(builder: Builder, ndocs: int) -> dict:
    """Term list, field lengths and per-term postings ``[doc delta, tf, ...]`` per field."""
    fields = list(builder._fields)
    terms = [None] * len(builder.inverted_index)
    for term, posting in builder.inverted_index.items():
        terms[posting["_index"]] = term
        if not term or " " in term:  # pragma: no cover - the tokeniser never makes these
            raise ValueError(f"unexpected index term {term!r}")
    lengths: dict[str, list[int]] = {f: [] for f in fields}
    per_doc = []
    for doc in range(ndocs):
        doc_tf = {}
        for field in fields:
            ref = f"{field}/{doc}"
            lengths[field].append(builder.field_lengths[ref])
            doc_tf[field] = {builder.inverted_index[term]["_index"]: tf
                             for term, tf in builder.field_term_frequencies[ref].items()}
        per_doc.append(doc_tf)
    return _payload(fields, terms, lengths, per_doc)


def _payload(names: list[str], terms: list[str], lengths: dict[str, list[int]],
             per_doc: list[dict[str, dict[int, int]]]) -> dict:
    """The index part of the payload from per-document term frequencies: postings are
    ``[doc gap, tf, ...]`` per term and field, in document order."""
    postings = {f: [[] for _ in terms] for f in names}
    last = {f: [0] * len(terms) for f in names}
    for doc, doc_tf in enumerate(per_doc):
        for field in names:
            plist, lastf = postings[field], last[field]
            for t, tf in doc_tf[field].items():
                plist[t].extend((doc - lastf[t], tf))
                lastf[t] = doc
    boosts = dict(FIELDS)
    return {
        "v": 2,
        "fields": [[f, boosts[f]] for f in names],
        "terms": " ".join(terms),
        "lengths": [lengths[f] for f in names],
        "postings": [postings[f] for f in names],
    }


def expand(payload: dict) -> dict:
    """lunr's serialised index (as ``lunr.Index.load`` takes it) from `index_payload`'s terms,
    field lengths and postings.

    Scores are lunr's BM25 field scores (k1 = 1.2, b = 0.75, field boost, 3 decimals),
    computed with the operations, in the order, of lunr.js 2.3.9's ``Builder.createFieldVectors``
    and ``lunr.idf`` (the index the browser builds), not lunr.py's: lunr.py rounds with Python's
    ``round`` where lunr.js does ``Math.round(score * 1000) / 1000``. ``test_index_build_parity``
    holds this equal to the index lunr.js builds in Node.
    """
    fields = [f for f, _ in payload["fields"]]
    boosts = [boost for _, boost in payload["fields"]]
    terms = payload["terms"].split(" ") if payload["terms"] else []
    ndocs = len(payload["lengths"][0]) if payload["lengths"] else 0
    postings = [{f: {} for f in fields} for _ in terms]
    df = [0] * len(terms)
    for fi, field in enumerate(fields):
        for t, flat in enumerate(payload["postings"][fi]):
            df[t] += len(flat) // 2
    idf = [math.log(1 + abs((ndocs - d + 0.5) / (d + 0.5))) for d in df]
    vectors = {(f, d): [] for f in fields for d in range(ndocs)}
    for fi, field in enumerate(fields):
        lengths = payload["lengths"][fi]
        avg = sum(lengths) / ndocs if ndocs else 0
        boost = boosts[fi]
        for t, flat in enumerate(payload["postings"][fi]):
            doc = 0
            for j in range(0, len(flat), 2):
                doc += flat[j]
                tf = flat[j + 1]
                score = idf[t] * ((K1 + 1) * tf) / (K1 * (1 - B + B * (lengths[doc] / avg)) + tf)
                score = score * boost
                score = math.floor(score * 1000 + 0.5) / 1000   # Math.round for x >= 0
                vectors[(field, doc)].extend((t, score))
                postings[t][field][str(doc)] = {}
    field_vectors = [[f"{f}/{d}", elements] for (f, d), elements in vectors.items()]
    inverted = []
    for i, term in enumerate(terms):
        posting = {"_index": i}
        posting.update(postings[i])
        inverted.append([term, posting])
    inverted.sort(key=lambda tp: tp[0])
    return {"version": "2.3.9", "fields": fields, "fieldVectors": field_vectors, "invertedIndex": inverted, "pipeline": ["stemmer"]}


def load_payload(assets: dict[str, bytes]) -> dict:
    text = assets[ASSET_NAME].decode("utf-8")
    if text.startswith(_BOM):
        text = text[1:]
    if not text.startswith(_PREFIX):
        raise ValueError(f"{ASSET_NAME} does not start with {_PREFIX!r}")
    body = text[len(_PREFIX):].rstrip()
    if body.endswith(";"):
        body = body[:-1]
    if body.startswith("JSON.parse(") and body.endswith(")"):
        body = _unquote_js(body[len("JSON.parse("):-1])
    payload = json.loads(body)
    payload["docs"] = docs_of(payload)   # the rows every reader here takes
    return payload


def _unquote_js(literal: str) -> str:
    """The inverse of `_js_string`."""
    if not (literal.startswith("'") and literal.endswith("'")):
        raise ValueError("expected a single-quoted JS string")
    return re.sub(r"\\(u2028|u2029|.)",
                  lambda m: {"u2028": "\u2028", "u2029": "\u2029"}.get(m.group(1), m.group(1)),
                  literal[1:-1])


_CACHE: dict[str, tuple[dict, Index, dict[str, str], Synonyms]] = {}


def _loaded(assets: dict[str, bytes]):
    key = hashlib.sha256(assets[ASSET_NAME]).hexdigest()
    if key not in _CACHE:
        payload = load_payload(assets)
        if len(_CACHE) > 16:
            _CACHE.clear()
        synonyms = synonyms_of(payload)
        _CACHE[key] = (payload, Index.load(expand(index_payload(payload))),
                       charmap_from_string(payload["charmap"]), synonyms)
    return _CACHE[key]


def query_terms(query: str, charmap: dict[str, str]) -> list[str]:
    """The required terms of a query: query-mode tokens, stop words dropped, deduplicated,
    single Latin letters dropped when other terms remain.

    Mirrored by ``queryTerms`` in search-engine.js (lunr's stop words).
    """
    seen: list[str] = []
    for tok in tokenize(query, charmap, query=True):
        if stop_word_filter(Token(tok)) is None:
            continue
        if tok not in seen:
            seen.append(tok)
    # A lone Latin letter next to other terms is noise ("Little's law" -> little, s, law):
    # requiring it would only demand a stray "s" somewhere, and highlight every one.
    words = [t for t in seen if len(t) > 1 or is_cjk(t)]
    return words if words else seen


def rank(results, limit: int | None = MAX_RESULTS) -> list[tuple[int, float]]:
    """lunr results -> [(doc number, score)], ties broken by document order (as in search-engine.js)."""
    scored = [(int(r["ref"]), r["score"]) for r in results]
    scored.sort(key=lambda rs: (-round(rs[1], 6), rs[0]))
    return scored[:limit]


def prefix_term(query: str, terms: list[str]) -> str | None:
    """The last term, if it may be a word still being typed: Latin letters or digits, at
    least three (a shorter prefix matches too many words to rank well), and no space after it
    (mirrored by ``prefixTerm`` in search-engine.js)."""
    if not terms or query[-1:].isspace() or len(terms[-1]) < 3:
        return None
    return None if any(is_cjk(ch) for ch in terms[-1]) else terms[-1]


def _run(index: Index, query: str, charmap: dict[str, str]) -> list[int]:
    """Doc numbers for one query: every term required; the words as typed first, then, if
    the last word may be unfinished (`prefix_term`), documents where it starts a word."""
    terms = query_terms(query, charmap)
    if not terms:
        return []

    def required(q, words):
        for t in words:
            # stemmed here with the lunr.js stemmer, so lunr.py's own pipeline is bypassed
            q.term(stem_js(t), presence=QueryPresence.REQUIRED, use_pipeline=False)
        return q

    refs = [ref for ref, _ in rank(index.query(required(index.create_query(), terms)))]
    prefix = prefix_term(query, terms)
    if prefix and len(refs) < MAX_RESULTS:
        q = required(index.create_query(), terms[:-1])
        q.term(prefix, presence=QueryPresence.REQUIRED, use_pipeline=False,
               wildcard=Query.WILDCARD_TRAILING)
        seen = set(refs)
        refs += [ref for ref, _ in rank(index.query(q), limit=None) if ref not in seen]
    return refs[:MAX_RESULTS]


def search(assets: dict[str, bytes], query: str, lang: str) -> list[str]:
    """Query the built assets the way the browser does (``runQuery`` in search-engine.js); returns
    urls, best first: the query's own results, then those of the query with the glossary's
    avoided forms read as the edition's (`rewrite_query`)."""
    payload, index, charmap, synonyms = _loaded(assets)
    if payload.get("lang") not in (None, lang):
        raise ValueError(f"assets are for {payload.get('lang')!r}, not {lang!r}")
    refs = _run(index, query, charmap)
    rewritten = rewrite_query(query, charmap, synonyms)
    if rewritten is not None and len(refs) < MAX_RESULTS:
        seen = set(refs)
        refs += [ref for ref in _run(index, rewritten, charmap) if ref not in seen]
    return [payload["docs"][ref][0] for ref in refs[:MAX_RESULTS]]


def _sizes(data: bytes) -> dict[str, int]:
    return {"raw": len(data), "gzip": len(gzip.compress(data, compresslevel=9, mtime=0))}


def index_report(assets: dict[str, bytes], docs: list[SearchDoc]) -> dict:
    """Sizes (bytes, raw and gzip -9) of the shipped file and its parts against the text.

    The file ships ``text`` (the section texts), ``titles`` (urls, section and chapter
    titles), ``charmap`` (the variant map) and ``synonyms`` (the glossary's); ``index`` is the
    index the browser builds from them (terms, field lengths, postings as JSON), which is not
    shipped; ``plain`` is the edition's plain text (all section texts joined), the yardstick.
    """
    payload = load_payload(assets)
    index = index_payload(payload)
    parts = {
        "file": assets[ASSET_NAME],
        "text": _dumps([row[3] for row in payload["docs"]]).encode("utf-8"),
        "titles": _dumps({"chapters": payload["chapters"],
                          "docs": [row[:3] for row in payload["docs"]]}).encode("utf-8"),
        "charmap": payload["charmap"].encode("utf-8"),
        "synonyms": _dumps([payload.get("syn", []), payload.get("keep", [])]).encode("utf-8"),
        "index": _dumps({k: index[k] for k in ("terms", "lengths", "postings")}).encode("utf-8"),
        "plain": "\n".join(d.text for d in docs).encode("utf-8"),
    }
    report = {name: _sizes(data) for name, data in parts.items()}
    report["documents"] = len(payload["docs"])
    report["terms"] = len(index["terms"].split(" ")) if index["terms"] else 0
    report["charmap_pairs"] = len(payload["charmap"]) // 2
    report["synonym_pairs"] = len(payload.get("syn", []))
    plain = report["plain"]
    report["ratio"] = {
        "file_gzip": round(report["file"]["gzip"] / max(plain["gzip"], 1), 3),
        "index_gzip": round(report["index"]["gzip"] / max(plain["gzip"], 1), 3),
    }
    return report
