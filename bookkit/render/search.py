"""Build-time search index (one per edition), and the Python side of the query.

Each edition gets one ``search-index.js`` that sets ``window.bookSearchIndex``. It is built
with the Python ``lunr`` package over text pre-tokenised by :mod:`bookkit.render.cjk`, and
loaded by lunr.js 2.3.9 (``website/static/search.js``) when the reader first focuses the box.

Shipped format: ``window.bookSearchIndex=JSON.parse('...')`` (V8 parses a JSON string
several times faster than the same object literal), UTF-8 with a BOM so it decodes right
whatever the page's or server's charset. The JSON:

``{"v": 3, "fields": [[name, boost], ...], "terms": "t0 t1 ...", "lengths": [[field length
per doc] per field], "postings": ["<term 0> <term 1> ..." per field], "lang", "chapters":
[...], "docs": [[url, chapter_no, section, text], ...], "charmap": "t1s1t2s2..."}``

A term's postings in a field are varints (see `encode_postings`): per document that has the
term, the gap from the previous such document and the term frequency.

This is lunr's index without the redundancy: with an empty metadata whitelist every posting
``invertedIndex[term][field][doc]`` is ``{}``, so postings plus term frequencies and field
lengths are enough. :func:`expand` (and ``expand`` in search.js) rebuilds the serialised
lunr index, computing lunr's BM25 vector scores with bit-identical arithmetic on both sides;
refs are doc positions. Scores are not shipped (they were most of the gzipped size). The
text is shipped once, for snippets; the lunr part stores none of it.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import math
import re
from collections import Counter
from dataclasses import dataclass

from lunr.builder import Builder
from lunr.index import Index
from lunr.pipeline import Pipeline
from lunr.query import Query, QueryPresence
from lunr.stop_word_filter import WORDS as STOP_WORDS, stop_word_filter
from lunr.token import Token

from .cjk import build_charmap, charmap_from_string, charmap_to_string, is_cjk, tokenize

__all__ = ["SearchDoc", "build_search_assets", "search", "index_report", "LANGS"]

LANGS = ("zh-Hans", "en", "zh-Hant")
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


# --- postings as text -------------------------------------------------------------------------
# Why not JSON arrays of numbers: most gaps and frequencies are below 46, so one character each
# suffices; the zh index shrank from 52 to 41 KB gzipped. Digits are the printable ASCII
# characters that need no escaping in a JSON string nor in a single-quoted JS string, and are
# not the term separator (space). A number is written little-endian: digits from _CONT carry
# on, a digit from _FINAL ends the number.
_DIGITS = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in "\"'\\")
_FINAL, _CONT = _DIGITS[:46], _DIGITS[46:]
_NF, _NC = len(_FINAL), len(_CONT)
_DIGIT_VALUE = {ch: i for i, ch in enumerate(_DIGITS)}


def _varint(out: list[str], v: int) -> None:
    while v >= _NF:
        out.append(_CONT[v % _NC])
        v //= _NC
    out.append(_FINAL[v])


def encode_postings(flat: list[int]) -> str:
    """``[gap, tf, gap, tf, ...]`` -> text: ``2*gap + (tf > 1)``, then ``tf - 2`` if tf > 1."""
    out: list[str] = []
    for j in range(0, len(flat), 2):
        gap, tf = flat[j], flat[j + 1]
        _varint(out, 2 * gap + (tf > 1))
        if tf > 1:
            _varint(out, tf - 2)
    return "".join(out)


def decode_postings(text: str) -> list[int]:
    """The inverse of `encode_postings` (mirrored by ``decodePostings`` in search.js)."""
    numbers: list[int] = []
    value, scale = 0, 1
    for ch in text:
        d = _DIGIT_VALUE[ch]
        if d >= _NF:
            value += (d - _NF) * scale
            scale *= _NC
        else:
            numbers.append(value + d * scale)
            value, scale = 0, 1
    flat: list[int] = []
    i = 0
    while i < len(numbers):
        code = numbers[i]
        if code & 1:
            flat.extend((code >> 1, numbers[i + 1] + 2))
            i += 2
        else:
            flat.extend((code >> 1, 1))
            i += 1
    return flat


def _js_string(json_text: str) -> str:
    """JSON text as a single-quoted JS string literal (for ``JSON.parse('...')``)."""
    return "'" + (json_text.replace("\\", "\\\\").replace("'", "\\'")
                  .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")) + "'"


def build_search_assets(docs: list[SearchDoc], lang: str) -> dict[str, bytes]:
    """Build ``{"search-index.js": bytes}`` for one edition; same input, same bytes."""
    if lang not in LANGS:
        raise ValueError(f"unknown edition language {lang!r}; expected one of {LANGS}")
    docs = list(docs)
    charmap = build_charmap(t for d in docs for t in (d.chapter, d.section, d.text))

    payload = _compact_direct([_fields_of(doc) for doc in docs], charmap)
    chapters: list[str] = []
    chapter_no: dict[str, int] = {}
    rows = []
    for doc in docs:
        if doc.chapter not in chapter_no:
            chapter_no[doc.chapter] = len(chapters)
            chapters.append(doc.chapter)
        rows.append([doc.url, chapter_no[doc.chapter], doc.section, doc.text])
    payload["v"] = 3
    payload["postings"] = [" ".join(encode_postings(flat) for flat in field)
                           for field in payload["postings"]]
    payload.update({"lang": lang, "chapters": chapters, "docs": rows, "charmap": charmap_to_string(charmap)})
    text = _BOM + _PREFIX + "JSON.parse(" + _js_string(_dumps(payload)) + ");\n"
    return {ASSET_NAME: text.encode("utf-8")}


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


_LN2 = 0.6931471805599453


def _ln(x: float) -> float:
    """Natural log for x >= 1 from +, -, *, / only, so Python and JS agree to the bit.

    (``math.log`` and V8's ``Math.log`` may differ in the last place.) Mirrored by ``ln``
    in search.js.
    """
    k = 0
    while x >= 2:
        x = x / 2
        k += 1
    y = (x - 1) / (x + 1)
    y2 = y * y
    total = 0.0
    term = y
    for n in range(30):
        total = total + term / (2 * n + 1)
        term = term * y2
    return k * _LN2 + 2 * total


def expand(payload: dict) -> dict:
    """Rebuild lunr's serialised index (as ``lunr.Index.load`` takes it) from the payload.

    Scores are lunr's BM25 field scores (k1 = 1.2, b = 0.75, field boost, 3 decimals),
    computed with the same operations, in the same order, as ``expand`` in search.js.
    """
    fields = [f for f, _ in payload["fields"]]
    boosts = [boost for _, boost in payload["fields"]]
    terms = payload["terms"].split(" ") if payload["terms"] else []
    ndocs = len(payload["docs"])
    if payload.get("v") == 3:
        payload = {**payload, "postings": [[decode_postings(t) for t in field.split(" ")]
                                           if terms else [] for field in payload["postings"]]}
    postings = [{f: {} for f in fields} for _ in terms]
    df = [0] * len(terms)
    for fi, field in enumerate(fields):
        for t, flat in enumerate(payload["postings"][fi]):
            df[t] += len(flat) // 2
    idf = [_ln(1 + abs((ndocs - d + 0.5) / (d + 0.5))) for d in df]
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
                score = math.floor(score * 1000 + 0.5) / 1000
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
    return json.loads(body)


def _unquote_js(literal: str) -> str:
    """The inverse of `_js_string`."""
    if not (literal.startswith("'") and literal.endswith("'")):
        raise ValueError("expected a single-quoted JS string")
    return re.sub(r"\\(u2028|u2029|.)",
                  lambda m: {"u2028": "\u2028", "u2029": "\u2029"}.get(m.group(1), m.group(1)),
                  literal[1:-1])


_CACHE: dict[str, tuple[dict, Index, dict[str, str]]] = {}


def _loaded(assets: dict[str, bytes]):
    key = hashlib.sha256(assets[ASSET_NAME]).hexdigest()
    if key not in _CACHE:
        payload = load_payload(assets)
        if len(_CACHE) > 16:
            _CACHE.clear()
        _CACHE[key] = (payload, Index.load(expand(payload)), charmap_from_string(payload["charmap"]))
    return _CACHE[key]


def query_terms(query: str, charmap: dict[str, str]) -> list[str]:
    """The required terms of a query: query-mode tokens, stop words dropped, deduplicated,
    single Latin letters dropped when other terms remain.

    Mirrored by ``queryTerms`` in search.js (which uses ``lunr.stopWordFilter``).
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
    """lunr results -> [(doc number, score)], ties broken by document order (as in search.js)."""
    scored = [(int(r["ref"]), r["score"]) for r in results]
    scored.sort(key=lambda rs: (-round(rs[1], 6), rs[0]))
    return scored[:limit]


def prefix_term(query: str, terms: list[str]) -> str | None:
    """The last term, if it may be a word still being typed: Latin letters or digits, at
    least three (a shorter prefix matches too many words to rank well), and no space after it
    (mirrored by ``prefixTerm`` in search.js)."""
    if not terms or query[-1:].isspace() or len(terms[-1]) < 3:
        return None
    return None if any(is_cjk(ch) for ch in terms[-1]) else terms[-1]


def search(assets: dict[str, bytes], query: str, lang: str) -> list[str]:
    """Query the built assets the way the browser does; returns urls, best first.

    Every term is required. Documents matching the words as typed come first; then, if the
    last word may be unfinished (`prefix_term`), those where it starts a word.
    """
    payload, index, charmap = _loaded(assets)
    if payload.get("lang") not in (None, lang):
        raise ValueError(f"assets are for {payload.get('lang')!r}, not {lang!r}")
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
    return [payload["docs"][ref][0] for ref in refs[:MAX_RESULTS]]


def _sizes(data: bytes) -> dict[str, int]:
    return {"raw": len(data), "gzip": len(gzip.compress(data, compresslevel=9, mtime=0))}


def index_report(assets: dict[str, bytes], docs: list[SearchDoc]) -> dict:
    """Sizes (bytes, raw and gzip -9) of the shipped file and its parts against the text.

    ``index`` is the lunr part (terms + vectors + field list), ``docs`` the shipped titles,
    urls and text (for snippets and results), ``charmap`` the variant map; ``text`` is the
    edition's plain text (all section texts joined), the yardstick.
    """
    payload = load_payload(assets)
    index_part = {k: payload[k] for k in ("v", "fields", "terms", "lengths", "postings")}
    parts = {
        "file": assets[ASSET_NAME],
        "index": _dumps(index_part).encode("utf-8"),
        "docs": _dumps({"chapters": payload["chapters"], "docs": payload["docs"]}).encode("utf-8"),
        "charmap": payload["charmap"].encode("utf-8"),
        "text": "\n".join(d.text for d in docs).encode("utf-8"),
    }
    report = {name: _sizes(data) for name, data in parts.items()}
    report["documents"] = len(payload["docs"])
    report["terms"] = len(payload["terms"].split(" ")) if payload["terms"] else 0
    report["charmap_pairs"] = len(payload["charmap"]) // 2
    text = report["text"]
    report["ratio"] = {
        "index_raw": round(report["index"]["raw"] / max(text["raw"], 1), 3),
        "index_gzip": round(report["index"]["gzip"] / max(text["gzip"], 1), 3),
        "file_gzip": round(report["file"]["gzip"] / max(text["gzip"], 1), 3),
    }
    return report
