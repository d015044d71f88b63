"""No two texts of a figure drawn over each other, in any edition: every figure script of the
book drawn as a build draws it (`draw_in_worker`, its layout, the edition's words), its texts'
extents read from the drawing (`bookkit.diagrams.layout_check`). A translation longer than
the original, a legend placed over an axis label or an arrow's label over a box's fail here
with the figure, the edition and the two texts."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from bookkit.diagrams import layout_check
from bookkit.load.config import load_registry
from bookkit.resolve import figures as F

ROOT = Path(__file__).resolve().parents[2]
EDITIONS = {e.id: e for e in load_registry(ROOT)}     # a new edition is checked too
SCRIPTS = sorted(p for p in (ROOT / load_registry(ROOT).original.dir / "figures").glob("*.py")
                 if re.search(r"^def draw\(", p.read_text(encoding="utf-8"), re.M))


def overlapping(script: Path, lang: str, words, fallbacks: tuple[str, ...] = ()
                ) -> list[tuple[str, str]]:
    with layout_check.recording_texts() as drawn:
        result = F.draw_in_worker(str(script), lang, str(ROOT), ("svg",), fallbacks,
                                  words.table if words else None)
    assert result.ok, result.error
    return layout_check.overlaps(drawn)


def overlapping_in_edition(edition_id: str) -> dict[str, list[tuple[str, str]]]:
    """{figure: its first overlapping pairs} for every figure script drawn for the edition,
    with the words a build finds for it (its own, its fallbacks', the original's)."""
    edition = EDITIONS[edition_id]
    folders = F.figure_words_folders(ROOT, load_registry(ROOT), edition)
    memo: dict = {}
    found = {}
    for script in SCRIPTS:
        pairs = overlapping(script, edition.lang, F.figure_words(script.stem, folders, memo),
                            edition.langs[1:])
        if pairs:
            found[script.stem] = pairs[:3]
    return found


@pytest.mark.parametrize("edition_id", list(EDITIONS))
def test_no_figure_draws_a_text_over_another(edition_id, in_fork):
    assert len(SCRIPTS) > 150
    found = in_fork(overlapping_in_edition, edition_id)
    assert not found, "\n".join(f"{stem} [{edition_id}]: " + "; ".join(
        f"{a!r} over {b!r}" for a, b in pairs) for stem, pairs in found.items())


def test_the_check_finds_a_legend_drawn_over_an_axis_label(tmp_path, in_fork):
    """The check itself: a figure legend put where the x label is, as chapter 5's launch
    figure once had it (its own margins, then overridden by the layout)."""
    script = tmp_path / "fig_overlap.py"
    script.write_text(
        "def draw(fig, t):\n"
        "    ax = fig.add_subplot()\n"
        "    ax.plot([0, 1], [0, 1], label='a long legend entry')\n"
        "    ax.set_xlabel('the x axis label')\n"
        "    fig.legend(loc='lower center')\n", encoding="utf-8")
    pairs = in_fork(overlapping, script, "en", None)
    assert ("the x axis label", "a long legend entry") in pairs or \
        ("a long legend entry", "the x axis label") in pairs
    clear = tmp_path / "fig_clear.py"
    clear.write_text(
        "def draw(fig, t):\n"
        "    ax = fig.add_subplot()\n"
        "    ax.plot([0, 1], [0, 1], label='a long legend entry')\n"
        "    ax.set_xlabel('the x axis label')\n"
        "    ax.legend(loc='upper left')\n", encoding="utf-8")
    assert in_fork(overlapping, clear, "en", None) == []
