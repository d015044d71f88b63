"""Executable figures: localised text per edition, no tofu, deterministic bytes."""
import importlib.util
from pathlib import Path

import pytest

from bookkit.resolve.figures import LANGS, draw_figure
from bookkit.workers import run_jobs

ROOT = Path(__file__).resolve().parents[2]
FIGURES = sorted((ROOT / "manuscripts" / "figures").glob("*.py"))


def draw(script, lang):
    """Draw in a forked job, as the build does (the job changes directory and modules)."""
    return run_jobs([("f", draw_figure, (str(script), lang, str(ROOT)))])["f"]


def strings_of(script: Path) -> dict:
    spec = importlib.util.spec_from_file_location("fig", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.STRINGS


@pytest.mark.parametrize("lang", LANGS)
def test_figure_text_is_localised(lang):
    script = ROOT / "manuscripts" / "figures" / "roofline.py"
    result = draw(script, lang)
    assert result.ok, result.error
    table = strings_of(script)[lang]
    drawn = " ".join(result.value["texts"])
    for key in ("x", "y", "title"):
        assert table[key] in drawn
    svg = result.value["svg"].decode()
    # Text is drawn as paths (readers need no CJK font); matplotlib keeps it as a comment.
    assert f"<!-- {table['title']} -->" in svg
    others = [strings_of(script)[o]["title"] for o in LANGS if o != lang]
    assert not any(o in drawn for o in others)


def test_svg_and_pdf_are_deterministic():
    script = str(ROOT / "manuscripts" / "figures" / "roofline.py")
    first = draw(script, "zh-Hant").value
    second = draw(script, "zh-Hant").value
    assert first["svg"] == second["svg"] and first["pdf"] == second["pdf"]


@pytest.mark.parametrize("script", FIGURES, ids=lambda p: p.stem)
def test_every_book_figure_has_three_matching_string_tables(script):
    tables = strings_of(script)
    assert set(tables) == set(LANGS)
    keys = {lang: set(t) for lang, t in tables.items()}
    assert keys["zh-Hans"] == keys["en"] == keys["zh-Hant"]


def test_missing_glyph_fails_instead_of_tofu(tmp_path):
    script = tmp_path / "tofu.py"
    script.write_text('STRINGS = {l: {"t": "𓀀 hieroglyph"} for l in ("zh-Hans", "en", "zh-Hant")}\n'
                      "def draw(fig, t):\n    fig.add_subplot().set_title(t['t'])\n")
    result = draw(script, "en")
    assert not result.ok
    assert "missing glyph" in result.error and "tofu.py" in result.error


def test_string_tables_must_agree(tmp_path):
    script = tmp_path / "keys.py"
    script.write_text('STRINGS = {"zh-Hans": {"a": "甲"}, "en": {"a": "A"}, "zh-Hant": {"b": "乙"}}\n'
                      "def draw(fig, t):\n    pass\n")
    result = draw(script, "en")
    assert not result.ok and "different keys" in result.error
