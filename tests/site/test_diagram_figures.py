"""The book's diagrams, drawn as the build draws them: words per edition, numbers bound to the
chapter's cells and formatted like the prose, a text alternative from the data, text contrast
>= 4.5:1 in both site themes (read from the SVG), and a config change redrawing every edition."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from bookkit.util.cache import Cache
from bookkit.locale.numbers import format_value, parse_spec
from bookkit.render.site.html import figure_description_html
from bookkit.resolve.figures import (FigureTask, draw_figure, figure_words, load_figure_words,
                                      resolve_figures)
from bookkit.resolve.workers import run_jobs
from calculations import training as tr

ROOT = Path(__file__).resolve().parents[2]
DIRS = {"zh-Hans": "manuscripts", "en": "book-en", "zh-Hant": "book-zh-tw"}
LANGS = tuple(DIRS)   # the book's editions' languages
#: each diagram, and a key of its words that is drawn as a text of its own
DIAGRAMS = {"ch07_ring_allreduce": "rank", "ch10_1f1b_schedule": "fwd", "ch07_fat_tree": "l_pod",
            "ch08_block_table": "table_label", "ch08_offload_flow": "dram"}


def words(stem: str, lang: str) -> dict:
    return load_figure_words(ROOT / DIRS[lang])[stem].table


@pytest.fixture(scope="module")
def drawn() -> dict:
    """Every diagram in every language, drawn in forked jobs as the build does."""
    jobs = [(f"{stem}|{lang}", draw_figure,
             (str(ROOT / "manuscripts" / "figures" / f"{stem}.py"), lang, str(ROOT), ("svg",),
              (), words(stem, lang)))
            for stem in DIAGRAMS for lang in LANGS]
    results = run_jobs(jobs)
    for name, result in results.items():
        assert result.ok, (name, result.error)
    return {name: r.value for name, r in results.items()}


def chapter_values(chapter: str) -> dict:
    """The original chapter's calculation cells, run in order (what the prose binds)."""
    text = (ROOT / "manuscripts" / chapter).read_text(encoding="utf-8")
    # what-if declarations give the book's value, as at build time
    ns: dict = {"choose": lambda _s, _k, options, default=None:
                default if default is not None else options[0],
                "exclude": lambda *_a, **_k: None}
    for block in re.findall(r"^```calc[^\n]*\n(.*?)^```", text, re.M | re.S):
        exec(compile(block, chapter, "exec"), ns)   # noqa: S102 - the book's own cells
    return ns


def bound(value: dict, name: str) -> dict:
    return next(b for b in value["bound"] if b["name"] == name)


@pytest.mark.parametrize("lang", LANGS)
def test_words_are_the_editions_and_no_other(drawn, lang):
    for stem in DIAGRAMS:
        texts = drawn[f"{stem}|{lang}"]["texts"]     # each text drawn, whole
        mine = words(stem, lang)
        key = DIAGRAMS[stem]
        assert mine[key] in texts
        for other in LANGS:
            if words(stem, other)[key] != mine[key]:
                assert words(stem, other)[key] not in texts


@pytest.mark.parametrize("lang", LANGS)
def test_numbers_are_the_chapters_and_formatted_like_the_prose(drawn, lang):
    ch07, ch10 = chapter_values("07-datacenter-networks.md"), chapter_values("10-training-systems.md")
    ring = drawn[f"ch07_ring_allreduce|{lang}"]
    # the prose writes {{ nic_bw | si unit=GB/s digits=0 }}: the diagram's link label is that text
    nic = format_value(ch07["nic_bw"], parse_spec("si unit=GB/s digits=0"), lang)
    assert bound(ring, "nic_bw")["text"] == nic and nic in ring["texts"][0] + " ".join(ring["texts"])
    assert bound(ring, "ring_demo_steps")["text"] == "14"
    pipe = drawn[f"ch10_1f1b_schedule|{lang}"]
    # drawn alone (no INPUTS passed) it draws the book's example: the prose's p_ex, m_ex
    assert ch10["pipe_p"] == ch10["p_ex"] and ch10["pipe_m"] == ch10["m_ex"]
    assert bound(pipe, "pipe_p")["text"] == format_value(ch10["pipe_p"], parse_spec("int"), lang)
    assert bound(pipe, "pipe_m")["text"] == format_value(ch10["pipe_m"], parse_spec("int"), lang)
    bubble = format_value(ch10["pipe_bubble"], parse_spec("pct digits=1"), lang)
    assert bound(pipe, "pipe_bubble")["text"] == bubble
    assert bubble == format_value(ch10["bubble_ex"], parse_spec("pct digits=1"), lang)
    assert any(bubble in t for t in pipe["texts"])
    ch08 = chapter_values("08-inference-optimization.md")
    pages = drawn[f"ch08_block_table|{lang}"]
    assert bound(pages, "paged_block")["text"] == format_value(ch08["paged_block"],
                                                               parse_spec("int"), lang)
    flow = drawn[f"ch08_offload_flow|{lang}"]
    for name, spec in (("load_pcie", "si unit=ms digits=0"), ("load_ssd", "si unit=ms digits=0"),
                       ("pcie", "si unit=GB/s digits=0"), ("off_kv", "si unit=GB digits=2")):
        assert bound(flow, name)["text"] == format_value(ch08[name], parse_spec(spec), lang)


@pytest.mark.parametrize("lang", LANGS)
def test_text_alternative_is_worded_from_the_data(drawn, lang):
    ring = drawn[f"ch07_ring_allreduce|{lang}"]["description"]
    pipe = drawn[f"ch10_1f1b_schedule|{lang}"]["description"]
    assert ring.startswith(words("ch07_ring_allreduce", lang)["alt"].split("{")[0])
    assert "14" in ring and "50 GB/s" in ring and "1.75" in ring and "{" not in ring
    assert "15.8%" in pipe and "{" not in pipe
    if lang == "en":
        assert ring.startswith("Ring all-reduce over 8 GPUs: 14 steps")


def _theme_colours() -> dict:
    css = (ROOT / "website" / "static" / "style.css").read_text(encoding="utf-8")
    light = re.search(r"figure,\.figure-zoom\{--fig-ink:(#\w+);--fig-paper:(#\w+)\}", css)
    dark = re.search(r"\[data-theme=dark\] figure,\[data-theme=dark\] \.figure-zoom\{"
                     r"--fig-ink:(#\w+);--fig-paper:(#\w+)\}", css)
    return {"light": light.groups(), "dark": dark.groups()}


def _rgb(hex_: str) -> tuple[float, float, float]:
    hex_ = hex_.lstrip("#")
    if len(hex_) == 3:
        hex_ = "".join(c * 2 for c in hex_)
    return tuple(int(hex_[i:i + 2], 16) / 255 for i in (0, 2, 4))


def _luminance(rgb) -> float:
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a, b) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _on_theme(fill: str, ink, paper):
    """A colour of the site's SVG as the page shows it: a themed grey `var(--fig-kGG, …)` is
    the mix of ink and paper (bookkit/resolve/figures.py, themed_svg); others as drawn."""
    grey = re.match(r"var\(--fig-k([0-9a-f]{2})", fill)
    if not grey:
        return _rgb(fill)
    share = (255 - int(grey.group(1), 16)) / 255     # of the ink
    return tuple(i * share + p * (1 - share) for i, p in zip(_rgb(ink), _rgb(paper)))


_TEXT = re.compile(r'<g id="[^"]*?-(text_\d+|bkt\d+-on-([0-9a-f]{6}))">(.*?)</g>\s*</g>', re.S)


def text_contrasts(site_svg: str) -> list[tuple[str, str, float]]:
    """(theme, text id, contrast) of every text of a site SVG against what it sits on."""
    out = []
    for theme, (ink, paper) in _theme_colours().items():
        for match in _TEXT.finditer(site_svg):
            # the glyphs' group (a label on a fill first draws a patch of that fill)
            fill = re.search(r'<g style="fill: (var\(--fig-k[0-9a-f]{2}, #\w+\)|#[0-9a-f]{6})"'
                             r"[^>]*transform", match.group(3))
            colour = fill.group(1) if fill else "var(--fig-k00, #000000)"
            ground = _rgb(match.group(2)) if match.group(2) else _rgb(paper)
            out.append((theme, match.group(1), contrast(_on_theme(colour, ink, paper), ground)))
    return out


@pytest.mark.parametrize("stem", DIAGRAMS)
def test_text_contrast_at_least_4_5_in_both_themes(drawn, stem):
    svg = drawn[f"{stem}|en"]["site"].decode()
    found = text_contrasts(svg)
    on_fills = [f for f in found if f[1].startswith("bkt")]
    if stem != "ch07_fat_tree":     # the fat tree's nodes carry no labels
        assert on_fills, "the diagram's labels on coloured shapes were not found"
    low = [f for f in found if f[2] < 4.5]
    assert not low, low


def test_the_contrast_check_can_fail():
    """A pale grey text on the page, or a mid-grey label on a mid-tone fill, is caught."""
    pale = ('<g id="f1-text_1"><g style="fill: var(--fig-kcc, #cccccc)" transform="x">'
            '<use/></g>\n</g>')
    on_fill = ('<g id="f1-bkt3-on-4c72b0"><g id="f1-patch_1"><path style="fill: #4c72b0"/></g>'
               '<g style="fill: #111114" transform="x"><use/></g>\n</g>')
    lows = [f for f in text_contrasts(pale + on_fill) if f[2] < 4.5]
    assert {f[1] for f in lows} == {"text_1", "bkt3-on-4c72b0"}


def test_colour_never_alone_every_filled_kind_has_a_hatch_or_a_label(drawn):
    """The two phases / passes differ by hatch as well as colour, and each is named in a
    legend (the words are drawn)."""
    from bookkit.diagrams.draw import FILLS
    assert FILLS["F"][1] != FILLS["B"][1]
    assert FILLS["reduce-scatter"][1] != FILLS["all-gather"][1]
    for lang in LANGS:
        texts = drawn[f"ch10_1f1b_schedule|{lang}"]["texts"]
        w = words("ch10_1f1b_schedule", lang)
        assert w["fwd"] in texts and w["bwd"] in texts


def test_description_html_carries_provenance_of_the_diagrams_numbers(drawn):
    from bookkit.model import FigureImage
    value = drawn["ch07_ring_allreduce|en"]
    image = FigureImage("fig-x", "en", Path("x.svg"), None, value["texts"],
                        description=value["description"], bound=value["bound"])
    html = figure_description_html(image, "fig-x-desc", {"computed_as": "Computed as:"})
    assert '<p id="fig-x-desc">' in html
    assert re.search(r'<span class="num" data-name="nic_bw">50 GB/s<span class="prov">'
                     r"Computed as: nic_bw = cl.gbps_to_bytes", html)
    assert '<span class="num" data-name="ring_demo_steps">14<' in html


def test_a_config_change_redraws_the_diagram_in_every_edition(tmp_path):
    """The NIC's line rate in calculations/data/networks.json doubles: the cached diagrams are
    drawn again and every edition's link label, bound number and description say 100 GB/s."""
    root = tmp_path / "book"
    shutil.copytree(ROOT / "calculations", root / "calculations",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / "manuscripts" / "figures").mkdir(parents=True)
    shutil.copy(ROOT / "manuscripts" / "figures" / "ch07_ring_allreduce.py",
                root / "manuscripts" / "figures")
    for lang, folder in DIRS.items():
        (root / folder).mkdir(exist_ok=True)
        shutil.copy(ROOT / folder / "figures.yml", root / folder / "figures.yml")
    cache = Cache(tmp_path / "cache", base=root)

    def draw_all() -> dict:
        tasks = [FigureTask("fig-ring", root / "manuscripts" / "figures" / "ch07_ring_allreduce.py",
                            lang, "manuscripts/07.md", 1, (lang,),
                            figure_words("ch07_ring_allreduce",
                                         [root / DIRS[lang], root / "manuscripts"], {}), lang)
                 for lang in LANGS]
        return resolve_figures(tasks, root, cache, root / "build" / "figures", workers=1,
                               formats=("svg",))

    before = draw_all()
    assert all(b["text"] == "50 GB/s" for img in before.values() for b in img.bound
               if b["name"] == "nic_bw")
    data_file = root / "calculations" / "data" / "networks.json"
    data = json.loads(data_file.read_text(encoding="utf-8"))
    nic = next(n for n in data["nics"] if n["id"] == "cx7")
    nic["line_rate_gbps"] *= 2
    data_file.write_text(json.dumps(data), encoding="utf-8")
    after = draw_all()
    for lang in LANGS:
        image = after[("fig-ring", lang)]
        assert [b["text"] for b in image.bound if b["name"] == "nic_bw"] == ["100 GB/s"]
        assert "100 GB/s" in image.description and "50 GB/s" not in image.description
        assert image.svg.read_bytes() != b"" and any("100 GB/s" in t for t in image.texts)


def test_inputs_from_the_chapter_redraw_the_schedule():
    """`INPUTS` values (the chapter's, or a what-if variant's) are what the diagram draws."""
    script = ROOT / "manuscripts" / "figures" / "ch10_1f1b_schedule.py"
    [(_, result)] = run_jobs([("f", draw_figure, (str(script), "en", str(ROOT), ("svg",), (),
                                                  words("ch10_1f1b_schedule", "en"), "en",
                                                  {"pipe_p": 8, "pipe_m": 8}))]).items()
    assert result.ok, result.error
    bubble = format_value(tr.pipeline_bubble_fraction(8, 8), parse_spec("pct digits=1"), "en")
    assert bound(result.value, "pipe_bubble")["text"] == bubble
    assert "8 stages and 8 micro-batches" in result.value["description"]
    assert "Stage 8" in result.value["texts"]


def test_labels_drawn_through_one_text_are_the_bytes_of_a_text_each():
    """`text_on` labels (one `Labels` artist, one moved `Text` per style) write the same SVG
    as the `ax.text` per label they replace: on a hatched fill (with its background patch),
    on a plain fill (none), off any fill (the page's ink), in two sizes and alignments, one
    after the other so that a state left by one label (colour, patch, id) would show."""
    import io

    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from bookkit.diagrams.draw import INK_ON_FILL, text_on

    labels = [(0.2, 0.2, "c0", "#f6b98a", "//", {"fontsize": 7}),
              (0.5, 0.2, "c1", "#a6c8ea", "", {"fontsize": 7}),
              (0.8, 0.2, "off", None, None, {"fontsize": 9, "ha": "left"}),
              (0.2, 0.7, "c2", "#f6b98a", "//", {"fontsize": 7}),
              (0.5, 0.7, "big", "#a9dba3", "..", {"fontsize": 11, "va": "bottom"}),
              (0.8, 0.7, "c3", "#a6c8ea", "", {"fontsize": 7})]

    def svg(with_labels: bool) -> bytes:
        fig = Figure(figsize=(3, 2))
        ax = fig.add_subplot()
        n = 0
        for x, y, s, fill, hatch, kw in labels:
            if with_labels:
                text_on(ax, x, y, s, fill, hatch, **kw)
            else:   # what text_on drew before `Labels`: an artist per label
                kw = dict(kw)
                if fill is not None:
                    kw.update(color=INK_ON_FILL, gid=f"bkt{n}-on-{fill.lstrip('#')}")
                    n += 1
                    if hatch != "":
                        kw["bbox"] = {"facecolor": fill, "edgecolor": "none", "pad": 1.0}
                ax.text(x, y, s, **kw)
        out = io.BytesIO()
        with matplotlib.rc_context({"svg.hashsalt": "labels"}):   # ids the same each time
            fig.savefig(out, format="svg", metadata={"Date": None})
        return out.getvalue()

    drawn = svg(True)
    assert drawn == svg(False)
    assert drawn.count(b'id="bkt') == 5 and drawn.count(b"fill: #f6b98a") == 2


def test_a_label_too_long_for_its_box_is_drawn_smaller_inside_it():
    """`text_on(fit=...)`: a box's label longer than the box (a translation, a bound number)
    is drawn smaller until it fits, measured at the figure's final layout; one that fits is
    left at its size; none is drawn under MIN_FONT."""
    import io

    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from bookkit.diagrams import layout_check
    from bookkit.diagrams.draw import MIN_FONT, Labels, draw_flow
    from bookkit.diagrams.flow import stack_flow

    flow = stack_flow([("a", "a label longer than the box it is in", "note"),
                       ("b", "short", "")], [("a", "b", "moves wider than gap")],
                      horizontal=True, width=2.0, gap=1.4)
    fig = Figure(figsize=(6, 2), dpi=72)
    ax = fig.add_subplot()
    draw_flow(ax, flow, fontsize=8)
    fig.tight_layout()
    fig.set_layout_engine(None)      # as the pipeline: one drawing pass when saved
    with layout_check.recording_texts() as drawn:
        fig.savefig(io.BytesIO(), format="svg")
    at = {d.text: d for d in drawn}
    to_px = ax.transData.transform
    for box in flow.boxes:
        left, right = to_px((box.x, 0))[0], to_px((box.x + box.w, 0))[0]
        assert left <= at[box.label].x0 and at[box.label].x1 <= right, box.label
    a, b = flow.boxes
    arrow = at["moves wider than gap"]
    assert to_px((a.x + a.w, 0))[0] <= arrow.x0 and arrow.x1 <= to_px((b.x, 0))[0]
    assert layout_check.overlaps(drawn) == []
    sizes = {t.get_text(): t.get_fontsize() for labels in Labels.on(ax)
             for t in labels.each(fig._get_renderer())}
    assert MIN_FONT <= sizes[a.label] < 9 and sizes["short"] == 9      # fontsize + 1


def test_a_script_that_sets_its_own_margins_keeps_them(tmp_path, in_fork):
    """`fig.subplots_adjust` in a figure script (room for a figure-level legend, which the
    tight layout does not see) is kept; a script without it is laid out tightly."""
    import xml.etree.ElementTree as ET

    from bookkit.resolve import figures as F

    def axes_left(script_text: str) -> float:
        script = tmp_path / "fig_margins.py"
        script.write_text(script_text, encoding="utf-8")
        result = in_fork(F.draw_in_worker, str(script), "en", str(tmp_path), ("svg",), (), {})
        assert result.ok, result.error
        root = ET.fromstring(result.value["svg"])
        patch = root.find(".//{http://www.w3.org/2000/svg}g[@id='patch_2']/"
                          "{http://www.w3.org/2000/svg}path")
        width = float(root.get("width").rstrip("pt"))
        return float(patch.get("d").split()[1]) / width     # the Axes' left edge, 0..1
    body = ("def draw(fig, t):\n    ax = fig.add_subplot()\n    ax.plot([0, 1], [0, 1])\n")
    assert abs(axes_left(body + "    fig.subplots_adjust(left=0.3)\n") - 0.3) < 0.01
    assert axes_left(body) < 0.2            # tight: the Axes moved to the figure's edge
    assert F._own_margins(__import__("matplotlib.figure").figure.Figure()) is False
