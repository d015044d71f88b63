"""The Pandoc sources written from the resolved tokens, read back by the real Pandoc."""
from __future__ import annotations

import json
import subprocess

import pytest

from bookkit.pipeline.build import BuildOptions, Builder
from bookkit.load.config import load_book
from bookkit.render.pandoc.convert import pandoc_exe
from bookkit.render.pandoc.sources import PandocWriter, export_chapter
from bookkit.render.site.renderer import chapter_context

from conftest import ROOT


@pytest.fixture(scope="module")
def resolved(tmp_path_factory):
    builder = Builder(BuildOptions(root=ROOT, out=tmp_path_factory.mktemp("site"), quiet=True))
    return builder.resolve(load_book(ROOT), figures=())


def chapter_ast(resolved, edition: str, number: int) -> tuple[dict, object]:
    ed = resolved.editions[edition]
    ch = ed.chapter(number)
    ctx = chapter_context(resolved, ed, ch, {})
    text = export_chapter(ch.tokens, ctx, ch.source.slug)
    assert ctx.errors == []
    res = subprocess.run([pandoc_exe(), "-f", "markdown", "-t", "json"], input=text,
                         capture_output=True, text=True, check=True)
    return json.loads(res.stdout), ch


def walk(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def inline_tokens(tokens):
    for tok in tokens:
        yield tok
        yield from inline_tokens(tok.children or [])


@pytest.mark.parametrize("edition", ["zh", "en", "zh-tw"])
def test_every_formula_of_the_chapter_is_math_to_pandoc(resolved, edition):
    # `$ 8×10⁹ $` (a space inside the dollars) is math on the site; the line-by-line exporter
    # left it as text, so the PDF printed the dollar signs.
    ast, ch = chapter_ast(resolved, edition, 2)
    inline_math = {n["c"][1] for n in walk(ast) if n.get("t") == "Math"
                   and n["c"][0]["t"] == "InlineMath"}
    tokens = [t for t in inline_tokens(ch.tokens) if t.type == "math_inline"]
    spaced = [t for t in tokens if t.content != t.content.strip()]
    ed = resolved.editions[edition]
    writer = PandocWriter(chapter_context(resolved, ed, ch, {}), ch.source.slug)
    assert spaced and inline_math == {writer.math(t.content, t).strip() for t in tokens}
    assert not [n for n in walk(ast) if n.get("t") == "Str" and "$" in n["c"]]
    # Bound numbers inside formulas take their LaTeX form (a thousands comma in braces).
    assert any("{,}" in n["c"][1] for n in walk(ast) if n.get("t") == "Math")


def test_numbers_ids_links_and_notes(resolved):
    ast, ch = chapter_ast(resolved, "en", 3)
    labels = resolved.editions["en"].labels
    headers = [n["c"] for n in walk(ast) if n.get("t") == "Header"]
    assert headers[0][1][0] == "sec-workloads" and "unnumbered" in headers[0][1][1]
    texts = [" ".join(x["c"] for x in h[2] if x.get("t") == "Str") for h in headers]
    assert texts[0].startswith("Chapter 3") and texts[1].startswith("3.1 ")
    targets = [n["c"][2][0] for n in walk(ast) if n.get("t") == "Link"
               and n["c"][2][0].startswith("#")]
    assert targets and all(t[1:] in labels for t in targets)
    notes = [n for n in walk(ast) if n.get("t") == "Note"]
    sources = ch.source.text.count("[^") - ch.source.text.count("\n[^")
    assert len(notes) == sources
    # The table whose `: caption` line follows it without a blank line keeps its caption and id.
    tables = {n["c"][0][0]: n["c"][1] for n in walk(ast) if n.get("t") == "Table"}
    assert "tbl-workloads-glance" in tables
    equations = [n["c"][1] for n in walk(ast) if n.get("t") == "Math"
                 and n["c"][0]["t"] == "DisplayMath" and "\\tag{3." in n["c"][1]]
    assert len(equations) == sum(1 for t in ch.tokens if t.type == "math_block_label")


def _ast_text(ast) -> str:
    out = []
    for n in walk(ast):
        if n.get("t") == "Str":
            out.append(n["c"])
        elif n.get("t") in ("Space", "SoftBreak", "LineBreak"):
            out.append(" ")
    return "".join(out)


def test_a_short_bound_value_never_breaks_between_its_number_and_unit(resolved):
    # CI once failed on "NVIDIA RTX 4090" (ch9): TeX broke the value at the foot of a page, so
    # the PDF read "NVIDIA RTX", the page's footnotes, then "4090". Short values are one unit.
    ast, ch = chapter_ast(resolved, "en", 9)
    text = _ast_text(ast)
    ctx = chapter_context(resolved, resolved.editions["en"], ch, {})
    from bookkit.locale.text import bound_text
    spaced = {bound_text(ctx, t.meta["name"], t.meta.get("invalid") or t.meta["spec"], t)[0]
              for t in inline_tokens(ch.tokens) if t.type == "bound_value"}
    short = {v for v in spaced if " " in v and len(v) <= 20}
    long = {v for v in spaced if " " in v and len(v) > 20}
    assert "NVIDIA RTX 4090" in short and len(short) > 20
    missing = [v for v in short if v.replace(" ", "\u00a0") not in text]
    assert not missing, missing
    # a long one keeps its breakpoints, or a line holding it could not be justified
    assert all(v in text for v in long)
