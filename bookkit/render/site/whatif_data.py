"""The per-chapter what-if data file (`<slug>.whatif.js`), per edition: every bound number and
formula of each region, formatted and typeset at build time for each combination whose values
differ from the book's. The page loads it when the reader first uses the control (a script, not
`fetch`: it works from `file://`).

The variants' values come from the resolve stage (`bookkit.resolve.scenarios`, in
`Scenario.variants`); this module only formats them, as `html.py` formats the book's.
"""
from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import replace

from bookkit.source.markdown import BOUND_RE, region_tokens
from bookkit.model import BuildError, Scenario
from bookkit.locale.text import bound_text, math_source
from bookkit.render.whatif_region import DATA_VERSION_SLOT, Slot

BUDGET_GZ = 30 * 1024      # a chapter's what-if data, gzipped, per edition


def variant_values(values: dict, scenario: Scenario, combo: tuple) -> dict:
    merged = dict(values)
    merged.update(scenario.variants.get(combo, {}))
    return merged


def chapter_data(ctx, math: dict) -> tuple[bytes | None, int]:
    """The chapter's what-if data file for this edition (None without scenarios) and its
    gzipped size. Each variant lists only the slots whose text differs from the book's."""
    scenarios = ctx.whatif or {}
    if not ctx.whatif_slots:
        return None, 0
    strings: list[str] = []
    index: dict[str, int] = {}

    def sid(text: str) -> int:
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return index[text]

    out = {}
    for name, slots in sorted(ctx.whatif_slots.items()):
        sc = scenarios.get(name)
        if sc is None:
            continue
        variants = {}
        book = [_book_slot(ctx, slot) for slot in slots]   # the page's own text, once
        formatted: dict = {}
        for combo in sc.combinations():
            if combo == sc.book:
                continue
            changed = sc.variants.get(combo, {})
            vctx = replace(ctx, values=variant_values(ctx.values, sc, combo), errors=[])
            nums, maths = [], []
            for i, slot in enumerate(slots):
                if not changed.keys() & book[i][0]:
                    continue
                if slot.kind == "num":
                    bound = vctx.values.get(slot.name)
                    if bound is None:
                        continue
                    # Formatting is most of the cost, and many variants share a value.
                    memo_key = (i, type(bound.value), bound.value)
                    text = formatted.get(memo_key)
                    if text is None:
                        text = formatted[memo_key] = bound_text(vctx, slot.name, slot.spec,
                                                                slot.tok)[0]
                    if (text, bound.provenance()) == book[i][1]:
                        continue
                    prov = f"{ctx.edition.strings['computed_as']} {bound.provenance()}"
                    nums.append([i, sid(text), sid(prov)])
                else:
                    tex = math_source(vctx, slot.tok, slot.tag)
                    if tex == book[i][1]:
                        continue
                    rendered = math.get((tex, slot.display))
                    if rendered is None or isinstance(rendered, Exception):
                        ctx.fail(slot.tok, f"what-if `{name}`, variant {sc.describe(combo)}: "
                                           f"math does not render: {rendered}")
                        continue
                    maths.append([i, sid(rendered)])
            for err in vctx.errors:
                ctx.errors.append(BuildError(err.path, err.line, f"what-if `{name}`, variant "
                                             f"{sc.describe(combo)}: {err.message}", err.hint))
            entry = {}
            figs = _figure_variants(ctx, name, combo, sid)
            if figs:
                entry["f"] = figs
            if nums:
                entry["n"] = nums
            if maths:
                entry["m"] = maths
            variants[",".join(str(v) for v in combo)] = entry
        out[name] = {"keys": list(sc.keys), "variants": variants}
    payload = json.dumps({"strings": strings, "scenarios": out}, ensure_ascii=False,
                         separators=(",", ":"), sort_keys=True)
    data = (f"(window.BOOK_WHATIF=window.BOOK_WHATIF||{{}})[{json.dumps(ctx.chapter.slug)}]="
            f"{payload};\n").encode()
    size = len(gzip.compress(data, mtime=0))
    if size > BUDGET_GZ:
        ctx.fail(None, f"what-if data of this chapter is {size / 1024:.1f} KB gzipped "
                       f"(budget {BUDGET_GZ // 1024} KB)",
                 "offer fewer options, exclude combinations or keep formulas out of the region")
    return data, size


def _figure_variants(ctx, scenario: str, combo: tuple, sid) -> list:
    """[figure id, src, description] of each of the chapter's diagrams drawn for this
    combination: only the file's name travels in the data; the SVG is fetched when the reader
    picks the combination (so the variants cost the data file a few bytes each)."""
    out = []
    lang = ctx.edition.lang
    for (fid, flang), variants in sorted(ctx.figure_variants.items()):
        if flang != lang:
            continue
        for name, vcombo, vid in variants:
            image = ctx.figures.get((vid, lang))
            if name == scenario and vcombo == combo and image is not None:
                out.append([fid, sid(f"figures/{vid}.{lang}.svg"), sid(image.description)])
    return out


def _book_slot(ctx, slot: Slot) -> tuple[set, object]:
    """(names the slot shows, its book text: (text, provenance) or the formula's TeX)."""
    if slot.kind == "num":
        text, bound = bound_text(ctx, slot.name, slot.spec, slot.tok)
        return {slot.name}, (text, bound.provenance() if bound is not None else None)
    names = {m.group(1) for m in BOUND_RE.finditer(slot.tok.content)}
    return names, math_source(ctx, slot.tok, slot.tag)


def digest(scenarios: dict | None) -> str:
    """What a chapter's rendering takes from its scenarios (for the in-memory render memo)."""
    return hashlib.sha256(repr(sorted((n, s.digest) for n, s in (scenarios or {}).items()))
                          .encode()).hexdigest()


def fill_version(body: str, data: bytes | None) -> str:
    if DATA_VERSION_SLOT not in body:
        return body
    return body.replace(DATA_VERSION_SLOT, hashlib.sha256(data or b"").hexdigest()[:8])


def variant_math(tokens, ctx) -> set:
    """The formulas of every variant (submitted to KaTeX with the book's)."""
    scenarios = ctx.whatif or {}
    out: set = set()
    if not scenarios:
        return out
    for name, tok in region_tokens(tokens):
        sc = scenarios.get(name)
        if sc is None or not tok.type.startswith("math_") or "{{" not in tok.content:
            continue
        display = tok.type != "math_inline"
        tag = tok.meta.get("number") if tok.type == "math_block_label" else None
        names = {m.group(1) for m in BOUND_RE.finditer(tok.content)}
        for combo in sc.combinations():
            if combo != sc.book and sc.variants.get(combo, {}).keys() & names:
                vctx = replace(ctx, values=variant_values(ctx.values, sc, combo), errors=[])
                out.add((math_source(vctx, tok, tag), display))
    return out
