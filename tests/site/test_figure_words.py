"""Figure words live in each edition's figures.yml: a translation's table, its fallback's or the
original's; a fourth edition adds its words there without touching a script."""
from __future__ import annotations

from pathlib import Path

import pytest

from bookkit.util.cache import Cache
from bookkit.model import BuildError
from bookkit.resolve.figures import FigureTask, figure_words, resolve_figures

SCRIPT = ("def draw(fig, t):\n"
          "    ax = fig.add_subplot(); ax.bar([0, 1], [1, 2]); ax.set_title(t['title'])\n"
          "    ax.set_xlabel(t.num(1234567, 'int'))\n")


def _book(tmp_path: Path) -> Path:
    root = tmp_path / "book"
    (root / "manuscripts" / "figures").mkdir(parents=True)
    (root / "manuscripts" / "figures" / "bars.py").write_text(SCRIPT)
    (root / "manuscripts" / "figures.yml").write_text("bars:\n  title: 带宽\n")
    (root / "book-en").mkdir()
    (root / "book-en" / "figures.yml").write_text("bars:\n  title: Bandwidth\n")
    (root / "book-en-gb").mkdir()
    return root


def _draw(root: Path, tasks: list[FigureTask]) -> dict:
    cache = Cache(root.parent / "cache", base=root)
    return resolve_figures(tasks, root, cache, root / "build" / "figures", workers=1,
                           formats=("svg",))


def test_edition_words_then_fallback_then_original(tmp_path):
    root = _book(tmp_path)
    memo: dict = {}
    orig, en, gb = root / "manuscripts", root / "book-en", root / "book-en-gb"
    assert figure_words("bars", [en, orig], memo).table == {"title": "Bandwidth"}
    assert figure_words("bars", [gb, en, orig], memo).table == {"title": "Bandwidth"}
    assert figure_words("bars", [orig], memo).table == {"title": "带宽"}
    assert figure_words("other", [en, orig], memo) is None


def test_a_fourth_edition_adds_its_words_without_touching_the_script(tmp_path):
    root = _book(tmp_path)
    script = root / "manuscripts" / "figures" / "bars.py"
    before = script.read_bytes()
    (root / "book-en-gb" / "figures.yml").write_text("bars:\n  title: Bandwidth (en-GB)\n")
    folders = [root / "book-en-gb", root / "book-en", root / "manuscripts"]
    words = figure_words("bars", folders, {})
    task = FigureTask("fig-bars", script, "en-GB", "book-en-gb/01.md", 3, ("en-GB", "en"),
                      words, "en")
    image = _draw(root, [task])[("fig-bars", "en-GB")]
    assert "Bandwidth (en-GB)" in image.texts
    assert "1,234,567" in image.texts                      # the edition's number conventions
    assert image.bound[0]["text"] == "1,234,567"
    assert script.read_bytes() == before
    # its words changed: the figure is drawn again with them (the words key the cache)
    (root / "book-en-gb" / "figures.yml").write_text("bars:\n  title: Throughput\n")
    task2 = FigureTask("fig-bars", script, "en-GB", "book-en-gb/01.md", 3, ("en-GB", "en"),
                       figure_words("bars", folders, {}), "en")
    assert "Throughput" in _draw(root, [task2])[("fig-bars", "en-GB")].texts


def test_a_translation_with_other_keys_names_its_file_and_line(tmp_path):
    root = _book(tmp_path)
    (root / "book-en" / "figures.yml").write_text("# words\nbars:\n  titel: Bandwidth\n")
    with pytest.raises(BuildError) as err:
        figure_words("bars", [root / "book-en", root / "manuscripts"], {})
    text = str(err.value)
    assert "book-en/figures.yml:2" in text and "missing title" in text and "titel" in text


def test_bad_yaml_names_its_file_and_line(tmp_path):
    root = _book(tmp_path)
    (root / "book-en" / "figures.yml").write_text("bars:\n  title: [unclosed\n")
    with pytest.raises(BuildError) as err:
        figure_words("bars", [root / "book-en", root / "manuscripts"], {})
    assert "book-en/figures.yml:" in str(err.value)


@pytest.mark.parametrize("text, line, says", [
    ("bars:\n  title: A\nother:\n  x: B\nbars:\n  title: C\n", 5, "`bars` appears twice (first at line 1)"),
    ("bars:\n  title: A\n  x: B\n  title: C\n", 4, "`bars` has the key `title` twice (first at line 2)"),
    # YAML 1.1 reads `off` as false: the key would be missing, reported far from its cause
    ("bars:\n  title: A\n  off: B\n", 3, "YAML reads the key `off` as a bool"),
])
def test_a_duplicated_table_or_key_is_an_error_not_a_silent_overwrite(tmp_path, text, line, says):
    root = _book(tmp_path)
    (root / "book-en" / "figures.yml").write_text(text)
    with pytest.raises(BuildError) as err:
        figure_words("bars", [root / "book-en", root / "manuscripts"], {})
    assert f"book-en/figures.yml:{line}" in str(err.value) and says in str(err.value)


def test_the_books_figure_words_are_ordered_by_script(tmp_path):
    """Kept in script order so that two changes to different chapters touch different lines."""
    import re
    for edition in ("manuscripts", "book-en", "book-zh-tw"):
        text = (Path(__file__).resolve().parents[2] / edition / "figures.yml").read_text("utf-8")
        stems = re.findall(r"^([A-Za-z0-9_]+):", text, re.M)
        assert stems == sorted(stems), edition


def test_an_error_in_a_script_names_the_scripts_file_and_line(tmp_path):
    root = _book(tmp_path)
    script = root / "manuscripts" / "figures" / "bars.py"
    script.write_text("def draw(fig, t):\n    ax = fig.add_subplot()\n"
                      "    ax.plot(undefined_name)\n")
    task = FigureTask("fig-bars", script, "en", "book-en/01.md", 3, ("en",),
                      figure_words("bars", [root / "book-en", root / "manuscripts"], {}), "en")
    with pytest.raises(BuildError) as err:
        _draw(root, [task])
    text = str(err.value)
    assert "manuscripts/figures/bars.py:3: book-en/01.md:3: figure fig-bars [en]" in text
    assert "undefined_name" in text
