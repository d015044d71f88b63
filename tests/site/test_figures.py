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


def test_site_build_draws_svg_only_and_the_pdf_build_adds_the_pdf(tmp_path):
    """Each format is cached on its own: a site build never pays for the PDF, and the PDF
    build afterwards draws only the PDF."""
    from bookkit.cache import Cache
    from bookkit.resolve.figures import FigureTask, resolve_figures

    root = tmp_path / "book"
    (root / "manuscripts" / "figures").mkdir(parents=True)
    script = root / "manuscripts" / "figures" / "bars.py"
    script.write_text('STRINGS = {l: {"t": {"zh-Hans": "带宽", "en": "Bandwidth", "zh-Hant": "頻寬"}[l]}'
                      ' for l in ("zh-Hans", "en", "zh-Hant")}\n'
                      "def draw(fig, t):\n    fig.add_subplot().bar([0, 1], [1, 2]); fig.suptitle(t['t'])\n")
    tasks = [FigureTask("fig-bars", script, "zh-Hans", "manuscripts/01.md", 3)]
    cache, out = Cache(tmp_path / "cache", base=root), root / "build" / "figures"

    def resolve(formats):
        drawn: list = []
        images = resolve_figures(tasks, root, cache, out, workers=1, drawn=drawn, formats=formats)
        return drawn, images[("fig-bars", "zh-Hans")]

    drawn, image = resolve(("svg",))
    assert drawn == ["fig-bars|zh-Hans"] and image.pdf is None and image.svg.is_file()
    assert not list(out.glob("*.pdf"))
    assert resolve(("svg",))[0] == []
    drawn, image = resolve(("svg", "pdf"))
    assert drawn == ["fig-bars|zh-Hans"] and image.pdf.read_bytes().startswith(b"%PDF")
    assert resolve(("svg", "pdf"))[0] == [] and resolve(("svg",))[0] == []
    assert "带宽" in image.texts
