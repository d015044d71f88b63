"""`llms.txt` and the book as plain Markdown, per edition, in the site (the llmstxt.org
convention documentation sites ship for language models).

Into each edition's root of the site:

- `llms.txt`: the edition's title as the H1, its subtitle as the blockquote summary, its
  author line, then an H2 section (the edition's word for "Contents") of links, one per
  chapter in reading order, to that chapter's plain text, and the convention's "Optional"
  section (a reader short of context may skip it) linking the whole text and the other
  editions' `llms.txt`. Only words the edition already has are used: no new string to
  translate;
- `<slug>.html.md`: each chapter's plain Markdown, at its page's URL with `.md` appended (the
  convention's rule for a page's Markdown twin);
- `llms-full.txt`: the whole edition as one Markdown text.

The text is what a reader sees, as Markdown and nothing else: bound numbers as the edition
formats them, cross-references as their labels (`Figure 1-2`), numbered headings, figures as
their caption and text alternative, the book's values in what-if regions, no HTML (raw anchors
and comments are dropped). Written from the resolved tokens by the Pandoc writer's walk
(`render/pandoc/sources.PandocWriter`), with the few things Pandoc needs and a language model does
not (anchors, attributes, source markers, image files) replaced.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from bookkit.util.cache import Cache, key_of, sha256_bytes
from bookkit.model import ResolvedBook, TokenMeta as M
from bookkit.render.outputs import Needs, OutputContext, OutputReport
from bookkit.render.pandoc.sources import PandocWriter
from bookkit.locale.text import chapter_context, values_digest

INDEX = "llms.txt"
FULL = "llms-full.txt"
MARKDOWN_SUFFIX = ".md"     # appended to a page's URL: `/en/workloads.html.md`
_TAG_RE = re.compile(r"<[^>]*>")
_BLANK_RUN_RE = re.compile(r"\n{3,}")

class PlainWriter(PandocWriter):
    """A chapter as plain Markdown (CommonMark with pipe tables, `$…$` math and footnotes)."""

    def heading(self, tok, inline) -> str:
        level = int(tok.tag[1])
        title = self.inline(inline.children or [])
        number = tok.meta.get(M.NUMBER, "")
        if number:
            title = (self.strings["chapter"].format(n=number) if level == 1 else number) \
                + " " + title
        return f"{'#' * level} {title}"

    def figure(self, tok, inline) -> str:
        image = next(k for k in inline.children if k.type == "image")
        label = self.strings["figure"].format(n=tok.meta[M.NUMBER])
        caption = self.inline(image.children or []).strip()
        out = f"**{label}{self.strings['caption_sep']}{caption}**"
        drawn = self.ctx.figures.get((tok.meta[M.FIGURE_ID], self.ctx.edition.lang))
        if drawn is not None and drawn.description:
            about = self.strings.get("figure_description", "Description")
            out += f"\n\n*{about}*{self.strings['caption_sep']}{drawn.description}"
        elif "static_src" in tok.meta and image.meta.get("alt"):
            alt = image.meta["alt"]
            if alt != caption:
                out += f"\n\n{alt}"
        return out

    def table_caption(self, tok, inline) -> str:
        label = self.strings["table"].format(n=tok.meta.get(M.NUMBER, ""))
        return f"**{label}{self.strings['caption_sep']}{self.inline(inline.children or []).strip()}**"

    def equation(self, tok) -> str:
        return f"$$\n{self.math(tok.content.strip(), tok)} \\tag{{{tok.meta[M.NUMBER]}}}\n$$"

    def bound(self, text: str) -> str:
        return text

    def reference(self, label: str, anchor: str) -> str:
        return label

    def html(self, text: str) -> str:
        return _TAG_RE.sub("", re.sub(r"<!--.*?-->", "", text, flags=re.S))

    def prose(self, text: str, tok) -> str:
        return text        # links and images as the author wrote them; nothing to copy


class LlmsOutput:
    name = "llms"
    target = "site"
    needs = Needs(figures=("svg",))      # a diagram's text alternative is made when it is drawn
    watch = ()
    files = (INDEX, FULL)

    def __init__(self, root: Path, cache: Cache) -> None:
        self.cache = cache
        self._code: str | None = None
        # In memory, for --serve (each rebuild keyed and encoded the whole book again, ~30 ms):
        # (edition, chapter file) -> (what its text is made of, the text), and edition -> its
        # texts and their encoded files
        self._texts: dict[tuple[str, str], tuple[tuple, str]] = {}
        self._encoded: dict[str, tuple[str, tuple[str, ...], list[bytes], bytes]] = {}

    def code(self) -> str:
        """The digest of the code that writes the text: a change to it is a cache miss."""
        if self._code is None:
            from bookkit.locale import numbers
            from bookkit.locale import text
            from bookkit.render import whatif_region
            from bookkit.render.pandoc import sources
            self._code = sha256_bytes(b"".join(
                Path(m.__file__).read_bytes()
                for m in (sys.modules[__name__], sources, text, whatif_region, numbers)))
        return self._code

    def edition_texts(self, resolved: ResolvedBook, key: str) -> list[str]:
        """Each chapter's plain text, in order. Cached on disk per chapter, by everything its
        text is made of: the walk over ~40 chapters cost a warm build about a tenth of its CPU
        time, and with one key per edition an edit under --serve walked the whole edition."""
        edition = resolved.editions[key]
        lang = edition.info.lang
        common = (self.code(), edition.labels_digest, key, lang,
                  edition.info.spec.trusted, repr(sorted(edition.info.strings.items())))
        descriptions = {fid: image.description for (fid, image_lang), image
                        in resolved.figures.items() if image_lang == lang}
        texts = []
        for chapter in edition.chapters:
            # what the text is made of: the memo's key in memory, the cache's on disk
            made_of = (*common, chapter.source.path.name, chapter.digest,
                       values_digest(chapter.values),
                       sorted(([fid, lang], descriptions[fid]) for fid in
                              {f[0] for f in chapter.outline.figures} if fid in descriptions))
            slot = (key, str(chapter.source.path))
            known = self._texts.get(slot)
            if known is not None and known[0] == made_of:
                texts.append(known[1])
                continue
            cache_key = key_of("llms", *made_of)
            hit = (self.cache.get("llms", cache_key, keep=True) if self.cache is not None
                   else None)
            if hit is None:
                ctx = chapter_context(resolved, edition, chapter, {})
                hit = _BLANK_RUN_RE.sub("\n\n", PlainWriter(ctx, chapter.source.slug)
                                        .chapter(chapter.tokens))
                if ctx.errors:   # an unknown name: the site reports it; the text is not kept
                    texts.append(hit)
                    continue
                if self.cache is not None:
                    self.cache.put("llms", cache_key, hit)
            self._texts[slot] = (made_of, hit)
            texts.append(hit)
        return texts

    def write(self, resolved: ResolvedBook, context: OutputContext) -> OutputReport:
        site_url = getattr(context.site, "site_url", "") or ""
        files: dict[str, bytes] = {}
        for key in resolved.outputs:
            edition = resolved.editions[key]
            info, prefix = edition.info, edition.info.url_prefix
            head = f"# {info.title}\n\n" + (f"> {info.subtitle}\n\n" if info.subtitle else "")
            links, texts = [], self.edition_texts(resolved, key)
            encoded, full = self._encode(key, head, texts)
            for chapter, data in zip(edition.chapters, encoded):
                name = f"{chapter.source.slug}.html{MARKDOWN_SUFFIX}"
                files[prefix + name] = data
                number = chapter.source.number
                label = (info.strings["chapter"].format(n=number) if number
                         else info.strings["preface"])
                title = chapter.outline.title
                shown = title if title.startswith(label) else f"{label} {title}"
                links.append(f"- [{shown}]({site_url}{prefix}{name})")
            optional = [f"- [{info.title} ({FULL})]({site_url}{prefix}{FULL})"]
            optional += [f"- [{e.info.title} ({e.info.lang})]({site_url}{e.info.url_prefix}{INDEX})"
                         for k, e in resolved.book.editions.items() if k != key]
            index = (head + (f"{info.author}\n\n" if info.author else "")
                     + f"## {info.strings['contents']}\n\n" + "\n".join(links) + "\n"
                     + "\n## Optional\n\n" + "\n".join(optional) + "\n")
            files[prefix + INDEX] = index.encode("utf-8")
            files[prefix + FULL] = full
        return OutputReport(self.name, files=files)

    def _encode(self, key: str, head: str, texts: list[str]) -> tuple[list[bytes], bytes]:
        """Each chapter's text and the whole edition's as UTF-8, again only when a text is
        another object than last time (`edition_texts` returns the same str while a chapter's
        text is unchanged; the memo holds them, so their ids are not reused)."""
        last = self._encoded.get(key)
        if (last is not None and last[0] == head and len(last[1]) == len(texts)
                and all(a is b for a, b in zip(last[1], texts))):
            return last[2], last[3]
        before = dict(zip(map(id, last[1]), last[2])) if last is not None else {}
        encoded = [before.get(id(text)) or text.encode("utf-8") for text in texts]
        full = (head + "\n".join(texts)).encode("utf-8")
        self._encoded[key] = (head, tuple(texts), encoded, full)
        return encoded, full
