"""Executable figures: one matplotlib script per figure, drawn once per edition language.

Text comes from the script's per-language STRINGS table; CJK text uses Noto Sans CJK (SC for
zh-Hans, TC for zh-Hant). An edition whose language has no table or fonts of its own uses its
fallback's (book.yml). A missing glyph or a font fallback fails the build: no tofu ships.
"""
from __future__ import annotations

import hashlib
import logging
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Collection, Mapping

from bookkit.util.cache import Cache, key_of, library_versions
from bookkit.util.fsutil import kept_while_unchanged, read_bytes_kept, rewritten
from bookkit.locale.languages import LANGUAGES, find as find_language
from bookkit.model import BuildError, FigureImage
from bookkit.resolve.workers import DependencyRecorder, JobResult, KeptWorkers, run_pool

#: figure fonts per language (its record's); an edition of another uses its fallback's (book.yml)
FONT_FAMILIES = {tag: list(rec.figure_fonts) for tag, rec in LANGUAGES.items()}
NOTO_CJK_FILES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
)
#: no dates in the files: the same figure gives the same bytes
SAVE_METADATA = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}


@dataclass(frozen=True)
class FigureTask:
    figure_id: str
    script: Path
    lang: str
    source: str       # chapter file that uses it (for messages)
    line: int
    langs: tuple[str, ...] = ()   # its edition's lang, then its fallbacks' (nearest first)
    words: "FigureWords | None" = None   # its table of the edition's figures.yml (or a fallback's)
    number_lang: str = ""         # the edition's number conventions (`t.num`)
    inputs: dict | None = None    # the chapter's cell values the script asked for (`INPUTS`)
    variant_of: tuple = ()        # (figure id, scenario, combination) of a what-if variant


def script_inputs(script: Path) -> tuple[str, ...]:
    """The names of the chapter's cell values a script asks for: `INPUTS = ("a", "b")`, read
    from its source without running it (the parent decides what to draw before forking).
    Kept while the file is unchanged: parsing the book's ~200 scripts took 0.7 s of every
    --serve rebuild, for scripts that had not changed."""
    try:
        return kept_while_unchanged(script, _read_inputs)
    except OSError:
        return ()


def _read_inputs(script: Path) -> tuple[str, ...]:
    import ast
    try:
        tree = ast.parse(script.read_bytes())
    except (OSError, SyntaxError):
        return ()      # drawing it reports the problem with the script's own line
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "INPUTS"
                                                for t in node.targets):
            try:
                names = ast.literal_eval(node.value)
            except ValueError:
                return ()
            return tuple(str(n) for n in names)
    return ()


#: an edition's figure words: `<edition dir>/figures.yml`, one table per figure script
FIGURE_WORDS = "figures.yml"


@dataclass(frozen=True)
class FigureWords:
    script: str          # the figure script's stem, its key in figures.yml
    table: dict          # key -> text (or a list of texts)
    path: Path           # the figures.yml it came from
    line: int


def load_figure_words(folder: Path) -> Mapping[str, FigureWords]:
    """`folder/figures.yml`: {script stem: {key: text}}, the same object while the file is
    unchanged; an empty one (always the same) when the edition has none."""
    try:   # --serve: parsed once per edit of the file
        return kept_while_unchanged(folder / FIGURE_WORDS, _read_figure_words)
    except FileNotFoundError:
        return NO_FIGURE_WORDS


#: the words of an edition without a figures.yml
NO_FIGURE_WORDS: Mapping[str, FigureWords] = MappingProxyType({})


def _read_figure_words(path: Path) -> dict[str, FigureWords]:
    import yaml
    text = path.read_text(encoding="utf-8")
    # One parse (the nodes give the lines, the same nodes the values), with libyaml when
    # PyYAML has it: the pure-Python parser took ~0.3 s a file.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise BuildError(path, mark.line + 1 if mark else None, f"not valid YAML: {exc}",
                         "fix the YAML (quote texts that contain `: ` or start with `{`)")
    finally:
        loader.dispose()
    if root is None:
        return {}
    if not isinstance(data, dict):
        raise BuildError(path, 1, "figures.yml must map figure script names to tables",
                         "e.g. `roofline:` then `  x: Arithmetic intensity`")
    words = {}
    for key_node, value_node in root.value:
        stem, line = key_node.value, key_node.start_mark.line + 1
        # YAML keeps the last of two equal keys without a word: a merge that leaves a figure's
        # table twice would silently drop one. Say where both are.
        if stem in words:
            raise BuildError(path, line, f"`{stem}` appears twice (first at line {words[stem].line})",
                             "keep one table per figure script")
        seen: dict[str, int] = {}
        for sub_key, _ in getattr(value_node, "value", ()) if value_node.id == "mapping" else ():
            if sub_key.value in seen:
                raise BuildError(path, sub_key.start_mark.line + 1,
                                 f"`{stem}` has the key `{sub_key.value}` twice "
                                 f"(first at line {seen[sub_key.value]})", "keep one")
            seen[sub_key.value] = sub_key.start_mark.line + 1
        table = data[stem]
        if isinstance(table, dict):
            # YAML 1.1 reads `off`, `on`, `yes`, `no`, `y`, `n` as booleans: a key `off:` would be
            # looked up as `False` and reported as missing, far from the cause.
            for sub_key, _ in value_node.value:
                if sub_key.tag != "tag:yaml.org,2002:str":
                    raise BuildError(path, sub_key.start_mark.line + 1,
                                     f"`{stem}`: YAML reads the key `{sub_key.value}` as a "
                                     f"{sub_key.tag.rpartition(':')[2]}, not as a word",
                                     f"quote it (`\"{sub_key.value}\":`) or choose another key")
        if not isinstance(table, dict) or not all(
                isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))
                for v in table.values()):
            raise BuildError(path, line, f"`{stem}` must be a table of texts (key: text)",
                             "indent its keys under the script name; quote numbers")
        words[stem] = FigureWords(stem, {str(k): v for k, v in table.items()}, path, line)
    return words


def figure_words_folders(root: Path, registry, spec) -> list[Path]:
    """Where an edition's figure words are looked for, nearest first: its own folder, its
    fallbacks', then the original's (the last one, which `figure_words` checks keys against)."""
    folders = []
    while spec is not None:
        folders.append(Path(root) / spec.dir)
        spec = registry.by_id(spec.fallback) if spec.fallback else None
    original = Path(root) / registry.original.dir
    if original not in folders:
        folders.append(original)
    return folders


def figure_words(stem: str, folders: list[Path], memo: dict) -> FigureWords | None:
    """The script's table from the first of `folders` (the edition's, its fallbacks', the
    original's) that has one. A translation's table must have the original's keys, the last
    folder being the original's."""
    found = None
    for folder in folders:
        if folder not in memo:
            memo[folder] = load_figure_words(folder)
        if found is None and stem in memo[folder]:
            found = memo[folder][stem]
    original = memo[folders[-1]].get(stem)
    if found is not None and original is not None and found is not original:
        missing = sorted(set(original.table) - set(found.table))
        extra = sorted(set(found.table) - set(original.table))
        if missing or extra:
            raise BuildError(found.path, found.line, f"figure `{stem}`: its keys differ from "
                             f"{original.path.parent.name}/{FIGURE_WORDS}'s"
                             + (f"; missing {', '.join(missing)}" if missing else "")
                             + (f"; not in the original: {', '.join(extra)}" if extra else ""),
                             "translate exactly the original's keys")
    return found


def _share_mathtext_layouts(mathtext) -> None:
    """One memo of laid-out math per process instead of one per renderer.

    matplotlib keys its mathtext memo (50 entries) on the parser, and every renderer (the one
    `tight_layout` measures with, the SVG one, each new figure's) has its own parser, so the
    same log-axis label (`$\\mathdefault{10^{3}}$`) was laid out again by pyparsing for every
    renderer: ~20 % of drawing the book's figures. The result depends only on the arguments
    and the parser's output type, which key this memo. Written by hand because matplotlib
    offers no setting for it; `_parse_cached` is private, hence the guard (and matplotlib's
    version keys the figure cache).
    """
    parser = mathtext.MathTextParser
    inner = getattr(parser._parse_cached, "__wrapped__", None)
    if inner is None or getattr(parser, "_bookkit_shared", False):
        return
    memo: dict = {}

    def parse_shared(self, s, dpi, prop, antialiased, load_glyph_flags):
        key = (self._output_type, s, dpi, prop, antialiased, load_glyph_flags)
        found = memo.get(key)
        if found is None:
            found = memo[key] = inner(self, s, dpi, prop, antialiased, load_glyph_flags)
        return found

    parser._parse_cached = parse_shared
    parser._bookkit_shared = True


def _share_text_metrics(text) -> None:
    """One memo of text extents per process and kind of renderer, instead of one per renderer.

    matplotlib memoises a string's (width, height, descent) per renderer *instance*, and every
    figure, and every pass over one (layout, then drawing), makes a new renderer: the tick
    labels "0", "10", "20"... were measured with FreeType again for every figure, ~15 % of
    drawing the book's figures. The extents depend only on the string, the font properties,
    math or not, the dpi (all in matplotlib's key) and the kind of renderer (SVG: unhinted
    outlines; Agg: hinted by rcParams); they key this memo. Written by hand because
    matplotlib offers no setting for it; `_get_text_metrics_function` is private, hence the
    guard (and matplotlib's version keys the figure cache).
    """
    import weakref
    original = getattr(text, "_get_text_metrics_function", None)
    if original is None or getattr(original, "_bookkit_shared", False):
        return
    import matplotlib
    memos: dict = {}
    per_renderer: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

    def metrics_function(renderer):
        found = per_renderer.get(renderer)
        if found is not None:
            return found
        # A vector backend's MixedModeRenderer measures with the renderer it wraps (`_renderer`)
        inner = getattr(renderer, "_renderer", None)
        kind = (type(renderer), type(inner), matplotlib.rcParams["text.hinting"],
                matplotlib.rcParams["text.hinting_factor"])
        memo = memos.setdefault(kind, {})
        ref = weakref.ref(renderer)     # no cycle: the memo outlives the renderer

        def measure(s, prop, ismath, dpi):
            key = (s, prop, ismath, dpi)
            value = memo.get(key)
            if value is None:
                value = memo[key] = ref().get_text_width_height_descent(s, prop, ismath)
            return value

        per_renderer[renderer] = measure
        return measure

    metrics_function._bookkit_shared = True
    text._get_text_metrics_function = metrics_function


def _share_text_layouts(text) -> None:
    """One memo of laid-out text (`Text._get_layout`) per process, across texts and figures.

    matplotlib lays a text out again each time it is measured or drawn: for the layout pass,
    for every tick label's extent (several times per axis), for the title's position, then to
    draw it; ~12 % of drawing the book's figures. The layout is relative to the text's anchor,
    so it depends only on what keys this memo: the string, the font properties, the
    alignment, rotation and line spacing, math or not, the dpi and the kind of renderer (as
    for the text extents above). A wrapped text depends on its position and is not memoised.
    The bbox is returned as a copy (callers may move it). Written by hand because matplotlib
    offers no setting for it; `_get_layout` is private, hence the guard (and matplotlib's
    version keys the figure cache).
    """
    cls = getattr(text, "Text", None)
    original = getattr(cls, "_get_layout", None)
    if original is None or getattr(original, "_bookkit_shared", False):
        return
    import matplotlib
    rc = matplotlib.rcParams
    memo: dict = {}

    def get_layout(self, renderer):
        if self._wrap:
            return original(self, renderer)
        key = (type(renderer), type(getattr(renderer, "_renderer", None)), rc["text.hinting"],
               rc["text.hinting_factor"], self.get_figure(root=True).dpi, self.get_text(),
               self._fontproperties, self.get_usetex(), self.get_parse_math(),
               self._linespacing, self._get_multialignment(), self._horizontalalignment,
               self._verticalalignment, self.get_rotation(), self.get_rotation_mode())
        found = memo.get(key)
        if found is None:
            bbox, lines, box = original(self, renderer)
            key = key[:6] + (self._fontproperties.copy(),) + key[7:]   # a copy: props change
            found = memo[key] = (bbox.frozen(), tuple(lines), box)
        return found[0].frozen(), list(found[1]), found[2]

    get_layout._bookkit_shared = True
    get_layout.__wrapped__ = original
    cls._get_layout = get_layout


#: the current drawing pass (a `Figure.tight_layout` or `Figure.draw`), None outside one
_PASS: list = [None, 0]


def _share_ticks_within_a_pass(axis_module, figure_module) -> None:
    """Ticks computed once per axis and drawing pass instead of up to ten times.

    Within one layout pass, and again within one drawing, matplotlib asks each axis for its
    ticks (locations, labels, positions) several times: for its tight box, to place its label
    (`_get_tick_boxes_siblings`), to place the title, to draw it; ~10 % of drawing a plot. No
    code of the figure's runs inside a pass, so the answer changes only with what keys it:
    the view interval, the Axes' place on the canvas, the dpi, the scale, the locators and
    formatters, and the ticks that exist. Between passes (a script's own code, or the layout
    moving the Axes) nothing is reused. Private methods again, hence the guard."""
    Axis, Figure = getattr(axis_module, "Axis", None), getattr(figure_module, "Figure", None)
    original = getattr(Axis, "_update_ticks", None)
    if original is None or getattr(original, "_bookkit_shared", False):
        return

    def state(axis):
        ticks = axis.__dict__
        major, minor = ticks.get("majorTicks"), ticks.get("minorTicks")
        return (_PASS[0], tuple(axis.get_view_interval()), axis.axes.bbox.bounds,
                axis.get_figure(root=True).dpi, id(axis._scale), id(axis.major.locator),
                id(axis.major.formatter), id(axis.minor.locator), id(axis.minor.formatter),
                len(major) if isinstance(major, list) else -1,
                len(minor) if isinstance(minor, list) else -1)

    def update_ticks(self):
        if _PASS[0] is None or getattr(self, "axes", None) is None:
            return original(self)
        remembered = self.__dict__.get("_bookkit_ticks")
        if remembered is not None and remembered[0] == state(self):
            return list(remembered[1])
        ticks = original(self)
        self._bookkit_ticks = (state(self), tuple(ticks))
        return ticks

    import functools

    def in_a_pass(method):
        @functools.wraps(method)     # keeps matplotlib's marks (`_supports_rasterization`)
        def run(self, *args, **kwargs):
            outer = _PASS[0]
            _PASS[1] += 1
            _PASS[0] = _PASS[1]
            try:
                return method(self, *args, **kwargs)
            finally:
                _PASS[0] = outer
        return run

    # The boxes of those ticks' labels, likewise: an axis measures its tick labels for its
    # tight box and again to place its label (`_get_tick_boxes_siblings`), then once more for
    # each when drawn; ~4 % of drawing the book's figures. Within a pass the same ticks (the
    # memo above) on the same canvas place have the same boxes; they are handed out as copies.
    boxes_of = getattr(Axis, "_get_ticklabel_bboxes", None)

    def ticklabel_bboxes(self, ticks, renderer):
        if _PASS[0] is None or getattr(self, "axes", None) is None:
            return boxes_of(self, ticks, renderer)
        # the ticks and the renderer are kept with the boxes: compared by identity
        key = (state(self), id(renderer))
        remembered = self.__dict__.get("_bookkit_ticklabel_bboxes")
        if remembered is None or remembered[0] != key or remembered[1] != tuple(ticks):
            found = boxes_of(self, ticks, renderer)
            remembered = self._bookkit_ticklabel_bboxes = (
                key, tuple(ticks), tuple(b.frozen() for b in found[0]),
                tuple(b.frozen() for b in found[1]), renderer)
            return found
        return [b.frozen() for b in remembered[2]], [b.frozen() for b in remembered[3]]

    update_ticks._bookkit_shared = True
    update_ticks.__wrapped__ = original
    Axis._update_ticks = update_ticks
    if boxes_of is not None:
        ticklabel_bboxes._bookkit_shared = True
        ticklabel_bboxes.__wrapped__ = boxes_of
        Axis._get_ticklabel_bboxes = ticklabel_bboxes
    Figure.tight_layout = in_a_pass(Figure.tight_layout)
    Figure.draw = in_a_pass(Figure.draw)


def _copy_markers_cheaply(markers) -> None:
    """`MarkerStyle(other)` rebuilt from the other's marker name instead of deep-copying it.

    Every new tick copies its lines' markers from the axis' first tick (`Line2D.update_from`),
    and matplotlib copies a marker with `copy.deepcopy` of its state (paths, transforms, and
    a bound method that deep-copies the marker once more): ~6 % of drawing a plot. A marker
    named by a string or number (every tick's, every line's) is fully determined by that
    name, its fill style and its cap and join styles, so it is built from them, as matplotlib
    builds the original. Anything else (paths, vertices, math, a transform) is deep-copied as
    before. Private method, hence the guard."""
    MarkerStyle = getattr(markers, "MarkerStyle", None)
    original = getattr(MarkerStyle, "_set_marker", None)
    if original is None or getattr(original, "_bookkit_shared", False):
        return
    from collections.abc import Hashable

    def set_marker(self, marker):
        if isinstance(marker, MarkerStyle):
            name = marker.__dict__.get("_marker")
            if (marker.__dict__.get("_user_transform", 0) is None
                    and isinstance(name, Hashable) and not isinstance(name, bool)
                    and not (isinstance(name, str) and "$" in name)
                    and name in MarkerStyle.markers):
                self._user_transform = None
                self._user_capstyle = marker._user_capstyle
                self._user_joinstyle = marker._user_joinstyle
                self._fillstyle = marker._fillstyle
                return original(self, name)
        return original(self, marker)

    set_marker._bookkit_shared = True
    set_marker.__wrapped__ = original
    MarkerStyle._set_marker = set_marker


def _copy_new_ticks_from_a_template(axis_module) -> None:
    """An axis' second and later ticks copied from a tick built once, instead of built anew.

    A plot's axes need ~20-70 ticks each (a log axis' minor ticks are most of them), and
    matplotlib builds each new one from the axis' keywords and rcParams: three `Line2D` and
    two `Text`, property by property (~15 % of drawing the book's figures under cProfile),
    then copies the first tick's properties onto it (`_copy_tick_props`). Here the tick
    matplotlib would build is built once per axis and kind (major, minor) and kept aside,
    never drawn; a new tick is a shallow copy of it with callbacks of its own, then
    `_copy_tick_props` runs as matplotlib runs it. The kept tick is used only while what
    building one reads is the same: the axis' tick keywords and every rcParams value read
    while it was built (recorded then). Anything else (a polar axis' own ticks, keywords that
    do not compare) is built by matplotlib. Private methods, hence the guard; the book's 585
    images are byte for byte those of matplotlib's own way (bench/PROFILE.md, eleventh round)."""
    Axis = getattr(axis_module, "Axis", None)
    originals = (getattr(Axis, "get_major_ticks", None), getattr(Axis, "get_minor_ticks", None))
    if None in originals or getattr(originals[0], "_bookkit_shared", False) \
            or not hasattr(Axis, "_get_tick") or not hasattr(Axis, "_copy_tick_props"):
        return
    import matplotlib
    from matplotlib import cbook
    RcParams = type(matplotlib.rcParams)
    base_get_tick = Axis._get_tick

    def build_template(axis, major: bool):
        """matplotlib's new tick, and the rcParams keys it read (what the copies depend on)."""
        read: dict = {}
        inner = RcParams._get

        def recording(self, key):
            value = inner(self, key)
            if self is matplotlib.rcParams:
                read.setdefault(key, value)
            return value

        RcParams._get = recording
        try:
            tick = base_get_tick(axis, major=major)
        finally:
            RcParams._get = inner
        kw = axis._major_tick_kw if major else axis._minor_tick_kw
        return tick, tuple(read), tuple(read.values()), dict(kw)

    def still_valid(axis, major: bool, kept) -> bool:
        _tick, keys, values, kw = kept
        now = axis._major_tick_kw if major else axis._minor_tick_kw
        rc = matplotlib.rcParams
        try:
            return bool(now == kw) and all(bool(rc._get(k) == v) for k, v in zip(keys, values))
        except Exception:           # values that do not compare (arrays): build it anew
            return False

    def clone(artist):
        new = object.__new__(type(artist))
        new.__dict__.update(artist.__dict__)
        new._callbacks = cbook.CallbackRegistry(signals=["pchanged"])
        return new

    def template_of(axis, major: bool):
        """The kept tick of this axis and kind, built again if what it read has changed."""
        if type(axis)._get_tick is not base_get_tick:
            return None
        slot = "_bookkit_major_template" if major else "_bookkit_minor_template"
        kept = axis.__dict__.get(slot)
        if kept is None or not still_valid(axis, major, kept):
            kept = build_template(axis, major)
            axis.__dict__[slot] = kept
        return kept[0]

    def new_tick(axis, major: bool, template):
        if template is None:
            return axis._get_tick(major=major)
        tick = clone(template)
        # A part's other mutable objects are replaced by `_copy_tick_props`, which always
        # follows (`Line2D.update_from` sets a new marker, `Text.update_from` copies the font
        # properties); its line data and text are set anew before a tick is drawn.
        for name in ("tick1line", "tick2line", "gridline", "label1", "label2"):
            setattr(tick, name, clone(getattr(template, name)))
        return tick

    def ticks_of(kind: str, major: bool, original):
        def get_ticks(self, numticks=None):
            if numticks is None:
                numticks = len(self.get_majorticklocs() if major else self.get_minorticklocs())
            ticks = getattr(self, kind)
            # nothing in the loop changes what a tick is built from: one check per call
            template = template_of(self, major) if len(ticks) < numticks else None
            while len(ticks) < numticks:
                tick = new_tick(self, major, template)
                ticks.append(tick)
                self._copy_tick_props(ticks[0], tick)
            return ticks[:numticks]
        get_ticks.__name__, get_ticks.__doc__ = original.__name__, original.__doc__
        get_ticks._bookkit_shared = True
        get_ticks.__wrapped__ = original
        return get_ticks

    Axis.get_major_ticks = ticks_of("majorTicks", True, originals[0])
    Axis.get_minor_ticks = ticks_of("minorTicks", False, originals[1])


def _compact_dot_hatches(hatch) -> None:
    """The dotted hatch ('.', the diagrams' third fill) drawn as circles of four cubic Béziers
    with their points on a 1/100 pt grid of matplotlib's 72 pt hatch tile.

    matplotlib draws each dot as its eight-segment unit circle, written with six decimals: a
    '..' tile holds 163 dots, and its pattern was ~68 kB of the SVG, 28 % of all the site's
    figure bytes (414 of 927 images carry it; a reader's page fetches it once per image).
    Four segments are the usual circle (its radius off by at most 0.03 %), and the dots are
    0.6 pt wide, so neither the segments nor the grid can be seen at any zoom a reader uses;
    the tile is then 23 kB instead of 68 (in the PDF too). Private, hence the guard."""
    Dots = getattr(hatch, "SmallFilledCircles", None)
    if Dots is None or getattr(Dots.set_vertices_and_codes, "_bookkit_shared", False):
        return
    import numpy as np
    from matplotlib.path import Path as MplPath
    k = 4 / 3 * (2 ** 0.5 - 1)       # the control-point distance of a quarter circle
    points = [(1, 0), (1, k), (k, 1), (0, 1), (-k, 1), (-1, k), (-1, 0), (-1, -k), (-k, -1),
              (0, -1), (k, -1), (1, -k), (1, 0), (1, 0)]
    vertices = np.array(points, dtype=float)
    codes = np.array([MplPath.MOVETO] + [MplPath.CURVE4] * 12 + [MplPath.CLOSEPOLY],
                     dtype=MplPath.code_type)
    original_init, original_fill = Dots.__init__, Dots.set_vertices_and_codes

    def __init__(self, hatch_spec, density):
        original_init(self, hatch_spec, density)
        self.shape_vertices, self.shape_codes = vertices, codes
        self.num_vertices = self.num_shapes * len(vertices)

    def set_vertices_and_codes(self, out_vertices, out_codes):
        original_fill(self, out_vertices, out_codes)
        np.round(out_vertices * 7200, out=out_vertices)    # 72 pt tile, 1/100 pt
        out_vertices /= 7200

    set_vertices_and_codes._bookkit_shared = True
    __init__.__wrapped__, set_vertices_and_codes.__wrapped__ = original_init, original_fill
    Dots.__init__, Dots.set_vertices_and_codes = __init__, set_vertices_and_codes


def _cheaper_patch_limits(axes_base, patches) -> None:
    """The data limits of an added patch computed without the transform algebra.

    `add_patch` widens the Axes' data limits by the patch's outline: the extrema of its path's
    Bézier pieces (the same for every rectangle: the unit square) moved by `patch transform +
    data transform - data transform`, which matplotlib simplifies symbolically to the patch
    transform, building and walking transform trees for every patch: ~15 % of drawing a
    diagram (hundreds of cells and boxes). For a patch in data coordinates on a plain Axes
    (the case the simplification reaches) this uses the patch transform directly, and
    remembers the extrema of matplotlib's shared read-only paths (the unit square and
    circle). Every other patch goes through matplotlib's own code. Private, hence the guard.
    """
    Axes, Patch, Rectangle = (getattr(axes_base, "_AxesBase", None),
                              getattr(patches, "Patch", None), getattr(patches, "Rectangle", None))
    original = getattr(Axes, "_update_patch_limits", None)
    if original is None or getattr(original, "_bookkit_shared", False):
        return
    import numpy as np
    plain_transform = Patch.get_transform
    extrema: dict = {}

    def update_patch_limits(self, patch):
        if (self.name != "rectilinear" or patch.__dict__.get("_transform") is not self.transData
                or type(patch).get_transform is not plain_transform):
            return original(self, patch)
        if isinstance(patch, Rectangle) and not patch.get_width() and not patch.get_height():
            return None
        path = patch.get_path()
        found = extrema.get(id(path)) if path.readonly else None
        if found is None or found[0] is not path:
            vertices = [curve([0, *curve.axis_aligned_extrema()[1], 1])
                        for curve, _ in path.iter_bezier(simplify=False)]
            if not vertices:
                return original(self, patch)
            found = (path, np.vstack(vertices))
            if path.readonly:
                extrema[id(path)] = found
        xys = patch.get_patch_transform().transform(found[1])
        self.update_datalim(xys, updatex=True, updatey=True)
        return None

    update_patch_limits._bookkit_shared = True
    update_patch_limits.__wrapped__ = original
    Axes._update_patch_limits = update_patch_limits


def _share_glyph_layouts(textpath) -> None:
    """A string's glyphs (which, where, their outlines) laid out once per process and font.

    The SVG writer draws text as paths: for every text, FreeType lays the string out again
    and loads each glyph's outline, though the tick labels and words repeat across figures
    (~6 % of drawing a diagram). The layout depends on the font object (its files and size,
    fixed by the writer), the string and the OpenType features and language; it keys this
    memo. A string with a missing glyph is not remembered (it is laid out again each time,
    as matplotlib does, with whatever warning matplotlib gives). Which outlines a figure's SVG defines is still decided per
    figure (`glyph_map`), as before.

    A new string is shaped (raqm), but each glyph's outline is loaded once per process and
    font (`outlines`): FreeType parsing a CJK outline took a third of laying out a new
    Chinese string, and the same few hundred characters recur across the book's strings. The
    outline depends only on the font object (its size is set by `TextToPath._get_font`
    before every call), the glyph and the load flags, which are fixed here (no hinting, as
    `_text_helpers.layout` loads them). Written by hand; `get_glyphs_with_font` is public,
    `FT2Font._layout` (which `_text_helpers.layout` wraps) is not, hence the fallback."""
    TextToPath = getattr(textpath, "TextToPath", None)
    original = getattr(TextToPath, "get_glyphs_with_font", None)
    if original is None or getattr(original, "_bookkit_shared", False):
        return
    from collections import OrderedDict
    from matplotlib import _text_helpers
    from matplotlib.ft2font import LoadFlags
    memo: dict = {}
    outlines: dict = {}   # (id(FT2Font), glyph index) -> (the font object, glyph repr, outline)

    def shaped(self, font, s, features, language):
        """(glyph repr, x, y, outline) of each glyph of `s`, as `_text_helpers.layout` and
        matplotlib's `get_glyphs_with_font` give them."""
        if not hasattr(font, "_layout"):
            return [(self._get_glyph_repr(item.ft_object, item.glyph_index), item.x, item.y,
                     item.ft_object.get_path(), item.glyph_index)
                    for item in _text_helpers.layout(s, font, features=features,
                                                     language=language)]
        items = []
        for item in font._layout(s, LoadFlags.NO_HINTING, features=features,
                                 language=language):
            ft_object, index = item.ft_object, item.glyph_index
            known = outlines.get((id(ft_object), index))
            if known is None or known[0] is not ft_object:
                ft_object.load_glyph(index, flags=LoadFlags.NO_HINTING)
                known = outlines[(id(ft_object), index)] = (
                    ft_object, self._get_glyph_repr(ft_object, index), ft_object.get_path())
            items.append((known[1], item.x, item.y, known[2], index))
        return items

    def get_glyphs_with_font(self, font, s, glyph_map=None, return_new_glyphs_only=False, *,
                             features=None, language=None):
        key = (id(font), s, tuple(features) if features else features,
               language if isinstance(language, (str, type(None))) else repr(language))
        found = memo.get(key)
        if found is None or found[0] is not font:
            laid = shaped(self, font, s, features, language)
            complete = all(index != 0 for *_, index in laid)
            found = (font, tuple(item[:4] for item in laid))
            if complete:
                memo[key] = found     # the font object is kept, so its id is not reused
        if glyph_map is None:
            glyph_map = OrderedDict()
        glyph_map_new = OrderedDict() if return_new_glyphs_only else glyph_map
        for glyph_repr, _, _, path in found[1]:
            if glyph_repr not in glyph_map:
                glyph_map_new[glyph_repr] = path
        return ([(glyph_repr, x, y, 1.) for glyph_repr, x, y, _ in found[1]],
                glyph_map_new, [])

    get_glyphs_with_font._bookkit_shared = True
    get_glyphs_with_font.__wrapped__ = original
    TextToPath.get_glyphs_with_font = get_glyphs_with_font


def _number(value: float) -> str:
    """A coordinate as matplotlib's SVG writer rounds it (six decimals, no trailing zeros)."""
    if value == int(value):
        return str(int(value))
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


#: matplotlib's LINETO, CURVE3 and CURVE4 codes -> SVG's relative commands
_RELATIVE_COMMANDS = {2: "l", 3: "q", 4: "c"}


def _relative_path_data(path) -> str:
    """SVG path data of `path` in relative commands with no separator a parser does not need
    ("M4653 2053q-272 0-427-231"): the same points matplotlib writes absolutely, one command
    and its coordinates a line ("M 4653 2053 \\nQ 4381 2053 4226 1822 \\n"). Glyph outlines were
    40 % of the site's figure bytes, and every figure of a page defines its own glyphs (an
    SVG image cannot share definitions with another); a glyph's offsets are shorter numbers
    than its positions in the font's 26.6 units. Those positions are integers, so the offsets
    are exact; a path with fractional points would carry up to 5e-7 of rounding a segment
    along its outline, far below a pixel. Written by hand: matplotlib writes only absolute
    commands, and the path-data libraries on PyPI parse more than they write."""
    out: list[str] = []
    start = current = (0.0, 0.0)

    def coordinates(points) -> str:
        text = ""
        for number in points:
            part = _number(number)
            text += part if (not text or part[0] == "-") else " " + part
        return text

    for vertices, code in path.iter_segments(simplify=False, curves=True):
        if code == 79:                                   # CLOSEPOLY
            out.append("z")
            current = start
            continue
        x, y = vertices[-2], vertices[-1]
        if code == 1:                                    # MOVETO: absolute, a new subpath
            out.append("M" + coordinates((x, y)))
            start = (x, y)
        else:
            offsets = [v - current[i % 2] for i, v in enumerate(vertices)]
            out.append(_RELATIVE_COMMANDS[code] + coordinates(offsets))
        current = (x, y)
    return "".join(out)


def _share_glyph_outlines_in_svg(backend_svg) -> None:
    """Each glyph outline's SVG path data written once per process, not once per figure.

    An SVG figure defines the outline of every glyph it uses (`<defs><path d=...>`); matplotlib
    converts the outline to path data again in every figure, though the outlines now come
    from one memo (`_share_glyph_layouts`), the same array objects for the same glyph. The
    path data depends only on the outline (no transform, no clipping, no simplification);
    the memo keys on the glyph and its outline's identity (and keeps the outline alive, so
    the identity is not reused). Mathtext outlines, new arrays each time, miss the memo and
    are converted each time; it is emptied past a size. The data is written in relative
    commands (`_relative_path_data`): the same outline in ~0.6x the bytes. Written by hand;
    the method is private, hence the guard (and matplotlib's version keys the figure
    cache)."""
    RendererSVG = getattr(backend_svg, "RendererSVG", None)
    original = getattr(RendererSVG, "_update_glyph_map_defs", None)
    if original is None or getattr(original, "_bookkit_shared", False) or not all(
            hasattr(RendererSVG, name) for name in ("_adjust_glyph_repr", "_convert_path")):
        return
    from matplotlib.path import Path
    scale = backend_svg._generate_transform([("scale", (1 / 64,))])
    data: dict = {}

    def _update_glyph_map_defs(self, glyph_map_new):
        writer = self.writer
        if glyph_map_new:
            writer.start("defs")
            for glyph_repr, (vertices, codes) in glyph_map_new.items():
                glyph_repr = self._adjust_glyph_repr(glyph_repr)
                key = (glyph_repr, id(vertices))
                known = data.get(key)
                if known is None or known[0] is not vertices:
                    if len(data) > 65536:
                        data.clear()
                    # x64 to go back to FreeType's internal (integral) units, as matplotlib
                    known = data[key] = (vertices, _relative_path_data(
                        Path(vertices * 64, codes)))
                writer.element("path", id=glyph_repr, d=known[1], transform=scale)
            writer.end("defs")
            self._glyph_map.update(glyph_map_new)

    _update_glyph_map_defs._bookkit_shared = True
    _update_glyph_map_defs.__wrapped__ = original
    RendererSVG._update_glyph_map_defs = _update_glyph_map_defs


def _write_glyph_uses_once(backend_svg) -> None:
    """The `<use>` elements that place a string's glyphs, written once per process for each
    string layout and nesting depth instead of element by element every time.

    An SVG figure writes each text as its glyphs: one `<use xlink:href="#glyph"
    transform="translate(x y) scale(s)"/>` per glyph, made by `_XMLWriter.element` with a
    transform string and two escaped attributes each (~10 % of drawing a diagram of short
    labels). The lines depend only on the glyphs and their positions (the string's layout,
    the same for the same string and font) and on the indentation (the depth of open
    elements); they key this memo, and the lines are written at once where the writer would
    have written them. Everything else is matplotlib's `_draw_text_as_path`, copied (math
    text goes to it unchanged). Written by hand: matplotlib has no hook for it; the method and
    the writer's internals are private, hence the guard, matplotlib's version in the figure
    cache key, and a test holding the bytes equal with and without this."""
    RendererSVG = getattr(backend_svg, "RendererSVG", None)
    original = getattr(RendererSVG, "_draw_text_as_path", None)
    writer_class = getattr(backend_svg, "_XMLWriter", None)
    if (original is None or getattr(original, "_bookkit_shared", False) or writer_class is None
            or not all(hasattr(writer_class, name) for name in (
                "_XMLWriter__flush", "start", "end", "comment"))
            or not all(hasattr(backend_svg, name) for name in (
                "_generate_transform", "_generate_css", "_short_float_fmt",
                "_quote_escape_attrib", "rgb2hex"))):
        return
    transform_of, css_of = backend_svg._generate_transform, backend_svg._generate_css
    short, quote, rgb2hex = (backend_svg._short_float_fmt, backend_svg._quote_escape_attrib,
                             backend_svg.rgb2hex)
    from matplotlib.path import Path
    lines: dict = {}

    def _draw_text_as_path(self, gc, x, y, s, prop, angle, ismath, mtext=None):
        if ismath:
            return original(self, gc, x, y, s, prop, angle, ismath, mtext)
        writer = self.writer
        writer.comment(s)
        text2path = self._text2path
        color = rgb2hex(gc.get_rgb())
        fontsize = prop.get_size_in_points()
        if mtext is not None:
            features = mtext.get_fontfeatures()
            language = mtext.get_language()
        else:
            features = language = None
        style = {}
        if color != '#000000':
            style['fill'] = color
        alpha = gc.get_alpha() if gc.get_forced_alpha() else gc.get_rgb()[3]
        if alpha != 1:
            style['opacity'] = short(alpha)
        font_scale = fontsize / text2path.FONT_SCALE
        writer.start('g', style=css_of(style), transform=transform_of([
            ('translate', (x, y)), ('rotate', (-angle,)), ('scale', (font_scale, -font_scale))]))
        font = text2path._get_font(prop)
        glyph_info, glyph_map_new, rects = text2path.get_glyphs_with_font(
            font, s, features=features, language=language, glyph_map=self._glyph_map,
            return_new_glyphs_only=True)
        self._update_glyph_map_defs(glyph_map_new)
        if glyph_info:
            # `element` indents a child of the open elements by their number (`start` below)
            depth = len(writer._XMLWriter__tags)
            key = (depth, *glyph_info)
            text = lines.get(key)
            if text is None:
                if len(lines) > 65536:
                    lines.clear()
                indent = " " * min(depth, 64)
                parts = []
                for glyph_repr, gx, gy, scale in glyph_info:
                    where = transform_of([('translate', (gx, gy)), ('scale', (scale,))])
                    # as `start` does: an empty attribute (the first glyph, at 0 0) is left out
                    parts.append(f"{indent}<use xlink:href={quote(f'#{glyph_repr}')}"
                                 + (f" transform={quote(where)}" if where else "") + "/>\n")
                text = lines[key] = "".join(parts)
            writer._XMLWriter__flush()
            writer._XMLWriter__write(text)
        for verts, codes in rects:
            writer.element('path', d=self._convert_path(Path(verts, codes), simplify=False))
        writer.end('g')

    _draw_text_as_path._bookkit_shared = True
    _draw_text_as_path.__wrapped__ = original
    RendererSVG._draw_text_as_path = _draw_text_as_path


def _share_font_lookups(font_manager) -> None:
    """`FontManager._find_fonts_by_props` answered from a memo when every family was found.

    Each text drawn asks for its fonts: a copy of its properties per family and a lookup each
    (~3 % of drawing a figure). The answer depends on the properties, the arguments, the
    font settings (as matplotlib keys its own `findfont` memo) and the fonts registered; they
    key this memo. A lookup that missed a family logs a warning (the tofu check) and is not
    remembered. Private method, hence the guard."""
    FontManager = getattr(font_manager, "FontManager", None)
    original = getattr(FontManager, "_find_fonts_by_props", None)
    if original is None or getattr(original, "_bookkit_shared", False):
        return
    import matplotlib
    rc = matplotlib.rcParams
    FontProperties = font_manager.FontProperties
    names = [f"font.{key}" for key in ("family", "style", "variant", "weight", "stretch",
                                       "size", "serif", "sans-serif", "cursive", "fantasy",
                                       "monospace")]
    memo: dict = {}

    def find_fonts_by_props(self, prop, fontext="ttf", directory=None,
                            fallback_to_default=True, rebuild_if_missing=True):
        if not isinstance(prop, FontProperties):
            return original(self, prop, fontext, directory, fallback_to_default,
                            rebuild_if_missing)
        key = (prop, fontext, directory, fallback_to_default, rebuild_if_missing, id(self),
               len(self.ttflist), os.environ.get("MPL_IGNORE_SYSTEM_FONTS"),
               tuple(tuple(v) if isinstance(v, list) else v for v in map(rc.__getitem__, names)))
        found = memo.get(key)
        if found is None:
            found = original(self, prop, fontext, directory, fallback_to_default,
                             rebuild_if_missing)
            if len(found) == len(prop.get_family()):       # every family found, no warning
                memo[(prop.copy(),) + key[1:]] = found
        return list(found)

    find_fonts_by_props._bookkit_shared = True
    find_fonts_by_props.__wrapped__ = original
    FontManager._find_fonts_by_props = find_fonts_by_props


def _hide_unused_axis(fig) -> None:
    """The x and y `Axis` of an Axes drawn with its axis off (every diagram) made invisible.

    They are never drawn, yet matplotlib still computed their ticks: placing a title asks
    every Axes' y axis for its tight box (tick locations, labels and their extents), and the
    list of the figure's texts created ticks for them. ~10 % of drawing a diagram. Hidden,
    they are skipped; what is drawn is the same, except a title no longer moves up for an
    offset text (`1e9`) of such an axis, which was never drawn either."""
    stack = list(fig.axes)
    while stack:
        ax = stack.pop()
        stack.extend(getattr(ax, "child_axes", ()))
        if getattr(ax, "name", "") == "rectilinear" and not ax.axison:
            ax.xaxis.set_visible(False)
            ax.yaxis.set_visible(False)


def _own_margins(fig) -> bool:
    """Whether the figure's script set its subplot margins or spacing itself (they differ
    from matplotlib's defaults, `figure.subplot.*`)."""
    import matplotlib
    params = fig.subplotpars
    return any(abs(getattr(params, k) - matplotlib.rcParams[f"figure.subplot.{k}"]) > 1e-9
               for k in ("left", "right", "bottom", "top", "wspace", "hspace"))


def _texts_of(artist, out: list) -> list:
    """`artist.findobj(Text)`'s texts in its order, without creating ticks for a hidden
    axis (`Axis.get_children` makes one per tick location, only to be listed)."""
    from matplotlib.axis import Axis
    from matplotlib.text import Text
    if isinstance(artist, Axis) and not artist.get_visible():
        ticks = [t for name in ("majorTicks", "minorTicks")
                 for t in artist.__dict__.get(name, ())]       # those that exist, no new one
        children = [artist.label, artist.offsetText, *ticks]
    else:
        children = artist.get_children()
    for child in children:
        _texts_of(child, out)
    labels = getattr(artist, "text_list", None)    # a diagram's `Labels` (diagrams/draw.py)
    if labels is not None:
        out.extend(s for s in labels() if s.strip())
    if isinstance(artist, Text):
        text = artist.get_text()
        if text.strip():
            out.append(text)
    return out


def _setup_matplotlib():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.mathtext
    import matplotlib.text
    _share_mathtext_layouts(matplotlib.mathtext)
    _share_text_metrics(matplotlib.text)
    _share_text_layouts(matplotlib.text)
    import matplotlib.axis
    import matplotlib.figure
    import matplotlib.markers
    _share_ticks_within_a_pass(matplotlib.axis, matplotlib.figure)
    _copy_markers_cheaply(matplotlib.markers)
    _copy_new_ticks_from_a_template(matplotlib.axis)
    import matplotlib.axes._base
    import matplotlib.patches
    _cheaper_patch_limits(matplotlib.axes._base, matplotlib.patches)
    import matplotlib.hatch
    _compact_dot_hatches(matplotlib.hatch)
    import matplotlib.textpath
    _share_glyph_layouts(matplotlib.textpath)
    import matplotlib.backends.backend_svg
    _share_glyph_outlines_in_svg(matplotlib.backends.backend_svg)
    _write_glyph_uses_once(matplotlib.backends.backend_svg)
    from matplotlib import font_manager
    _share_font_lookups(font_manager)
    # Register the CJK fonts by file: a font cache made before they were installed would
    # otherwise make matplotlib fall back silently to a font without CJK glyphs (tofu). Once per
    # process: `addfont` appends the faces again and empties matplotlib's font-lookup memo,
    # so each figure drawn in a worker made every later font lookup score a longer list from
    # scratch (20 more faces a figure).
    known = {entry.fname for entry in font_manager.fontManager.ttflist}
    for path in NOTO_CJK_FILES:
        if os.path.exists(path) and path not in known:
            font_manager.fontManager.addfont(path)
    import matplotlib.pyplot as plt
    plt.rcParams.update({
        "svg.hashsalt": "bookkit",          # deterministic element ids
        "svg.fonttype": "path",             # readers need no CJK font to see the figure
        "pdf.fonttype": 3,            # Type 3: 25x faster than subsetting the CJK TTC (Type 42)
        "axes.unicode_minus": False,
        "figure.dpi": 100,
        "font.size": 10,
    })
    return plt


_WARM: list[bool] = []


def warm_up_drawing() -> None:
    """Load what drawing a figure needs (matplotlib, its set-up above, the diagram vocabulary,
    each figure language's fonts) into this process, once.

    For a long-lived process (`--serve`): the workers that draw a figure are forked from it
    at each rebuild, and a worker forked from a cold process spent ~1.3 s importing and
    setting up matplotlib before drawing a saved diagram (~0.5 s). Memos only: a figure
    drawn after this has the same bytes as one drawn without it."""
    if _WARM:
        return
    _WARM.append(True)
    import io
    plt = _setup_matplotlib()
    import bookkit.diagrams  # noqa: F401 - the vocabulary the diagram scripts import
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure
    family = plt.rcParams["font.family"]
    try:
        for families in FONT_FAMILIES.values():
            plt.rcParams["font.family"] = families
            fig = Figure(figsize=(1, 1), dpi=72)
            FigureCanvasSVG(fig)
            # CJK only where the language's fonts have it: a missing glyph would warn
            cjk = any("CJK" in name for name in families)
            fig.text(0.1, 0.5, "Ag 0.5 GB/s" + (" 带宽 頻寬" if cjk else ""), fontsize=8)
            fig.savefig(io.BytesIO(), format="svg", metadata=SAVE_METADATA["svg"])
    finally:
        plt.rcParams["font.family"] = family


def diagrams_digest() -> str:
    """Digest of the diagram vocabulary's sources (`bookkit/diagrams/`), part of the cache key
    of every figure whose script imports from bookkit: the vocabulary is bookkit's, not a local
    module the dependency recorder sees (the worker has it imported already), yet a change to
    it changes the drawings. Plain plots keep their keys."""
    global _DIAGRAMS_DIGEST
    if _DIAGRAMS_DIGEST is None:
        h = hashlib.sha256()
        for path in sorted((Path(__file__).resolve().parents[1] / "diagrams").glob("*.py")):
            h.update(path.name.encode() + b"\0" + path.read_bytes())
        _DIAGRAMS_DIGEST = h.hexdigest()[:16]
    return _DIAGRAMS_DIGEST


_DIAGRAMS_DIGEST: str | None = None


def _knows_numbers(lang: str) -> bool:
    return find_language(lang) is not None


def _first(langs: tuple[str, ...], table) -> str | None:
    return next((lang for lang in langs if lang in table), None)


class _FigureFontLog(logging.Handler):
    """A figure's listener for missing-glyph warnings (`draw_figure`)."""


def draw_figure(script: str, lang: str, root: str,
                formats: tuple[str, ...] = ("svg", "pdf"),
                fallbacks: tuple[str, ...] = (), words: dict | None = None,
                number_lang: str = "", inputs: dict | None = None) -> JobResult:
    """Worker body: import the script, draw it for `lang` with `words` (its table of the
    edition's figures.yml; a script of another book may still carry a STRINGS table per
    language, the nearest of `lang` and `fallbacks` then used), return the bytes of each
    format."""
    import importlib.util
    import io
    import sys

    if root not in sys.path:
        sys.path.insert(0, root)
    os.chdir(root)   # relative paths in cells and figure scripts mean the book root (forked job)
    recorder = DependencyRecorder(root, ignore=(os.path.join(root, "build"),
                                                os.path.join(root, ".cache")))
    recorder.files.add(os.path.abspath(script))
    plt = _setup_matplotlib()
    plt.rcParams["font.family"] = FONT_FAMILIES[_first((lang, *fallbacks), FONT_FAMILIES)]
    problems: list[str] = []

    class FontLog(_FigureFontLog):
        def emit(self, record):
            problems.append(record.getMessage())

    handler = FontLog(level=logging.WARNING)
    font_log = logging.getLogger("matplotlib.font_manager")
    for last in [h for h in font_log.handlers if isinstance(h, _FigureFontLog)]:
        font_log.removeHandler(last)   # the figure before's: a worker draws many (`--serve`: for hours)
    font_log.addHandler(handler)
    spec = importlib.util.spec_from_file_location(f"figure_{abs(hash(script))}", script)
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spec.loader.exec_module(module)
        strings = getattr(module, "STRINGS", None)
        if words is None and isinstance(strings, dict):
            table = _first((lang, *fallbacks), strings)
            if table is None:
                return JobResult(ok=False, error=f"{script}: STRINGS has no `{lang}` table "
                                 "(one per edition language, or one for its fallback's: "
                                 + ", ".join((lang, *fallbacks)) + ")")
            keysets = {k: set(v) for k, v in strings.items()}
            if len({frozenset(s) for s in keysets.values()}) > 1:
                return JobResult(ok=False, error=f"{script}: STRINGS tables have different keys: "
                                 + "; ".join(f"{k}: {sorted(v)}" for k, v in keysets.items()))
            words = strings[table]
        from bookkit.diagrams.words import FigureText
        if not number_lang:
            number_lang = next((x for x in (lang, *fallbacks) if _knows_numbers(x)), "en")
        t = FigureText(words or {}, lang, number_lang)
        t.inputs = dict(inputs or {})
        size = getattr(module, "SIZE", (6.4, 3.6))
        from matplotlib.backends.backend_svg import FigureCanvasSVG
        from matplotlib.figure import Figure
        # No pyplot figure manager (no script uses pyplot), and an SVG canvas: `tight_layout`
        # then measures the text with the SVG writer's renderer, so the extents measured for
        # the layout are those the drawing uses (the shared memo above) instead of a second,
        # hinted set from Agg; the PDF is drawn from the same layout.
        # 72 dpi, the SVG and PDF writers' own: the layout is measured at the dpi it is drawn at.
        fig = Figure(figsize=size, dpi=72)
        FigureCanvasSVG(fig)
        module.draw(fig, t)
        describe = getattr(module, "describe", None)
        description = str(describe(t)) if callable(describe) else ""
        _hide_unused_axis(fig)
        # A script that set its own margins (`fig.subplots_adjust`: room for a figure legend,
        # which the tight layout does not see) keeps them; the others are laid out tightly.
        if not _own_margins(fig):
            fig.tight_layout()
        # `tight_layout` leaves a placeholder layout engine behind, and with any engine set,
        # savefig draws the whole figure once more (without rendering) before it renders: 15 %
        # of drawing the book's figures, for the same bytes. None: the layout is done.
        fig.set_layout_engine(None)
        saved = {}
        for fmt in formats:
            saved[fmt] = io.BytesIO()
            fig.savefig(saved[fmt], format=fmt, metadata=SAVE_METADATA[fmt])
        texts = tuple(_texts_of(fig, []))
    for w in caught:
        message = str(w.message)
        if "Glyph" in message or "missing from" in message or "findfont" in message:
            problems.append(message)
    if problems:
        return JobResult(ok=False, error=f"{script}: [{lang}] missing glyph or font: "
                         + problems[0] + " (install fonts-noto-cjk; use only characters the "
                         "Noto CJK and DejaVu fonts cover)")
    from bookkit.util.cache import FileHasher
    value = {**{fmt: data.getvalue() for fmt, data in saved.items()}, "texts": texts,
             "description": description, "bound": tuple(t.bound)}
    if "svg" in value:
        # a short prefix: ids are referenced by every glyph of the text drawn as paths
        value["site"] = themed_svg(value["svg"], "f" + hashlib.sha256(
            f"{Path(script).stem}|{lang}".encode()).hexdigest()[:6])
    return JobResult(ok=True, value=value, deps=recorder.collect(FileHasher()))


#: keys the cached SVG entries: bump when what is stored for a figure changes ("relative-
#: glyphs-2": glyph outlines in relative commands, `_relative_path_data`)
SVG_FORMAT = "relative-glyphs-2"
#: keys every cached figure: bump when the way a figure is drawn changes its output (the
#: seventh round's memos hid the unused axes of axis-off Axes, which moved a few titles;
#: "dots-2": the dotted hatch's compact circles, `_compact_dot_hatches`; "own-margins-3": a
#: script's own `subplots_adjust` kept, `_own_margins`)
DRAWING = "own-margins-3"
#: new container objects between two runs of the cycle collector while a figure is drawn
#: (Python's default: 700); see `draw_in_worker`
FIGURE_GC_THRESHOLD = 5000


def draw_in_worker(script: str, lang: str, root: str, formats: tuple[str, ...],
                   fallbacks: tuple[str, ...], words: dict | None = None,
                   number_lang: str = "", inputs: dict | None = None) -> JobResult:
    """Worker body (`run_pool`): one figure, then no figure left open for the next one, which
    the same process draws, reusing the fonts, math layouts and libraries loaded for this one."""
    import gc
    # The cycle collector ran ~8 times a figure (every 700 new container objects: a figure
    # makes tens of thousands, artists, transforms, paths) and each run walked the figures'
    # live objects again: ~10 % of a figure's CPU. Within a figure it runs after 5,000 instead;
    # the figure's cycles are still freed, by the next runs (bench/PROFILE.md, twelfth round:
    # ~0.9x the CPU, ~10 % more peak memory in a process drawing the whole book).
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], FIGURE_GC_THRESHOLD), *thresholds[1:])
    try:
        return draw_figure(script, lang, root, formats, fallbacks, words, number_lang, inputs)
    finally:
        import matplotlib.pyplot as plt
        plt.close("all")
        gc.set_threshold(*thresholds)


# (script, language, formats, words, inputs, ...) -> (the words object, {format: cache key})
_KEYS_MEMO: dict[tuple, tuple] = {}


def _format_keys(task: FigureTask, code: bytes, task_formats: tuple[str, ...],
                 fallbacks: tuple[str, ...], font_lang: str) -> dict[str, str]:
    """{format: cache key} of a figure image drawn from the script's bytes `code`."""
    lang = task.lang
    # The fallbacks are part of the key only when there are some: the keys of editions
    # without fallbacks stay those of the caches already built.
    inputs = repr(sorted(task.inputs.items())) if task.inputs else ""
    # The keys again only when what they are made of changed: the script (the same bytes
    # object while its file is), the words (the same table object while figures.yml is),
    # the inputs. Encoding ~900 keys was a third of a --serve rebuild's figure stage.
    keys_of = (code, lang, task_formats, fallbacks, font_lang, id(task.words),
               task.number_lang, inputs)
    known = _KEYS_MEMO.get(keys_of)
    if known is not None and known[0] is task.words:
        return known[1]
    fmt_keys = {fmt: key_of("figure", DRAWING, code, lang, library_versions(),
                            FONT_FAMILIES[font_lang], fmt,
                            *((diagrams_digest(),) if b"bookkit" in code else ()),
                            *((SVG_FORMAT,) if fmt == "svg" else ()),
                            *([fallbacks] if fallbacks else []),
                            *(_words_key(task) if task.words is not None else ()),
                            *(("inputs", inputs) if task.inputs else ()))
                for fmt in task_formats}
    if len(_KEYS_MEMO) > 8192:
        _KEYS_MEMO.clear()
    _KEYS_MEMO[keys_of] = (task.words, fmt_keys)
    return fmt_keys


def _absolute(root: Path, deps: dict) -> tuple[tuple[str, str], ...]:
    """A figure's recorded dependencies as (absolute path, digest), joined once: checking
    ~900 images' dependencies each --serve rebuild spent 0.09 s in pathlib alone."""
    joined = tuple((str(root / dep), digest) for dep, digest in deps.items())
    if len(_ABSOLUTE) > 8192:
        _ABSOLUTE.clear()
    return _ABSOLUTE.setdefault(joined, joined)


#: one tuple for each set of dependencies `_absolute` made (their images share it)
_ABSOLUTE: dict[tuple, tuple] = {}


class EarlyDrawing:
    """`--serve`: a saved figure script drawn from the start of the rebuild, on the kept
    workers, while this process loads, runs and numbers the book (about one drawing of a
    diagram: ~0.15 s), instead of after.

    The items to draw come from the last build: what it handed, or would have handed,
    `run_pool` for each (figure, language). A script whose bytes changed since is started
    again with those items, unless its images for the new bytes are in the cache (an edit
    undone). The figure stage asks for the same items unless the words, inputs or languages
    changed too; `run_pool` takes an early result only for an equal item and drops the rest.
    Only a script's own edit is caught here: an edit of `calculations/` or of a figures.yml
    is drawn by the figure stage, as before."""

    def __init__(self) -> None:
        # "figure|lang" -> (task, its script's bytes then, (formats, fallbacks, font
        # language) of its cache keys, the run_pool item)
        self.known: dict[str, tuple[FigureTask, bytes, tuple, tuple]] = {}

    def remember(self, name: str, task: FigureTask, code: bytes, key_args: tuple,
                 item: tuple) -> None:
        self.known[name] = (task, code, key_args, item)

    def warm_up(self, kept: KeptWorkers, workers: int) -> list[str]:
        """Start the kept workers, when none runs yet, each drawing one figure of another
        language (its result unused): a `--serve` whose first build found every image in the
        cache has forked no worker, and a worker's first figures pay for what it then keeps
        (compiled modules, glyphs, text extents, tick templates): the first saved diagrams
        took ~0.9 s to reach the page instead of ~0.5 s. The names started."""
        if kept.slots:
            return []
        first: dict[str, tuple[str, tuple]] = {}
        for name, (task, _code, _key_args, item) in self.known.items():
            if not task.variant_of and task.lang not in first:
                first[task.lang] = (name, item)
        items = list(first.values())[:workers]
        if not items:
            return []
        warm_up_drawing()
        started = kept.start_early(items, draw_in_worker, workers, group=_draw_group)
        kept.drop_early()       # for no build: a build asking for the same item draws it
        return started

    def start(self, kept: KeptWorkers, langs: Collection[str], workers: int, cache: Cache,
              memo: dict) -> list[str]:
        """Start drawing the items of changed scripts in `langs` (all when empty), originals
        before what-if variants; the names started (one per idle worker: the rest wait for
        the figure stage)."""
        now: dict[Path, bytes | None] = {}
        items = []
        for name, (task, code, key_args, item) in self.known.items():
            if langs and task.lang not in langs:
                continue
            if task.script not in now:
                try:
                    now[task.script] = read_bytes_kept(task.script)
                except OSError:
                    now[task.script] = None
            new = now[task.script]
            if new is None or new == code:
                continue
            keys = _format_keys(task, new, *key_args)
            if tuple(sorted(keys.values())) in memo or all(
                    cache.get("figures", key) is not None for key in keys.values()):
                continue
            items.append((bool(task.variant_of), name, item))
        if items:
            warm_up_drawing()
        # called without items too: work started early for an earlier build is dropped
        return kept.start_early([(name, item) for _v, name, item in sorted(items)],
                                draw_in_worker, workers, group=_draw_group)


def resolve_figures(tasks: list[FigureTask], root: Path, cache: Cache, out_dir: Path,
                    workers: int = 2, timeout: float = 60.0, progress=None,
                    drawn: list | None = None, deps_out: dict | None = None,
                    memo: dict | None = None,
                    formats: tuple[str, ...] = ("svg", "pdf"),
                    later: frozenset[str] = frozenset(), previous: dict | None = None,
                    deferred: list | None = None, nice: int = 0,
                    kept: KeptWorkers | None = None,
                    early: EarlyDrawing | None = None) -> dict:
    """Render every (figure, language) once, into out_dir/<id>.<lang>.<format>.

    Each format is cached on its own: the site needs only SVG, so a site build does not pay for
    the PDF (~40 % of drawing a figure), which the PDF build draws when it needs it.
    `drawn`, if given, receives the "figure|lang" names that were not in the cache.

    `later`: languages whose images need not be drawn now. An image of such a language that is
    not in the cache keeps its `previous` image ({(figure, lang): FigureImage}, as an earlier
    call returned it) and its name goes to `deferred`: `--serve` shows the open page's
    drawing first and draws the others' in the build that follows. Nothing deferred is
    remembered, so that build draws it. `nice`: the drawing workers' niceness; `kept`: their
    processes kept for the next call (both: `run_pool`). `early`: remembers each image's
    drawing item, for `EarlyDrawing.start` at the next build.
    """
    images: dict[tuple[str, str], FigureImage] = {}
    missing_items, keys, found = [], {}, {}
    out_dir.mkdir(parents=True, exist_ok=True)
    unique: dict[tuple[str, str], FigureTask] = {}
    for task in tasks:
        unique.setdefault((task.figure_id, task.lang), task)
    checked: dict[int, bool] = {}

    def unchanged(deps: tuple[tuple[str, str], ...]) -> bool:
        # once per build for each set of dependencies (`_absolute` gives equal sets one tuple:
        # a script's images in every language and its variants share one)
        known = checked.get(id(deps))
        if known is None:
            known = checked[id(deps)] = all(cache.hasher(path) == digest
                                            for path, digest in deps)
        return known
    for (fid, lang), task in sorted(unique.items()):
        try:
            code = read_bytes_kept(task.script)
        except OSError:
            raise BuildError(task.source, task.line, f"figure script not found: {task.script}",
                             "put it in manuscripts/figures/ and refer to it as figures/NAME.py")
        name = f"{fid}|{lang}"
        task_formats, fallbacks, font_lang, fmt_keys, memo_key, item = _task_keys(
            task, code, formats, root)
        if early is not None:
            early.remember(name, task, code, (task_formats, fallbacks, font_lang), item)
        remembered = memo.get(memo_key) if memo is not None else None
        if remembered is not None and cache.enabled and _ON_DISK.get(
                remembered[1].svg) is remembered[1] and unchanged(remembered[2]):
            # Same process, same inputs, and its files still hold this image (a figure edited
            # and then undone under --serve has had the edited drawing written over them in
            # between): no unpickling, no re-reading.
            if deps_out is not None:
                deps_out[name] = remembered[0]
            images[(fid, lang)] = remembered[1]
            continue
        value: dict = {}
        deps: dict = {}
        for fmt, key in fmt_keys.items():
            hit = cache.get("figures", key, deps)
            if hit is not None:
                value[fmt], value["texts"] = hit["data"], hit["texts"]
                value["description"] = hit.get("description", "")
                value["bound"] = hit.get("bound", ())
                if "site" in hit:
                    value["site"] = hit["site"]
        if deps_out is not None:
            deps_out[name] = deps
        missing = tuple(fmt for fmt in task_formats if fmt not in value)
        stale = previous.get((fid, lang)) if missing and lang in later and previous else None
        if stale is not None and deferred is not None:
            images[(fid, lang)] = stale
            deferred.append(name)
            continue
        if not missing:
            images[(fid, lang)] = _write(out_dir, fid, lang, value)
            if memo is not None:
                memo[memo_key] = (deps, images[(fid, lang)], _absolute(root, deps))
            continue
        keys[name], found[name] = (fmt_keys, memo_key), value
        missing_items.append((name, str(task.script), lang, missing, fallbacks,
                              task.words.table if task.words is not None else None,
                              task.number_lang, task.inputs))
    if drawn is not None:
        drawn.extend(name for name, *_ in missing_items)
    if missing_items:
        if progress:
            progress(f"drawing {len(missing_items)} figure image(s) on {workers} worker(s)")
        # Forked workers inherit an imported matplotlib with the CJK fonts registered: about
        # 1 s less per figure than importing it in every job. matplotlib is not a local
        # module, so dependency recording (local files only) is unaffected.
        _setup_matplotlib()
        results = _draw_all(missing_items, str(root), workers, timeout, nice, kept)
        errors = []
        for name, result in sorted(results.items()):
            fid, lang = name.split("|")
            task = unique[(fid, lang)]
            if not result.ok:
                last = result.error.strip().splitlines()
                # The script's own line first (the deepest frame in it): that is where the
                # author fixes it; under --serve the message shows over the unchanged page.
                frames = re.findall(r'File "%s", line (\d+)' % re.escape(str(task.script)),
                                    result.error)
                where = f"{_rel(task.script, root)}:{frames[-1]}: " if frames else ""
                errors.append(f"{where}{task.source}:{task.line}: figure {fid} [{lang}]: "
                              + (last[-1] if last else "failed"))
                continue
            fmt_keys, memo_key = keys[name]
            for fmt, data in result.value.items():
                if fmt in fmt_keys:
                    entry = {"data": data, "texts": result.value["texts"],
                             "description": result.value["description"],
                             "bound": result.value["bound"]}
                    if fmt == "svg":
                        entry["site"] = result.value["site"]
                    cache.put("figures", fmt_keys[fmt], entry, result.deps)
            if deps_out is not None:
                deps_out[name] = result.deps or {}
            images[(fid, lang)] = _write(out_dir, fid, lang, {**found[name], **result.value})
            if memo is not None:
                memo[memo_key] = (result.deps or {}, images[(fid, lang)],
                                  _absolute(root, result.deps or {}))
        if errors:
            raise BuildError(None, None, "\n".join(errors))
    return images


def _task_keys(task: FigureTask, code: bytes, formats: tuple[str, ...], root: Path) -> tuple:
    """A task's formats, fallback languages, font language, {format: cache key}, memo key and
    drawing item (`run_pool`'s arguments), once per task object and script bytes: under
    `--serve` both are the same objects from build to build while nothing they are made of
    changed (`Resolver.figure_tasks`, `read_bytes_kept`), and working these out again for
    ~930 images was ~15 ms of every rebuild. The memo holds the task, so its id is not reused
    while remembered. (`_format_keys` keeps its keys by value underneath: after a config edit
    the tasks are new objects, and most of their keys are the same.)"""
    known = _TASK_KEYS.get(id(task))
    if (known is not None and known[0] is task and known[1] is code and known[2] == formats
            and known[3] == root):
        return known[4]
    lang = task.lang
    fallbacks = tuple(x for x in task.langs if x != lang)
    font_lang = _first((lang, *fallbacks), FONT_FAMILIES)
    if font_lang is None:
        raise BuildError(task.source, task.line, f"no figure fonts for language {lang}",
                         "give its edition a `fallback` in manuscripts/book.yml, or add "
                         "its fonts to FONT_FAMILIES in bookkit/resolve/figures.py")
    # A what-if variant is shown on the site only: never drawn as PDF.
    task_formats = ("svg",) if task.variant_of else formats
    fmt_keys = _format_keys(task, code, task_formats, fallbacks, font_lang)
    item = (str(task.script), lang, str(root), task_formats, fallbacks,
            task.words.table if task.words is not None else None, task.number_lang,
            task.inputs)
    found = (task_formats, fallbacks, font_lang, fmt_keys, tuple(sorted(fmt_keys.values())),
             item)
    if len(_TASK_KEYS) > 8192:
        _TASK_KEYS.clear()
    _TASK_KEYS[id(task)] = (task, code, formats, root, found)
    return found


#: id(task) -> (the task, its script's bytes, the formats asked for, the root, `_task_keys`)
_TASK_KEYS: dict[int, tuple] = {}


def _draw_all(items: list, root: str, workers: int, timeout: float,
              nice: int = 0, kept: KeptWorkers | None = None) -> dict[str, JobResult]:
    """Draw the (name, script, lang, formats, fallbacks, words, number_lang, inputs) items on
    long-lived workers, each keeping to one language while it has figures left: the text and
    math layouts measured for one figure (tick labels, mostly) serve the next of the same
    language."""
    # Once per process, before the workers are forked: they start drawing at once instead of
    # each importing matplotlib, and a --serve process keeps it for every later rebuild.
    warm_up_drawing()
    return run_pool([(name, (script, lang, root, fmts, fb, words, nl, inputs))
                     for name, script, lang, fmts, fb, words, nl, inputs in items],
                    draw_in_worker, workers=workers, timeout=timeout,
                    group=_draw_group, nice=nice, kept=kept)


def _draw_group(args: tuple) -> str:
    """A drawing item's language: a worker keeps to one (`run_pool`'s `group`)."""
    return args[1]


def _write(out_dir: Path, fid: str, lang: str, value: dict) -> FigureImage:
    """Write the image files: `<id>.<lang>.svg` and `.pdf` as drawn (the PDF and EPUB use
    them), and `<id>.<lang>.site.svg`, the SVG whose neutral colours follow the site's theme."""
    paths = {}
    for fmt, suffix in (("svg", "svg"), ("pdf", "pdf"), ("site", "site.svg")):
        if fmt not in value:
            continue
        path = paths[fmt] = out_dir / f"{fid}.{lang}.{suffix}"
        data = value[fmt]
        if not path.exists() or path.read_bytes() != data:
            # Atomic: a concurrent build (tests, a second terminal) never reads half a file.
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            tmp.write_bytes(data)
            os.replace(tmp, path)
            rewritten(path)     # the site reads it back later in this build (`read_bytes_kept`)
    image = FigureImage(figure_id=fid, lang=lang, svg=paths["svg"], pdf=paths.get("pdf"),
                        texts=tuple(value["texts"]), site_svg=paths.get("site"),
                        description=value.get("description", ""),
                        bound=tuple(value.get("bound", ())), size=svg_size(value["svg"]))
    _ON_DISK[image.svg] = image
    return image


#: image path -> the FigureImage whose bytes this process last wrote there
_ON_DISK: dict[Path, FigureImage] = {}


def _rel(path: Path, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path(root).resolve()))
    except ValueError:
        return str(path)


def _words_key(task: FigureTask) -> tuple:
    """The words and number conventions a figure is drawn with, for its cache key: editing a
    figures.yml redraws exactly the figures whose table changed."""
    import json
    return ("words", json.dumps(task.words.table, sort_keys=True, ensure_ascii=False),
            task.number_lang)


_GREY = re.compile(rb"(fill|stroke): #([0-9a-f]{2})\2\2\b")


def themed_svg(svg: bytes, prefix: str) -> bytes:
    """The site's copy of a figure: its greys (text, axes, grid, white background) follow the
    page's theme; the data colours, mid-tones legible on light and dark, stay.

    Each grey g becomes `var(--fig-kGG, #gggggg)`, defined in the SVG's own style sheet as the
    mix of the page's `--fig-ink` and `--fig-paper` that gives g on black ink and white paper.
    Inline in a page (app.js inlines figures so that page CSS reaches them) the page's theme
    sets ink and paper. Shown as an image (no JavaScript, a feed reader), the page's variables
    do not reach it, the definitions are invalid, and every fallback is the drawn grey: the
    figure looks as drawn. Ids get the figure's prefix so that several inline figures on one
    page do not share ids. A byte-level rewrite of matplotlib's SVG writer's output (the form
    is fixed: `style="fill: #rrggbb; ..."`), ~1 ms a figure, instead of a second drawing.
    """
    found = set(_GREY.findall(svg))
    greys = sorted({g for _, g in found} | {b"00"})
    pre = prefix.encode()
    # Plain replacements of what the expressions found, not a Python callback per match:
    # a figure's thousands of glyph references made those callbacks most of this function.
    # The writer's form makes them equal: a colour is `#rrggbb` then `;` or `"`, an id
    # attribute follows a space, and every reference is `href="#id"` or `url(#id)`.
    out = svg
    for prop, g in sorted(found):
        out = out.replace(b"%s: #%s" % (prop, g * 3), b"%s: var(--fig-k%s, #%s)" % (
            prop, g, g * 3))
    out = out.replace(b' id="', b' id="%s-' % pre)
    out = out.replace(b'href="#', b'href="#%s-' % pre).replace(b"url(#", b"url(#%s-" % pre)
    mixes = "".join(f"--fig-k{g.decode()}:color-mix(in srgb,var(--fig-ink) "
                    f"{(255 - int(g, 16)) / 2.55:.2f}%,var(--fig-paper));" for g in greys)
    style = ("svg.bk-fig *{stroke-linejoin:round;stroke-linecap:butt}"
             "svg.bk-fig{fill:var(--fig-k00,#000000)}"
             f"@supports (color:color-mix(in srgb,red,blue)){{svg.bk-fig{{{mixes}}}}}")
    out = out.replace(b"*{stroke-linejoin: round; stroke-linecap: butt}", style.encode(), 1)
    return out.replace(b"<svg ", b'<svg class="bk-fig" ', 1)


def svg_size(svg_bytes: bytes) -> tuple[int, int]:
    """Width and height in CSS pixels from matplotlib's `width="460.8pt"` attributes."""
    import re
    head = svg_bytes[:600].decode("utf-8", "replace")
    w = re.search(r'width="([\d.]+)pt"', head)
    h = re.search(r'height="([\d.]+)pt"', head)
    if not (w and h):
        return 640, 360
    return round(float(w.group(1)) * 4 / 3), round(float(h.group(1)) * 4 / 3)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:10]
