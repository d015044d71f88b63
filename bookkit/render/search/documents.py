"""The search index's documents from the resolved book: one per section, its plain text with
bound numbers as rendered. `bookkit.lunr.index` turns them into the index files.

`SearchIndexer` keeps each chapter's documents in memory while its inputs are unchanged, and
caches whole indexes on disk by their documents (an unchanged edition is not indexed again).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bookkit.util.cache import Cache, key_of, sha256_bytes
from bookkit.model import ResolvedBook, ResolvedChapter, ResolvedEdition, TokenMeta
from bookkit.locale.text import chapter_context, plain_inline, values_digest
from bookkit.lunr.index import SearchDoc, Synonyms, build_search_assets


@dataclass
class SearchJob:
    """One edition's search index: the cached bytes, or what is needed to build them."""
    docs: list[SearchDoc]
    lang: str
    key: str
    hit: dict | None
    synonyms: Synonyms | None = None

    def finish(self, cache: Cache) -> dict[str, bytes]:
        """The index files: cached, or built now (and cached)."""
        if self.hit is None:
            self.hit = build_search_assets(self.docs, self.lang, self.synonyms)
            cache.put("search", self.key, self.hit)
        return self.hit


class SearchIndexer:
    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self._docs: dict[tuple, list] = {}         # chapter inputs -> its search documents
        self._keys: dict[str, tuple] = {}          # edition -> what its last index key was of
        self._code: str | None = None

    def chapter_docs(self, resolved: ResolvedBook, edition: ResolvedEdition,
                     chapter: ResolvedChapter) -> list[SearchDoc]:
        """The chapter's search documents, kept in memory while its inputs are unchanged.

        Unknown names are not reported here: the render pass reports them with file:line.
        """
        memo_key = (str(chapter.source.path), chapter.digest, edition.labels_digest,
                    values_digest(chapter.values))
        docs = self._docs.get(memo_key)
        if docs is None:
            ctx = chapter_context(resolved, edition, chapter, {})
            docs = section_docs(chapter, ctx)
            if not ctx.errors:
                self._docs[memo_key] = docs
        return docs

    def start(self, resolved: ResolvedBook, key: str) -> SearchJob:
        """The edition's search index from the cache, or what is needed to build it."""
        from bookkit.lunr import cjk, index as search
        if self._code is None:
            self._code = sha256_bytes(Path(search.__file__).read_bytes()
                                      + Path(cjk.__file__).read_bytes()
                                      + cjk.FOLD_TABLE.read_bytes())
        edition = resolved.editions[key]
        per_chapter = tuple(self.chapter_docs(resolved, edition, chapter)
                            for chapter in edition.chapters)
        docs = [d for chapter_docs in per_chapter for d in chapter_docs]
        # An edition whose language the indexer does not know is indexed as its fallback's.
        lang = resolved.book.registry.inherit(key, search.LANGS, "search index language")
        synonyms = search.glossary_synonyms(edition.info.folder)   # the edition's glossary
        # The key is a digest of the edition's whole text (~30 ms for the three editions):
        # taken again only when a chapter's documents or the glossary are other objects than
        # last time (`chapter_docs` returns the same list while a chapter is unchanged; the
        # last key holds them, so their ids are not reused meanwhile).
        last = self._keys.get(key)
        if (last is not None and last[0] == (lang, self._code) and last[1] is synonyms
                and len(last[2]) == len(per_chapter)
                and all(a is b for a, b in zip(last[2], per_chapter))):
            cache_key = last[3]
        else:
            cache_key = key_of("search", lang, self._code, [synonyms.pairs, synonyms.keep],
                               [(d.url, d.chapter, d.section, d.text) for d in docs])
            self._keys[key] = ((lang, self._code), synonyms, per_chapter, cache_key)
        # kept in memory (`keep`): unpickling an edition's index again cost ~3 ms a rebuild
        return SearchJob(docs, lang, cache_key,
                         self.cache.get("search", cache_key, keep=True), synonyms)


def section_docs(chapter: ResolvedChapter, ctx) -> list[SearchDoc]:
    """One search document per section: its plain text with bound numbers as rendered."""
    tokens, outline = chapter.tokens, chapter.outline
    s = ctx.edition.strings
    number = outline.chapter.number
    chapter_title = (f"{s['chapter'].format(n=number)} {outline.title}" if number
                     else outline.title)
    slug = outline.chapter.slug
    docs: list[SearchDoc] = []
    current = (f"{slug}.html", chapter_title)
    parts: list[str] = []

    def flush():
        text = " ".join(p for p in parts if p).strip()
        docs.append(SearchDoc(url=current[0], chapter=chapter_title, section=current[1],
                              text=text))

    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag in ("h2", "h3"):
            flush()
            parts = []
            title = plain_inline(tokens[i + 1].children or [], ctx)
            num = tok.meta.get(TokenMeta.NUMBER, "")
            current = (f"{slug}.html#{tok.attrGet('id')}", f"{num} {title}".strip())
            continue
        if tok.type == "inline" and not (i > 0 and tokens[i - 1].type == "heading_open"
                                         and tokens[i - 1].tag in ("h1", "h2", "h3")):
            parts.append(plain_inline(tok.children or [], ctx))
        elif tok.type == "fence" and not tok.info.startswith("calc"):
            parts.append(tok.content)
    flush()
    return [d for d in docs if d.text or d.section]


