"""Executable figures: localised text per edition, no tofu, deterministic bytes."""
import re
from pathlib import Path

import pytest

from bookkit.resolve.figures import draw_figure, load_figure_words
from bookkit.resolve.workers import run_jobs

ROOT = Path(__file__).resolve().parents[2]
FIGURES = sorted((ROOT / "manuscripts" / "figures").glob("*.py"))


EDITION_DIRS = {"zh-Hans": "manuscripts", "en": "book-en", "zh-Hant": "book-zh-tw"}
LANGS = tuple(EDITION_DIRS)   # the book's editions' languages


def words_of(script: Path, lang: str) -> dict:
    """The script's table in the edition's figures.yml (the book's figure words)."""
    return load_figure_words(ROOT / EDITION_DIRS[lang])[Path(script).stem].table


def draw(script, lang):
    """Draw in a forked job, as the build does (the job changes directory and modules)."""
    words = words_of(script, lang) if Path(script).parent == ROOT / "manuscripts" / "figures" \
        else None
    return run_jobs([("f", draw_figure, (str(script), lang, str(ROOT), ("svg", "pdf"), (),
                                         words))])["f"]


@pytest.mark.parametrize("lang", LANGS)
def test_figure_text_is_localised(lang):
    script = ROOT / "manuscripts" / "figures" / "roofline.py"
    result = draw(script, lang)
    assert result.ok, result.error
    table = words_of(script, lang)
    drawn = " ".join(result.value["texts"])
    for key in ("x", "y", "title"):
        assert table[key] in drawn
    svg = result.value["svg"].decode()
    # Text is drawn as paths (readers need no CJK font); matplotlib keeps it as a comment.
    assert f"<!-- {table['title']} -->" in svg
    others = [words_of(script, o)["title"] for o in LANGS if o != lang]
    assert not any(o in drawn for o in others)


def test_svg_and_pdf_are_deterministic():
    script = str(ROOT / "manuscripts" / "figures" / "roofline.py")
    first = draw(script, "zh-Hant").value
    second = draw(script, "zh-Hant").value
    assert first["svg"] == second["svg"] and first["pdf"] == second["pdf"]


@pytest.mark.parametrize("script", FIGURES, ids=lambda p: p.stem)
def test_every_book_figure_has_its_words_in_each_edition_and_none_in_python(script):
    """Translators never edit Python: a script's words are in each edition's figures.yml,
    with the original's keys, and the script holds no language's words."""
    keys = {lang: set(words_of(script, lang)) for lang in LANGS}
    assert keys["zh-Hans"] == keys["en"] == keys["zh-Hant"]
    source = script.read_text(encoding="utf-8")
    assert "STRINGS" not in source
    assert not re.search(r"[\u3400-\u9fff]", source), "Chinese text in a figure script"


def test_every_figures_yml_table_names_a_script():
    stems = {p.stem for p in FIGURES}
    for lang, folder in EDITION_DIRS.items():
        assert set(load_figure_words(ROOT / folder)) <= stems, folder


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
    from bookkit.util.cache import Cache
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


def _bars(root, name, body="fig.add_subplot().bar([0, 1], [1, 2]); fig.suptitle(t['t'])"):
    script = root / "manuscripts" / "figures" / f"{name}.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text('STRINGS = {l: {"t": {"zh-Hans": "带宽", "en": "Bandwidth", "zh-Hant": "頻寬"}[l]}'
                      ' for l in ("zh-Hans", "en", "zh-Hant")}\n'
                      f"def draw(fig, t):\n    {body}\n")
    return script


def test_figures_drawn_in_one_worker_match_figures_drawn_alone(tmp_path):
    """Figures share a worker process (fonts, math layouts); each one's bytes and recorded
    dependencies must be what drawing it alone gives, and a failing figure names itself."""
    from bookkit.util.cache import Cache
    from bookkit.resolve.figures import FigureTask, resolve_figures

    root = tmp_path / "book"
    scripts = {
        "log": _bars(root, "log", "ax = fig.add_subplot(); ax.set_yscale('log'); "
                     "ax.plot([1, 2, 3], [10, 1e3, 1e5]); ax.set_title(t['t'])"),
        "data": _bars(root, "data", "ax = fig.add_subplot(); "
                      "ax.plot(*zip(*[map(float, l.split()) for l in open('manuscripts/figures/"
                      "points.txt')])); ax.set_xlabel(t['t'])"),
        "broken": _bars(root, "broken", "raise ValueError('no data for this figure')"),
    }
    (root / "manuscripts" / "figures" / "points.txt").write_text("0 1\n1 3\n2 2\n")
    tasks = [FigureTask(f"fig-{name}", script, lang, "manuscripts/01.md", n + 1)
             for n, (name, script) in enumerate(scripts.items()) for lang in ("en", "zh-Hans")]
    cache = Cache(tmp_path / "cache", enabled=False, base=root)
    with pytest.raises(Exception) as failed:
        resolve_figures(tasks, root, cache, root / "build" / "figures", workers=1,
                        formats=("svg",))
    assert "fig-broken" in str(failed.value) and "no data for this figure" in str(failed.value)
    assert "fig-log" not in str(failed.value) and "fig-data" not in str(failed.value)
    deps: dict = {}
    together = resolve_figures([t for t in tasks if t.figure_id != "fig-broken"], root, cache,
                               root / "build" / "together", workers=1, formats=("svg",),
                               deps_out=deps)
    assert len(together) == 4
    for (fid, lang), image in together.items():
        name = fid.removeprefix("fig-")
        alone = run_jobs([("f", draw_figure, (str(scripts[name]), lang, str(root), ("svg",)))])
        assert alone["f"].ok, alone["f"].error
        assert image.svg.read_bytes() == alone["f"].value["svg"], (fid, lang)
        assert image.site_svg.read_bytes() == alone["f"].value["site"], (fid, lang)
        assert sorted(deps[f"{fid}|{lang}"]) == sorted(alone["f"].deps), (fid, lang)
    assert "manuscripts/figures/points.txt" in deps["fig-data|en"]
    assert "manuscripts/figures/points.txt" not in deps["fig-log|en"]


def test_site_svg_greys_follow_the_page_and_fall_back_to_the_drawn_colours():
    """The site's copy maps greys to theme variables (with the drawn colour as fallback),
    keeps data colours, and prefixes ids so that several inline figures never share one."""
    import re

    from bookkit.resolve.figures import themed_svg
    script = ROOT / "manuscripts" / "figures" / "ch04_generations.py"
    result = draw(script, "en")
    drawn, site = result.value["svg"].decode(), result.value["site"].decode()
    assert site == themed_svg(result.value["svg"], site.split('id="')[1].split("-")[0]).decode()
    assert re.search(r"(fill|stroke): #([0-9a-f]{2})\2\2\b", drawn)
    assert not re.search(r"(fill|stroke): #([0-9a-f]{2})\2\2\b", site)   # every grey themed
    assert "fill: var(--fig-kff, #ffffff)" in site                  # the background
    assert "stroke: var(--fig-k00, #000000)" in site                # axes
    for colour in ("#4c72b0", "#dd8452"):                           # data colours stay
        assert drawn.count(colour) == site.count(colour) > 0
    ids = re.findall(r'\bid="([^"]+)"', site)
    assert len(ids) == len(set(ids)) and len({i.split("-")[0] for i in ids}) == 1
    refs = set(re.findall(r'(?:href="#|url\(#)([^")]+)', site))
    assert refs and refs <= set(ids)
    other = draw(ROOT / "manuscripts" / "figures" / "roofline.py", "en").value["site"].decode()
    assert not set(re.findall(r'\bid="([^"]+)"', other)) & set(ids)


def _figure_colours(page, figure="figure"):
    return page.evaluate("""sel => {
        const svg = document.querySelector(sel + ' svg.bk-fig');
        const style = el => getComputedStyle(el);
        const axis = [...svg.querySelectorAll('path')].find(
            p => (p.getAttribute('style') || '').includes('stroke: var(--fig-k00'));
        const glyph = svg.querySelector('g[id$="text_1"] use');
        const paper = svg.querySelector('path');
        return {text: style(glyph).fill, axis: style(axis).stroke, paper: style(paper).fill,
                data: [...svg.querySelectorAll('path')].map(p => style(p).fill)
                      .filter(c => c === 'rgb(76, 114, 176)').length};
    }""", figure)


def _luminance(colour: str) -> float:
    """`rgb(r, g, b)`, or `color(srgb r g b)` (how Chromium gives a computed color-mix)."""
    inner = colour[colour.index("(") + 1:colour.rindex(")")]
    if colour.startswith("color("):
        r, g, b = (float(x) for x in inner.split()[1:4])
    else:
        r, g, b = (int(x) / 255 for x in inner.split(",")[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@pytest.mark.parametrize("width", [1280, 360])
def test_figures_follow_the_theme_and_the_toggle(browser, site_url, width):
    ctx = browser.new_context(color_scheme="light", viewport={"width": width, "height": 800})
    try:
        page = ctx.new_page()
        page.goto(site_url + "en/accelerators.html")
        # a scripted scroll past blocks not yet laid out (content-visibility) lands short:
        # lay the page out first, as the site does before an in-page jump
        page.evaluate("document.documentElement.classList.add('full-layout')")
        plot = "#fig-accelerators-ridge"    # a plot: the chapter opens with diagrams (no axes)
        page.locator(plot).scroll_into_view_if_needed()
        page.wait_for_selector(plot + " svg.bk-fig")
        svg = page.locator(plot + " svg.bk-fig")
        assert svg.get_attribute("role") == "img" and svg.get_attribute("aria-label")
        assert svg.bounding_box()["width"] <= width
        light = _figure_colours(page, plot)
        assert _luminance(light["paper"]) > 0.9 and _luminance(light["text"]) < 0.1
        page.click(".theme-toggle")
        dark = _figure_colours(page, plot)
        assert _luminance(dark["paper"]) < 0.2            # no light card on a dark page
        assert _luminance(dark["text"]) > 0.7 and _luminance(dark["axis"]) > 0.7
        assert dark["text"] != light["text"] and dark["axis"] != light["axis"]
        assert dark["data"] == light["data"] > 0          # data colours keep their meaning
        page.click(".theme-toggle")
        assert _figure_colours(page, plot) == light
    finally:
        ctx.close()


def test_figures_start_dark_on_a_dark_page_and_stand_alone_as_drawn(browser, site_url,
                                                                    built_site):
    ctx = browser.new_context(color_scheme="dark")
    try:
        page = ctx.new_page()
        page.goto(site_url + "getting-started.html")
        # a scripted scroll past blocks not yet laid out (content-visibility) lands short:
        # lay the page out first, as the site does before an in-page jump
        page.evaluate("document.documentElement.classList.add('full-layout')")
        plot = "#fig-getting-started-memory"
        page.locator(plot).scroll_into_view_if_needed()
        page.wait_for_selector(plot + " svg.bk-fig")
        assert _luminance(_figure_colours(page, plot)["paper"]) < 0.2
        # The same file opened on its own (as an <img> shows it without JavaScript): the
        # page's variables do not reach it, so every grey falls back to the drawn one.
        name = sorted((built_site / "figures").glob("*.svg"))[0].name
        page.goto(site_url + "figures/" + name)
        paper = page.evaluate("getComputedStyle(document.querySelector('path')).fill")
        assert paper == "rgb(255, 255, 255)"
    finally:
        ctx.close()
