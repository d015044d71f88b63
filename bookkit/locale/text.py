"""What every output reads from a resolved chapter, below all of them: the `RenderContext`
(a chapter with its edition's strings, labels, values and figures), bound numbers formatted
for the edition (`bound_text`), cross-references as their labels (`xref`), a heading's or
caption's plain text (`plain_inline`, `title_text`) and formulas with their numbers in
(`math_source`).

The site (`render/site/html.py`, `renderer.py`), the search index (`render/search/documents.py`),
the what-if data (`whatif_data.py`), the Pandoc sources (`render/pandoc/sources.py`), `llms.py`
and numbering (titles, `resolve/book.py`) import these from here,
so no output depends on another's renderer.
"""
from __future__ import annotations

import functools

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it.token import Token

from bookkit.locale.numbers import format_value, parse_spec
from bookkit.source.markdown import BOUND_RE
from bookkit.model import (BoundValue, BuildError, ChapterSource, EditionInfo, FigureImage, Label,
                            ResolvedBook, ResolvedChapter, ResolvedEdition, label_text)
from bookkit.source.mathtext import tex_to_text
from bookkit.util.memo import PerObject


@dataclass
class RenderContext:
    chapter: ChapterSource
    edition: EditionInfo
    labels: dict[str, Label]
    values: dict[str, BoundValue]
    math: dict | None   # None: leave a slot per formula, filled later by `fill_math`
    figures: dict[tuple[str, str], FigureImage]
    figure_sizes: dict[tuple[str, str], tuple[int, int]]
    errors: list[BuildError] = field(default_factory=list)
    chapter_files: dict[str, str] = field(default_factory=dict)   # "03-x.md" -> "workloads"
    assets: dict[str, Path] = field(default_factory=dict)          # site path -> source image
    math_slots: list[tuple[str, bool, Token]] = field(default_factory=list)
    # What-if scenarios of the chapter (name -> Scenario) and, per region, the bound numbers
    # and formulas in render order (`whatif_region.Slot`, read by `whatif.chapter_data`).
    whatif: dict | None = None
    whatif_slots: dict = field(default_factory=dict)
    # this chapter's diagrams drawn again per what-if combination:
    # (figure id, lang) -> [(scenario, combination, variant figure id)]
    figure_variants: dict = field(default_factory=dict)

    def fail(self, tok: Token | None, message: str, hint: str = "") -> None:
        line = tok.map[0] + 1 if tok is not None and tok.map else None
        self.errors.append(BuildError(self.chapter.path, line, message, hint))


def bound_text(ctx: RenderContext, name: str, spec_text: str, tok: Token | None,
               latex: bool = False) -> tuple[str, BoundValue | None]:
    if not name:
        ctx.fail(tok, f"`{spec_text}` is not a bound reference",
                 "write {{ name }} or {{ name | spec }}; compute expressions in a calc cell")
        return "??", None
    bound = ctx.values.get(name)
    if bound is None:
        ctx.fail(tok, f"unknown name `{name}` in {{{{ {name} }}}}",
                 "define it in a calc cell of the original chapter (manuscripts/)")
        return "??", None
    if spec_text.strip() == "phrase":
        return phrase_text(ctx, bound, tok), bound
    try:
        if isinstance(bound.value, str):
            parse_spec(spec_text)   # a bad spec is reported for a text value too
            return bound.value, bound
        lang = ctx.edition.spec.number_lang
        try:
            return _formatted(bound.value, spec_text, lang, latex), bound
        except TypeError:   # not hashable (an array): formatted directly, which reports it
            return format_value(bound.value, parse_spec(spec_text), lang, latex=latex), bound
    except ValueError as exc:
        ctx.fail(tok, f"bad format for `{name}`: {exc}")
        return "??", bound


@functools.lru_cache(maxsize=65536, typed=True)
def _formatted(value, spec_text: str, number_lang: str, latex: bool) -> str:
    """A bound value as an edition writes it, once per (value, spec, conventions): the site
    page, its search text and its plain text format the same ~2,000 values of a chapter,
    and --serve did so again for every edit (0.15 s)."""
    return format_value(value, parse_spec(spec_text), number_lang, latex=latex)


def phrase_text(ctx: RenderContext, bound: BoundValue, tok: Token | None) -> str:
    """`{{ name | phrase }}`: the cell computes a key ("memory-bound"), each edition words it
    (edition.yml, `strings: phrases:`), so a conclusion follows the numbers it rests on."""
    phrases = ctx.edition.strings.get("phrases") or {}
    text = phrases.get(str(bound.value))
    if text is None:
        ctx.fail(tok, f"no phrase `{bound.value}` (the value of `{bound.name}`) in "
                      f"{ctx.edition.folder.name}/edition.yml",
                 f"add `{bound.value}: …` under strings: phrases:")
        return "??"
    return str(text)


def substitute_in_math(ctx: RenderContext, tex: str, tok: Token | None) -> str:
    return BOUND_RE.sub(lambda m: bound_text(ctx, m.group(1), m.group(2) or "", tok,
                                             latex=True)[0], tex)


def xref(ctx: RenderContext, ident: str, tok: Token | None) -> tuple[str, str]:
    """(href, text) for a cross-reference, or report an unknown label."""
    label = ctx.labels.get(ident)
    if label is None:
        ctx.fail(tok, f"unknown label `@{ident}`",
                 "check the spelling; IDs are written {#" + ident + "} where they are defined")
        return "#", "@" + ident
    page = "" if label.slug == ctx.chapter.slug else f"{label.slug}.html"
    href = f"{page}#{label.id}" if label.kind != "chapter" else (page or "#" + label.id)
    return href, label_text(label, ctx.edition.strings)


def math_source(ctx: RenderContext, tok: Token, tag: str | None = None) -> str:
    tex = substitute_in_math(ctx, tok.content.strip(), tok)
    if tag:
        tex += f" \\tag{{{tag}}}"
    return tex


def plain_inline(children: list[Token], ctx: RenderContext | None = None) -> str:
    """Plain text of inline tokens as a reader sees it: bound numbers formatted, references as
    their labels (for alt text, search documents and descriptions)."""
    out = []
    for child in children:
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type in ("math_inline", "math_inline_double"):
            # as a reader sees the formula, not its TeX source (search snippets, alt text)
            out.append(tex_to_text(BOUND_RE.sub(lambda m: bound_text(ctx, m.group(1), m.group(2) or "",
                                                                     child)[0], child.content)
                                   if ctx else child.content))
        elif child.type == "bound_value":
            out.append(bound_text(ctx, child.meta["name"], child.meta.get("invalid") or
                                  child.meta["spec"], child)[0] if ctx else child.content)
        elif child.type == "xref":
            label = ctx.labels.get(child.meta["id"]) if ctx else None
            out.append(xref(ctx, child.meta["id"], child)[1] if label else "")
        elif child.type == "image":
            out.append(plain_inline(child.children or [], ctx))
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.children:
            out.append(plain_inline(child.children, ctx))
    return "".join(out).strip()




# The three editions' chapters, their bodies and their search documents share one values
# dict, and its repr (every bound value with its provenance) was most of a `--serve` rebuild's
# bookkeeping: digested once per dict.
_VALUES_DIGESTS: PerObject[str] = PerObject(lambda values: _digest(sorted(values.items())),
                                            limit=None)


def values_digest(values: dict) -> str:
    """The digest of a chapter's cell values, once per values dict."""
    return _VALUES_DIGESTS(values)


def forget_values_digests() -> None:
    """At the start of a build, when many values dicts are remembered: unchanged chapters'
    values are the same objects from build to build (the cache keeps them,
    `Cache.get(keep=True)`), and keep their digest."""
    _VALUES_DIGESTS.forget_if_over(512)


def chapter_context(resolved: ResolvedBook, edition: ResolvedEdition,
                    chapter: ResolvedChapter, math: dict | None = None) -> RenderContext:
    """How a renderer sees one chapter: its edition's strings and labels, its values, figures."""
    return RenderContext(chapter=chapter.source, edition=edition.info, labels=edition.labels,
                         values=chapter.values, math=math, figures=resolved.figures,
                         figure_sizes=resolved.figure_sizes,
                         chapter_files=resolved.chapter_files, whatif=chapter.scenarios,
                         figure_variants={k: v for k, v in resolved.figure_variants.items()
                                          if k[0] in {f[0] for f in chapter.outline.figures}})


def title_text(chapter: ChapterSource, info: EditionInfo, labels: dict, values: dict):
    """Plain titles for numbering (see `bookkit.resolve.book.TitleText`): bound numbers as
    readers see them, so `{{ n }}K 上下文` reads `128K 上下文` in the TOC too."""
    ctx = RenderContext(chapter=chapter, edition=info, labels=labels, values=values, math={},
                        figures={}, figure_sizes={})
    return lambda tok: plain_inline(tok.children or [], ctx)


def _digest(obj) -> str:
    return hashlib.sha256(repr(obj).encode()).hexdigest()
