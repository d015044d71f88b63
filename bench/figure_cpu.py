"""Average CPU time per figure image: every figure script of the book drawn for every
edition language, SVG only (what a site build draws), in ONE process, one after another.

Why one process and `time.process_time`: the machine is shared (2 cores, other jobs), so wall
time is noise; the CPU a figure costs in the worker that draws it is what a cold build pays.
The first image of each language also pays the one-off font loading; it is included (a cold
build pays it too, once per worker and language), and the median is reported beside the mean.

Also reported: the figure count, and the site's SVG bytes (the themed copy the pages inline,
raw and gzip -6) per chapter page: a script `chNN_*.py` belongs to chapter NN's page, so a
page's bytes are the sum of its chapter's images in one language.

    .venv/bin/python bench/figure_cpu.py [--formats svg] [--only PATTERN] [--json FILE]
                                         [--root BOOK] [--progress FILE]

`bench/run.py` (`make bench`) runs it as a subprocess with `--json` and writes the row.
"""
from __future__ import annotations

import argparse
import glob
import gzip
import json
import os
import re
import statistics
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: the baseline of issue 26: its commit (`make bench` draws its figures in the same run, side
#: by side, for the ratio) and its number as first recorded (bench/results.md, 2026-12-02, load
#: average 0.6), used alone only when that commit cannot be unpacked; the goal is 0.4x
BASELINE_COMMIT = "2721728"
BASELINE_MS = 240.0
GOAL_RATIO = 0.4


#: The least figure this book draws: one Axes, one line, a title and two axis labels in the
#: edition's language, laid out and written as SVG through the same worker body as the book's
#: figures (`draw_in_worker`: dependency recording, fonts, the themed copy). Its CPU is the
#: floor of a figure image with matplotlib; times the images of a cold build over the cores,
#: the floor of that build's figure stage, whatever the figures draw.
FLOOR_SCRIPT = """
SIZE = (6.4, 3.6)


def draw(fig, t):
    ax = fig.add_subplot()
    ax.plot([1, 2, 4, 8], [1.0, 1.9, 3.5, 6.1])
    ax.set_title(t["title"])
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
"""
FLOOR_WORDS = {
    "zh-Hans": {"title": "解码吞吐量", "x": "批大小", "y": "每秒词元数"},
    "en": {"title": "Decode throughput", "x": "Batch size", "y": "Tokens per second"},
    "zh-Hant": {"title": "解碼吞吐量", "x": "批次大小", "y": "每秒詞元數"},
}


def measure_floor(root: str, runs: int = 30) -> dict:
    """Median CPU of `FLOOR_SCRIPT` per language (after one untimed image, which loads what
    the language needs), in this process: call it after the book's figures, so that both are
    measured in the same minutes and with the same warm fonts."""
    import tempfile
    sys.path.insert(0, root)
    from bookkit.resolve import figures as F
    F._setup_matplotlib()
    per_lang = {}
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "floor_figure.py")
        with open(script, "w", encoding="utf-8") as fh:
            fh.write(FLOOR_SCRIPT)
        for lang, words in FLOOR_WORDS.items():
            samples = []
            for i in range(runs + 1):
                t0 = time.process_time()
                result = F.draw_in_worker(script, lang, root, ("svg",), (), dict(words))
                if i:
                    samples.append(time.process_time() - t0)
                if not result.ok:
                    raise SystemExit(f"the floor figure failed: {result.error}")
            per_lang[lang] = statistics.median(samples) * 1000
    return {"floor_ms": statistics.median(per_lang.values()), "floor_ms_per_lang": per_lang,
            "floor_runs": runs}


def measure(root: str, formats: tuple[str, ...] = ("svg",), only: str = "",
            progress: str = "", with_floor: bool = False) -> dict:
    """Draw every figure script under `root` for every language; the numbers `make bench`
    reports (see the module's docstring). `progress`: a file that gets a line per image as
    it is drawn ("name<TAB>CPU seconds"), so that a run stopped early still counts.
    `with_floor`: then the floor figure's CPU too (`measure_floor`)."""
    sys.path.insert(0, root)
    from pathlib import Path

    from bookkit.resolve import figures as F
    scripts = sorted(glob.glob(os.path.join(root, "manuscripts", "figures", "*.py")))
    # a helper module (no `draw`) is not a figure
    scripts = [s for s in scripts if only in os.path.basename(s)
               and re.search(r"^def draw\(", Path(s).read_text(encoding="utf-8"), re.M)]
    F._setup_matplotlib()
    folders = {"zh-Hans": "manuscripts", "en": "book-en", "zh-Hant": "book-zh-tw"}
    # The baseline's code (`--root` a checkout of BASELINE_COMMIT) predates figures.yml: its
    # scripts carry their words, and its draw_in_worker takes no table.
    old_api = not hasattr(F, "load_figure_words")
    words = {lang: {} if old_api else F.load_figure_words(Path(root) / d)
             for lang, d in folders.items()}
    per: dict[str, float] = {}
    pages: dict[str, list[int]] = {}
    failed = []
    log = open(progress, "w", encoding="utf-8") if progress else None
    for lang in folders:        # the book's three editions
        for script in scripts:
            stem = os.path.basename(script)[:-3]
            table = words[lang].get(stem)
            t0 = time.process_time()
            if old_api:
                result = F.draw_in_worker(script, lang, root, formats, ())
            else:
                result = F.draw_in_worker(script, lang, root, formats, (),
                                          table.table if table else None)
            per[f"{stem}|{lang}"] = time.process_time() - t0
            if log is not None:
                log.write(f"{stem}|{lang}\t{per[f'{stem}|{lang}']:.6f}\n")
                log.flush()
            if not result.ok:
                failed.append(result.error.strip().splitlines()[-1])
                continue
            site = result.value.get("site")
            if site is not None:
                page = f"{stem.split('_')[0]}|{lang}"
                raw, gz = pages.setdefault(page, [0, 0]), len(gzip.compress(site, 6))
                raw[0] += len(site)
                raw[1] += gz
    if log is not None:
        log.close()
    floor = measure_floor(root) if with_floor else {}
    values = list(per.values())
    page_raw = [v[0] for v in pages.values()]
    page_gz = [v[1] for v in pages.values()]
    mean_ms = statistics.mean(values) * 1000 if values else None
    return {
        "scripts": len(scripts), "images": len(values), "formats": list(formats),
        "cpu_total_s": sum(values), "mean_ms": mean_ms,
        "median_ms": statistics.median(values) * 1000 if values else None,
        "baseline_ms": BASELINE_MS, "goal_ms": BASELINE_MS * GOAL_RATIO,
        "ratio": mean_ms / BASELINE_MS if mean_ms else None,
        "pages": len(pages),
        "svg_page_mean_kb": statistics.mean(page_raw) / 1000 if page_raw else None,
        "svg_page_max_kb": max(page_raw) / 1000 if page_raw else None,
        "svg_page_mean_gz_kb": statistics.mean(page_gz) / 1000 if page_gz else None,
        "slowest": sorted(((round(v * 1000), k) for k, v in per.items()), reverse=True)[:8],
        "fastest": sorted((round(v * 1000), k) for k, v in per.items())[:3],
        "failed": failed, "per_image_s": per, **floor,
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", default="svg")
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--root", default=HERE, help="the book's folder (default: this repository)")
    ap.add_argument("--progress", default="",
                    help="a file that gets a line per image drawn: name, CPU seconds")
    ap.add_argument("--floor", action="store_true",
                    help="then the least figure's CPU per image (FLOOR_SCRIPT), the floor of "
                         "any figure image with matplotlib")
    args = ap.parse_args()
    r = measure(os.path.abspath(args.root), tuple(args.formats.split(",")), args.only,
                args.progress, args.floor)
    print(f"images: {r['images']} ({r['scripts']} scripts x 3 languages), formats {r['formats']}")
    if r["images"]:
        print(f"CPU total {r['cpu_total_s']:.2f} s, mean {r['mean_ms']:.0f} ms, "
              f"median {r['median_ms']:.0f} ms per image")
    if r["pages"]:
        print(f"site SVG per chapter page: mean {r['svg_page_mean_kb']:.0f} KB "
              f"({r['svg_page_mean_gz_kb']:.0f} KB gzip), max {r['svg_page_max_kb']:.0f} KB")
    if "floor_ms" in r:
        print(f"floor (the least figure, median of {r['floor_runs']} per language): "
              f"{r['floor_ms']:.1f} ms per image (" + ", ".join(
                  f"{k} {v:.1f}" for k, v in r["floor_ms_per_lang"].items()) + ")")
    for ms, name in r["slowest"]:
        print(f"  {ms:6d} ms  {name}")
    if r["failed"]:
        print("FAILED:", *r["failed"], sep="\n  ")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(r, fh, indent=1)
    return 1 if r["failed"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
