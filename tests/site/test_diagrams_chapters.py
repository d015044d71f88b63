"""Every diagram that declares `CELLS` (the chapter cells it draws), drawn as the build draws them, in
every edition: each number drawn is the chapter's own cell, formatted like the prose; the words
are the edition's; the text alternative is filled from the data; text contrast >= 4.5:1 in
both site themes; every filled kind is named, not only coloured."""
from __future__ import annotations

import ast
import re

import pytest

from bookkit.locale.numbers import format_value, parse_spec
from bookkit.resolve.figures import draw_figure
from bookkit.resolve.workers import run_jobs

from bookkit.resolve.choices import Declarations
from test_diagram_figures import LANGS, ROOT, text_contrasts, words


def chapter_values(chapter: str) -> dict:
    """The original chapter's calculation cells, run in order with each what-if choice at its
    default (what the prose binds)."""
    text = (ROOT / "manuscripts" / chapter).read_text(encoding="utf-8")
    ns: dict = {}
    Declarations(chapter).install(ns)
    for block in re.findall(r"^```calc[^\n]*\n(.*?)^```", text, re.M | re.S):
        exec(compile(block, chapter, "exec"), ns)   # noqa: S102 - the book's own cells
    return ns

def declared_cells() -> dict:
    """diagram -> (chapter, the chapter's cells it must draw), read from each figure script's
    `CELLS = (...)` (a literal, read without running the script): adding a diagram to a chapter
    is one script, not an edit here."""
    chapters = {p.name[:2]: p.name for p in (ROOT / "manuscripts").glob("[0-9][0-9]-*.md")}
    found = {}
    for script in sorted((ROOT / "manuscripts" / "figures").glob("ch[0-9][0-9]_*.py")):
        tree = ast.parse(script.read_text(encoding="utf-8"))
        for node in tree.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and getattr(node.targets[0], "id", None) == "CELLS"):
                found[script.stem] = (chapters[script.stem[2:4]], ast.literal_eval(node.value))
    return found


DIAGRAMS = declared_cells()


def test_every_chapter_has_diagrams_checked_against_its_cells():
    by_chapter = {chapter for chapter, _ in DIAGRAMS.values()}
    assert len(by_chapter) >= 10, sorted(by_chapter)   # discovery works (chapters 7 and 8: test_diagram_figures)


@pytest.fixture(scope="module")
def drawn() -> dict:
    jobs = [(f"{stem}|{lang}", draw_figure,
             (str(ROOT / "manuscripts" / "figures" / f"{stem}.py"), lang, str(ROOT), ("svg",),
              (), words(stem, lang)))
            for stem in DIAGRAMS for lang in LANGS]
    results = run_jobs(jobs)
    for name, result in results.items():
        assert result.ok, (name, result.error)
    return {name: r.value for name, r in results.items()}


@pytest.fixture(scope="module")
def cells() -> dict:
    return {chapter: chapter_values(chapter) for chapter, _ in DIAGRAMS.values()}


@pytest.mark.parametrize("stem", DIAGRAMS)
@pytest.mark.parametrize("lang", LANGS)
def test_drawn_numbers_are_the_chapters_cells(drawn, cells, stem, lang):
    chapter, names = DIAGRAMS[stem]
    value = drawn[f"{stem}|{lang}"]
    by_name = {b["name"]: b for b in value["bound"]}
    for name in names:
        assert name in by_name, f"{stem} does not draw {name}"
        b = by_name[name]
        expected = format_value(cells[chapter][name], parse_spec(b["spec"]), lang)
        assert b["text"] == expected, (stem, name, b["text"], expected)
        shown = " ".join(value["texts"]) + " " + value["description"]
        assert b["text"] in shown, (stem, name, "bound but neither drawn nor described")


def fragments(table: dict) -> list[str]:
    """The fixed words of a figure's table (placeholders cut out), the alt text aside."""
    return [f.strip() for k, w in table.items() if k != "alt"
            for f in re.split(r"\{[^}]*\}", w) if len(f.strip()) >= 2]


@pytest.mark.parametrize("stem", DIAGRAMS)
@pytest.mark.parametrize("lang", LANGS)
def test_words_are_the_editions_and_the_description_is_filled(drawn, stem, lang):
    value = drawn[f"{stem}|{lang}"]
    mine = words(stem, lang)
    drawn_text = " ".join(value["texts"])
    missing = [f for f in fragments(mine) if f not in drawn_text]
    assert not missing, (stem, lang, missing)
    for other in LANGS:
        longest = max(fragments(words(stem, other)), key=len)
        if longest not in " ".join(fragments(mine)):
            assert longest not in drawn_text, (stem, lang, "draws", other, longest)
    desc = value["description"]
    assert desc and "{" not in desc and desc.startswith(mine["alt"].split("{")[0])


@pytest.mark.parametrize("stem", DIAGRAMS)
def test_text_contrast_at_least_4_5_in_both_themes(drawn, stem):
    for lang in LANGS:
        found = text_contrasts(drawn[f"{stem}|{lang}"]["site"].decode())
        assert len(found) >= 3, (stem, "the diagram's texts were not found in the SVG")
        low = [f for f in found if f[2] < 4.5]
        assert not low, (stem, lang, low)
