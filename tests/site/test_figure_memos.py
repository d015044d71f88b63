"""The per-process memos that make figures cheaper (bench/PROFILE.md, seventh round) give what
matplotlib's own code gives: same layouts, same ticks, same limits, same markers, same texts."""
import copy

import pytest

from bookkit.resolve import figures as F

F._setup_matplotlib()

from matplotlib.backends.backend_svg import FigureCanvasSVG  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def _figure(size=(4, 3)):
    fig = Figure(figsize=size, dpi=72)
    FigureCanvasSVG(fig)
    return fig


def _svg(fig) -> bytes:
    import io
    out = io.BytesIO()
    fig.savefig(out, format="svg", metadata=F.SAVE_METADATA["svg"])
    return out.getvalue()


def test_the_memos_are_installed():
    import matplotlib.axes._base
    import matplotlib.axis
    import matplotlib.backends.backend_svg
    import matplotlib.font_manager
    import matplotlib.hatch
    import matplotlib.markers
    import matplotlib.text
    import matplotlib.textpath
    for method in (matplotlib.text.Text._get_layout, matplotlib.axis.Axis._update_ticks,
                   matplotlib.axis.Axis._get_ticklabel_bboxes,
                   matplotlib.markers.MarkerStyle._set_marker,
                   matplotlib.axes._base._AxesBase._update_patch_limits,
                   matplotlib.textpath.TextToPath.get_glyphs_with_font,
                   matplotlib.font_manager.FontManager._find_fonts_by_props,
                   matplotlib.axis.Axis.get_major_ticks, matplotlib.axis.Axis.get_minor_ticks,
                   matplotlib.backends.backend_svg.RendererSVG._update_glyph_map_defs,
                   matplotlib.hatch.SmallFilledCircles.set_vertices_and_codes):
        assert getattr(method, "_bookkit_shared", False), method


@pytest.mark.parametrize("kw", [{}, {"ha": "right"}, {"va": "top"}, {"rotation": 90},
                                {"fontsize": 14}, {"linespacing": 2.0},
                                {"rotation": 30, "rotation_mode": "anchor"}])
def test_a_text_layout_from_the_memo_is_matplotlibs(kw):
    """Texts that differ only in what keys the memo get their own layout."""
    from matplotlib.text import Text
    fig = _figure()
    renderer = fig._get_renderer()
    inner = Text._get_layout.__wrapped__       # matplotlib's own
    for s in ("Bandwidth\n(GB/s)", "带宽", "$10^{3}$"):
        text = fig.text(0.5, 0.5, s, **kw)
        first = text._get_layout(renderer)       # a miss or a hit, then surely a hit
        again = text._get_layout(renderer)
        direct = inner(text, renderer)
        for got in (first, again):
            assert got[0].bounds == direct[0].bounds
            assert got[1] == direct[1] and got[2] == direct[2]
        again[0].x0 = -1e9                       # a caller moving the box changes no memo
        assert text._get_layout(renderer)[0].bounds == direct[0].bounds


def test_ticks_follow_a_change_between_passes():
    """The tick memo lives within one layout or drawing pass: a figure changed between two
    draws is drawn with the new ticks."""
    fig = _figure()
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1])
    before = _svg(fig)
    ax.set_xlim(0, 100)
    ax.set_xticks([0, 25, 50, 75, 100])
    after = _svg(fig)
    assert b"<!-- 75 -->" in after and b"<!-- 75 -->" not in before


def _plot_with_many_ticks(tweak=None):
    """A log-x plot (dozens of minor ticks), a tick_params call, a second pass that needs more
    ticks on both axes, and an optional change (rcParams, tick keywords) before it."""
    import matplotlib
    import matplotlib.ticker
    fig = _figure((5, 3))
    ax = fig.add_subplot()
    ax.plot([1, 1e3], [0, 10], label="line")
    ax.set_xscale("log")
    ax.set_xlabel("tokens")
    ax.tick_params(axis="x", labelrotation=30, labelsize=7)
    first = _svg(fig)
    if tweak:
        tweak(ax, matplotlib)
    ax.set_xlim(1, 1e5)                # more ticks: new ones copied from the kept tick
    ax.set_ylim(0, 100)
    ax.yaxis.set_major_locator(matplotlib.ticker.MultipleLocator(5))
    return first, _svg(fig)


def _by_matplotlib(draw):
    """`draw()` with matplotlib's own way of making new ticks."""
    from matplotlib.axis import Axis
    ours = Axis.get_major_ticks, Axis.get_minor_ticks
    Axis.get_major_ticks, Axis.get_minor_ticks = (m.__wrapped__ for m in ours)
    try:
        return draw()
    finally:
        Axis.get_major_ticks, Axis.get_minor_ticks = ours


@pytest.mark.parametrize("tweak, shows", [
    (None, False),
    # what a new tick is built from changes after the axis' kept tick was built: the new
    # ticks take the first tick's size and font (matplotlib copies them), not its math
    (lambda ax, mpl: mpl.rcParams.__setitem__("xtick.major.size", 9), False),
    (lambda ax, mpl: mpl.rcParams.__setitem__("text.parse_math", False), True),
    (lambda ax, mpl: ax.tick_params(axis="both", which="minor", width=2, color="#c00000"), True),
    (lambda ax, mpl: ax.grid(True, which="both"), True),
], ids=["plain", "rc-tick-size", "rc-parse-math", "minor-tick-params", "grid"])
def test_ticks_copied_from_a_kept_tick_are_matplotlibs(tweak, shows):
    import matplotlib
    with matplotlib.rc_context():
        ours = _plot_with_many_ticks(tweak)
    with matplotlib.rc_context():
        theirs = _by_matplotlib(lambda: _plot_with_many_ticks(tweak))
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]
    if shows:                                    # the change reaches the drawing
        assert ours[1] != _plot_with_many_ticks(None)[1]


def test_a_copied_tick_has_callbacks_and_parts_of_its_own():
    fig = _figure()
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.set_xlim(1, 1e6)
    ticks = ax.xaxis.get_major_ticks(5)
    kept = ax.xaxis.__dict__["_bookkit_major_template"][0]
    parts = ("tick1line", "tick2line", "gridline", "label1", "label2")
    for tick in ticks[1:]:
        assert tick is not kept and tick._callbacks is not kept._callbacks
        for name in parts:
            part, other = getattr(tick, name), getattr(ticks[0], name)
            assert part is not getattr(kept, name) and part is not other
            assert part._callbacks is not getattr(kept, name)._callbacks
        assert tick.label1._fontproperties is not ticks[0].label1._fontproperties
        assert tick.tick1line._marker is not ticks[0].tick1line._marker
    ticks[1].label1.set_fontsize(20)                # changing one changes no other
    assert ticks[2].label1.get_fontsize() != 20 and kept.label1.get_fontsize() != 20


def test_markers_copied_by_name_equal_deep_copies():
    from matplotlib.markers import MarkerStyle, TICKLEFT
    for name in ("o", "s", TICKLEFT, "None", "x", "^"):
        for fillstyle in ("full", "none", "left"):
            marker = MarkerStyle(name, fillstyle=fillstyle)
            copied = MarkerStyle(marker)
            deep = copy.deepcopy(marker)
            assert copied.get_marker() == deep.get_marker()
            assert copied.get_fillstyle() == deep.get_fillstyle() and copied.is_filled() == deep.is_filled()
            assert (copied.get_path().vertices == deep.get_path().vertices).all()
            assert (copied.get_transform().get_matrix() == deep.get_transform().get_matrix()).all()
            assert copied.get_joinstyle() == deep.get_joinstyle()
            assert copied.get_capstyle() == deep.get_capstyle()
    # a marker with a transform of its own is deep-copied as before
    from matplotlib.transforms import Affine2D
    rotated = MarkerStyle("^", transform=Affine2D().rotate_deg(30))
    assert (MarkerStyle(rotated).get_transform().get_matrix()
            == rotated.get_transform().get_matrix()).all()


def test_patch_limits_equal_matplotlibs():
    from matplotlib.axes._base import _AxesBase
    from matplotlib.patches import Circle, FancyBboxPatch, Polygon, Rectangle
    inner = _AxesBase._update_patch_limits.__wrapped__      # matplotlib's own
    shapes = lambda: [Rectangle((1, 2), 3, 4, angle=30), Rectangle((0, 0), 0, 0),
                      Circle((5, -1), 0.5), Polygon([(0, 0), (2, 7), (-3, 1)]),
                      FancyBboxPatch((1, 1), 2, 1, boxstyle="round,pad=0.3")]
    for scale in ("linear", "log"):
        fig = _figure()
        ours, theirs = fig.add_subplot(121), fig.add_subplot(122)
        for ax in (ours, theirs):
            ax.set_xscale(scale)
        for patch in shapes():
            ours.add_patch(patch)
        for patch in shapes():
            theirs._set_artist_props(patch)
            patch.set_clip_path(theirs.patch)
            inner(theirs, patch)
        assert (ours.dataLim.get_points() == theirs.dataLim.get_points()).all(), scale


def test_an_axis_off_axes_creates_no_ticks_and_lists_no_tick_labels():
    fig = _figure()
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_title("Title")
    ax.set_ylim(0, 8e10)                # an offset text (1e10) if its ticks were computed
    ax.text(0.5, 0.5, "inside")
    F._hide_unused_axis(fig)
    fig.tight_layout()
    fig.set_layout_engine(None)
    svg = _svg(fig)
    texts = F._texts_of(fig, [])
    assert texts == ["inside", "Title"] or sorted(texts) == ["Title", "inside"]
    assert ax.yaxis.offsetText.get_text() == ""
    assert b"<!-- Title -->" in svg and b"<!-- inside -->" in svg
    assert len(ax.xaxis.majorTicks) <= 1 and len(ax.yaxis.majorTicks) <= 1


def test_texts_of_a_plot_are_findobjs():
    from matplotlib.text import Text
    fig = _figure()
    ax = fig.add_subplot()
    ax.plot([1, 10, 100], [3, 1, 2])
    ax.set_xscale("log")
    ax.set_title("T")
    ax.set_xlabel("x")
    ax.legend(["a line"])
    F._hide_unused_axis(fig)
    fig.tight_layout()
    _svg(fig)
    assert F._texts_of(fig, []) == [t.get_text() for t in fig.findobj(Text)
                                     if t.get_text().strip()]


def test_a_missing_glyph_still_warns():
    """The glyph memo keeps no string with a missing glyph: the tofu check still sees it."""
    import warnings
    fig = _figure()
    fig.text(0.5, 0.5, "\U00013001 x")       # a hieroglyph no book font has
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _svg(fig)
    assert any("missing from" in str(w.message) for w in caught)


def test_a_figure_drawn_after_the_warm_up_has_the_same_bytes(tmp_path):
    """`warm_up_drawing` (a --serve process, and a build's parent before it forks its
    workers) loads fonts and fills memos with its own probe text: a figure drawn after it, in
    each language, is byte for byte the one a fresh process draws."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    program = f"""
import sys
sys.path.insert(0, {str(root)!r})
from pathlib import Path
from bookkit.resolve import figures as F
if sys.argv[1] == "warm":
    F.warm_up_drawing()
words = F.load_figure_words(Path({str(root)!r}) / sys.argv[2])["ch07_ring_allreduce"].table
result = F.draw_figure({str(root / "manuscripts" / "figures" / "ch07_ring_allreduce.py")!r},
                       sys.argv[3], {str(root)!r}, ("svg",), (), words)
assert result.ok, result.error
sys.stdout.buffer.write(result.value["svg"])
"""
    for folder, lang in (("book-en", "en"), ("manuscripts", "zh-Hans"), ("book-zh-tw", "zh-Hant")):
        drawn = {how: subprocess.run([sys.executable, "-c", program, how, folder, lang],
                                     capture_output=True, check=True, cwd=tmp_path).stdout
                 for how in ("cold", "warm")}
        assert len(drawn["cold"]) > 10_000 and b"<svg" in drawn["cold"]
        assert drawn["warm"] == drawn["cold"], lang


@pytest.mark.parametrize("family", ["en", "zh-Hans"])
def test_glyphs_from_the_outline_memo_are_matplotlibs(family):
    """A new string is shaped afresh but takes each glyph's outline from the memo: what it
    gives is what matplotlib's own `get_glyphs_with_font` gives, glyph for glyph, and an
    outline met in an earlier string is that string's (the memo is used)."""
    import matplotlib
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath
    import numpy as np
    own = TextToPath.get_glyphs_with_font.__wrapped__
    with matplotlib.rc_context({"font.family": F.FONT_FAMILIES[family]}):
        text2path = TextToPath()
        font = text2path._get_font(FontProperties())
        seen = {}
        # new strings each run (the string memo would answer a repeated one), sharing glyphs
        for s in (f"Ring 环形 {id(seen)}", f"环形 all-reduce {id(seen) + 1}"):
            got = text2path.get_glyphs_with_font(font, s)
            font = text2path._get_font(FontProperties())
            want = own(text2path, font, s)
            assert [g[:3] for g in got[0]] == [g[:3] for g in want[0]]
            assert list(got[1]) == list(want[1])
            for glyph, (vertices, codes) in got[1].items():
                assert np.array_equal(vertices, want[1][glyph][0])
                assert np.array_equal(codes, want[1][glyph][1])
                if glyph in seen:
                    assert vertices is seen[glyph]
                seen[glyph] = vertices
        assert len(seen) > 10


def _absolute_points(data: str) -> list[tuple]:
    """SVG path data (absolute or relative commands) as (command, absolute points...)."""
    import re
    points, current, start = [], (0.0, 0.0), (0.0, 0.0)
    for command, args in re.findall(r"([MLQCZmlqcz])([^MLQCZmlqcz]*)", data):
        if command in "Zz":
            points.append(("z",))
            current = start
            continue
        numbers = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", args)]
        pairs = list(zip(numbers[0::2], numbers[1::2]))
        if command.islower():
            pairs = [(x + current[0], y + current[1]) for x, y in pairs]
        if command in "Mm":
            start = pairs[-1]
        current = pairs[-1]
        points.append((command.upper(), *pairs))
    return points


def _glyph_outlines(svg: bytes) -> dict:
    import re
    return {m.group(1): _absolute_points(m.group(2)) for m in re.finditer(
        r'<path id="([^"]+)" d="([^"]*)"', svg.decode())}


def test_glyph_definitions_from_the_memo_are_matplotlibs():
    """The SVG's glyph outlines written from the path-data memo are matplotlib's (the same
    points, in relative commands: `_relative_path_data`), in ~0.6-0.7x the bytes, for a figure
    drawn once (memo filled) and again (memo read); the rest of the file is the same bytes."""
    import re
    import matplotlib
    from matplotlib.backends.backend_svg import RendererSVG
    shared = RendererSVG._update_glyph_map_defs

    def drawn():
        with matplotlib.rc_context({"font.family": F.FONT_FAMILIES["en"]}):
            fig = _figure()
            fig.text(0.1, 0.5, "Prefill 预填充 and decode 解码 $x^2$")
            fig.suptitle("KV 缓存 cache")
            return _svg(fig)

    memo_first, memo_again = drawn(), drawn()
    RendererSVG._update_glyph_map_defs = shared.__wrapped__
    try:
        direct = drawn()
    finally:
        RendererSVG._update_glyph_map_defs = shared
    assert b"<defs>" in direct and direct.count(b"<path id=") > 15
    assert b"uni" in direct or b"CJK" in direct          # the Chinese glyphs are there
    assert memo_first == memo_again
    outlines = _glyph_outlines(direct)
    assert _glyph_outlines(memo_first) == outlines and len(outlines) > 15
    def_bytes = [sum(len(m) for m in re.findall(rb'<path id="[^"]+" d="[^"]*"', svg))
                 for svg in (memo_first, direct)]
    assert def_bytes[0] < 0.75 * def_bytes[1]
    without_defs = [re.sub(rb'(<path id="[^"]+" d=")[^"]*"', rb'\1"', svg)
                    for svg in (memo_first, direct)]
    assert without_defs[0] == without_defs[1]


def test_glyph_placements_from_the_memo_are_matplotlibs():
    """The `<use>` lines placing a string's glyphs, written from the memo, are the bytes
    matplotlib writes element by element: texts at several depths (a figure text, a legend
    inside its groups), coloured, translucent, rotated, repeated, empty, with math beside
    them; drawn once (memo filled) and again (memo read)."""
    import matplotlib
    from matplotlib.backends.backend_svg import RendererSVG
    shared = RendererSVG._draw_text_as_path

    def drawn():
        with matplotlib.rc_context({"font.family": F.FONT_FAMILIES["en"]}):
            fig = _figure()
            ax = fig.add_subplot()
            ax.plot([0, 1], [0, 1], label="HBM 3.35 TB/s")
            ax.plot([0, 1], [1, 0], label="NVLink $x^2$")
            ax.legend(title="links")
            ax.text(0.5, 0.5, "decode", color="#aa3311", alpha=0.5, rotation=30)
            ax.text(0.2, 0.2, "decode")
            ax.text(0.3, 0.3, "")
            fig.suptitle("KV cache 0.5 GB")
            return _svg(fig)

    memo_first, memo_again = drawn(), drawn()
    RendererSVG._draw_text_as_path = shared.__wrapped__
    try:
        direct = drawn()
    finally:
        RendererSVG._draw_text_as_path = shared
    assert direct.count(b"<use xlink:href=") > 40 and b"opacity: 0.5" in direct
    assert memo_first == direct and memo_again == direct


def test_tick_label_boxes_measured_once_a_pass_are_matplotlibs():
    """An axis' tick label boxes, asked for several times in one pass (tight box, label
    placement, drawing), are measured once a pass, and the figure (tight layout, aligned
    labels of two Axes, a log axis, a twin) is the one matplotlib draws measuring each time."""
    import matplotlib
    from matplotlib.axis import Axis
    from matplotlib.text import Text
    shared, extent = Axis._get_ticklabel_bboxes, Text.get_window_extent
    measured = []

    def counting(self, *args, **kwargs):
        measured.append(self)
        return extent(self, *args, **kwargs)

    @matplotlib.rc_context({"font.family": F.FONT_FAMILIES["en"]})
    def drawn():
        measured.clear()
        fig = _figure((6, 4))
        ax1, ax2 = fig.subplots(2, 1)
        ax1.plot([1, 10, 100], [3, 1e4, 2e6])
        ax1.set_yscale("log")
        ax1.set_ylabel("带宽 (GB/s)")
        ax2.bar(["a", "bb", "ccc"], [1, 2, 3])
        ax2.twinx().plot([0, 1, 2], [1e5, 2e5, 3e5])
        ax2.set_ylabel("延迟")
        fig.align_ylabels()
        fig.tight_layout()
        fig.set_layout_engine(None)
        return _svg(fig), len(measured)

    Text.get_window_extent = counting
    try:
        Axis._get_ticklabel_bboxes = shared.__wrapped__      # matplotlib's own
        direct, asked = drawn()
        Axis._get_ticklabel_bboxes = shared
        first, _ = drawn()
        again, fewer = drawn()
    finally:
        Axis._get_ticklabel_bboxes, Text.get_window_extent = shared, extent
    assert len(direct) > 10_000 and first == direct and again == direct
    assert 0 < fewer < asked * 0.8, (fewer, asked)


def test_the_cycle_collector_runs_less_often_while_a_figure_is_drawn(monkeypatch):
    """`draw_in_worker` raises the collector's first threshold for the figure and puts the
    process' own back afterwards, also when the figure fails."""
    import gc
    seen = []

    def drawing(*args, **kwargs):
        seen.append(gc.get_threshold())
        raise RuntimeError("the script failed")

    monkeypatch.setattr(F, "draw_figure", drawing)
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with pytest.raises(RuntimeError):
            F.draw_in_worker("x.py", "en", ".", ("svg",), ())
        assert seen == [(F.FIGURE_GC_THRESHOLD, 10, 10)]
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)


def test_dotted_hatch_has_matplotlibs_dots_in_about_a_third_of_the_bytes():
    """`_compact_dot_hatches`: the same dots (centres and extents, within the 1/100 pt grid of
    the 72 pt tile) as matplotlib's eight-segment circles, in at most 35 % of the SVG."""
    import matplotlib.hatch as H
    import numpy as np
    from matplotlib import _path
    from matplotlib.patches import Rectangle
    from matplotlib.path import Path as MplPath
    from matplotlib.transforms import Affine2D

    def dots(path):
        """(centre x, centre y, width, height) of each closed piece, in points of the tile."""
        found, start = [], 0
        for i, code in enumerate(path.codes):
            if code == MplPath.CLOSEPOLY:
                box = MplPath(path.vertices[start:i + 1], path.codes[start:i + 1]).get_extents()
                found.append(np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2,
                                       box.width, box.height]) * 72)
                start = i + 1
        return np.array(found)

    def svg_data(path):      # as the SVG writer writes a hatch (backend_svg._write_hatches)
        tile = Affine2D().scale(72).scale(1.0, -1.0).translate(0, 72)
        return _path.convert_to_string(path, tile, None, False, None, 6,
                                       [b"M", b"L", b"Q", b"C", b"z"], False).decode()

    Dots = H.SmallFilledCircles
    theirs = Dots.__new__(Dots)
    Dots.__init__.__wrapped__(theirs, "..", 6)
    vertices = np.empty((theirs.num_vertices, 2))
    codes = np.empty(theirs.num_vertices, MplPath.code_type)
    Dots.set_vertices_and_codes.__wrapped__(theirs, vertices, codes)
    theirs = MplPath(vertices, codes)
    ours = H.get_path("..", 6)
    assert len(dots(ours)) == len(dots(theirs)) == 163
    assert np.abs(dots(ours) - dots(theirs)).max() <= 0.011
    assert len(svg_data(ours)) * 100 <= 35 * len(svg_data(theirs))     # 23 of 68 kB
    fig = _figure()
    fig.add_subplot().add_patch(Rectangle((0, 0), 1, 1, hatch="..", facecolor="#a9dba3"))
    assert svg_data(ours).encode() in _svg(fig)      # the drawing uses it
