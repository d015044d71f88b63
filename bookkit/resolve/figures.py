"""Executable figures: one matplotlib script per figure, drawn once per edition language.

Text comes from the script's per-language STRINGS table; CJK text uses Noto Sans CJK (SC for
zh-Hans, TC for zh-Hant). A missing glyph or a font fallback fails the build: no tofu ships.
"""
from __future__ import annotations

import hashlib
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

from ..cache import Cache, key_of, library_versions
from ..model import BuildError, FigureImage
from ..workers import DependencyRecorder, JobResult, run_jobs

FONT_FAMILIES = {
    "zh-Hans": ["Noto Sans CJK SC", "DejaVu Sans"],
    "zh-Hant": ["Noto Sans CJK TC", "DejaVu Sans"],
    "en": ["DejaVu Sans", "Noto Sans CJK SC"],
}
NOTO_CJK_FILES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
)
LANGS = ("zh-Hans", "en", "zh-Hant")
#: no dates in the files: the same figure gives the same bytes
SAVE_METADATA = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}


@dataclass(frozen=True)
class FigureTask:
    figure_id: str
    script: Path
    lang: str
    source: str       # chapter file that uses it (for messages)
    line: int


def _setup_matplotlib():
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import font_manager
    # Register the CJK fonts by file: a font cache made before they were installed would
    # otherwise make matplotlib fall back silently to a font without CJK glyphs (tofu).
    for path in NOTO_CJK_FILES:
        if os.path.exists(path):
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


def draw_figure(script: str, lang: str, root: str,
                formats: tuple[str, ...] = ("svg", "pdf")) -> JobResult:
    """Worker body: import the script, draw it for `lang`, return the bytes of each format."""
    import importlib.util
    import io
    import logging
    import sys

    if root not in sys.path:
        sys.path.insert(0, root)
    os.chdir(root)   # relative paths in cells and figure scripts mean the book root (forked job)
    recorder = DependencyRecorder(root, ignore=(os.path.join(root, "build"),
                                                os.path.join(root, ".cache")))
    recorder.files.add(os.path.abspath(script))
    plt = _setup_matplotlib()
    plt.rcParams["font.family"] = FONT_FAMILIES[lang]
    problems: list[str] = []

    class FontLog(logging.Handler):
        def emit(self, record):
            problems.append(record.getMessage())

    handler = FontLog(level=logging.WARNING)
    logging.getLogger("matplotlib.font_manager").addHandler(handler)
    spec = importlib.util.spec_from_file_location(f"figure_{abs(hash(script))}", script)
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spec.loader.exec_module(module)
        strings = getattr(module, "STRINGS", None)
        if not isinstance(strings, dict) or lang not in strings:
            return JobResult(ok=False, error=f"{script}: STRINGS has no `{lang}` table "
                             "(one per edition: zh-Hans, en, zh-Hant)")
        keysets = {k: set(v) for k, v in strings.items()}
        if len({frozenset(s) for s in keysets.values()}) > 1:
            return JobResult(ok=False, error=f"{script}: STRINGS tables have different keys: "
                             + "; ".join(f"{k}: {sorted(v)}" for k, v in keysets.items()))
        size = getattr(module, "SIZE", (6.4, 3.6))
        fig = plt.figure(figsize=size)
        module.draw(fig, strings[lang])
        fig.tight_layout()
        saved = {}
        for fmt in formats:
            saved[fmt] = io.BytesIO()
            fig.savefig(saved[fmt], format=fmt, metadata=SAVE_METADATA[fmt])
        from matplotlib.text import Text
        texts = tuple(t.get_text() for t in fig.findobj(Text) if t.get_text().strip())
        plt.close(fig)
    for w in caught:
        message = str(w.message)
        if "Glyph" in message or "missing from" in message or "findfont" in message:
            problems.append(message)
    if problems:
        return JobResult(ok=False, error=f"{script}: [{lang}] missing glyph or font: "
                         + problems[0] + " (install fonts-noto-cjk; use only characters the "
                         "Noto CJK and DejaVu fonts cover)")
    from ..cache import FileHasher
    return JobResult(ok=True, value={**{fmt: data.getvalue() for fmt, data in saved.items()},
                                     "texts": texts}, deps=recorder.collect(FileHasher()))


def resolve_figures(tasks: list[FigureTask], root: Path, cache: Cache, out_dir: Path,
                    workers: int = 2, timeout: float = 60.0, progress=None,
                    drawn: list | None = None, deps_out: dict | None = None,
                    memo: dict | None = None,
                    formats: tuple[str, ...] = ("svg", "pdf")) -> dict:
    """Render every (figure, language) once, into out_dir/<id>.<lang>.<format>.

    Each format is cached on its own: the site needs only SVG, so a site build does not pay for
    the PDF (~40 % of drawing a figure), which the PDF build draws when it needs it.
    `drawn`, if given, receives the "figure|lang" names that were not in the cache.
    """
    images: dict[tuple[str, str], FigureImage] = {}
    jobs, keys, found = [], {}, {}
    out_dir.mkdir(parents=True, exist_ok=True)
    unique: dict[tuple[str, str], FigureTask] = {}
    for task in tasks:
        unique.setdefault((task.figure_id, task.lang), task)
    for (fid, lang), task in sorted(unique.items()):
        if not task.script.is_file():
            raise BuildError(task.source, task.line, f"figure script not found: {task.script}",
                             "put it in manuscripts/figures/ and refer to it as figures/NAME.py")
        code = task.script.read_bytes()
        name = f"{fid}|{lang}"
        fmt_keys = {fmt: key_of("figure", code, lang, library_versions(), FONT_FAMILIES[lang],
                                fmt) for fmt in formats}
        memo_key = tuple(sorted(fmt_keys.values()))
        remembered = memo.get(memo_key) if memo is not None else None
        if remembered is not None and cache.enabled and all(
                cache.hasher(str(root / dep)) == digest for dep, digest in remembered[0].items()):
            # Same process, same inputs, files already written: no unpickling, no re-reading.
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
        if deps_out is not None:
            deps_out[name] = deps
        missing = tuple(fmt for fmt in formats if fmt not in value)
        if not missing:
            images[(fid, lang)] = _write(out_dir, fid, lang, value)
            if memo is not None:
                memo[memo_key] = (deps, images[(fid, lang)])
            continue
        keys[name], found[name] = (fmt_keys, memo_key), value
        jobs.append((name, draw_figure, (str(task.script), lang, str(root), missing)))
    if drawn is not None:
        drawn.extend(name for name, _f, _a in jobs)
    if jobs:
        if progress:
            progress(f"drawing {len(jobs)} figure image(s) on {workers} worker(s)")
        # Forked workers inherit an imported matplotlib with the CJK fonts registered: about
        # 1 s less per figure than importing it in every job. matplotlib is not a local
        # module, so dependency recording (local files only) is unaffected.
        _setup_matplotlib()
        done = run_jobs(jobs, workers=workers, timeout=timeout)
        errors = []
        for name, result in sorted(done.items()):
            fid, lang = name.split("|")
            task = unique[(fid, lang)]
            if not result.ok:
                last = result.error.strip().splitlines()
                errors.append(f"{task.source}:{task.line}: figure {fid} [{lang}]: "
                              + (last[-1] if last else "failed"))
                continue
            fmt_keys, memo_key = keys[name]
            for fmt, data in result.value.items():
                if fmt != "texts":
                    cache.put("figures", fmt_keys[fmt],
                              {"data": data, "texts": result.value["texts"]}, result.deps)
            if deps_out is not None:
                deps_out[name] = result.deps or {}
            images[(fid, lang)] = _write(out_dir, fid, lang, {**found[name], **result.value})
            if memo is not None:
                memo[memo_key] = (result.deps or {}, images[(fid, lang)])
        if errors:
            raise BuildError(None, None, "\n".join(errors))
    return images


def _write(out_dir: Path, fid: str, lang: str, value: dict) -> FigureImage:
    paths = {}
    for fmt in ("svg", "pdf"):
        if fmt not in value:
            continue
        path = paths[fmt] = out_dir / f"{fid}.{lang}.{fmt}"
        data = value[fmt]
        if not path.exists() or path.read_bytes() != data:
            # Atomic: a concurrent build (tests, a second terminal) never reads half a file.
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            tmp.write_bytes(data)
            os.replace(tmp, path)
    return FigureImage(figure_id=fid, lang=lang, svg=paths["svg"], pdf=paths.get("pdf"),
                       texts=tuple(value["texts"]))


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
