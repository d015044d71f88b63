"""Average CPU time per figure image: every figure script of the book drawn for every
edition language, SVG only (what a site build draws), in ONE process, one after another.

Why one process and `time.process_time`: the machine is shared (2 cores, other jobs), so wall
time is noise; the CPU a figure costs in the worker that draws it is what a cold build pays.
The first image of each language also pays the one-off font loading; it is included (a cold
build pays it too, once per worker and language), and the median is reported beside the mean.

    .venv/bin/python bench/figure_cpu.py [--formats svg] [--only PATTERN]
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bookkit.resolve import figures as F  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", default="svg")
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    formats = tuple(args.formats.split(","))
    scripts = sorted(glob.glob(os.path.join(ROOT, "manuscripts", "figures", "*.py")))
    scripts = [s for s in scripts if args.only in os.path.basename(s)]
    F._setup_matplotlib()
    from pathlib import Path
    folders = {"zh-Hans": "manuscripts", "en": "book-en", "zh-Hant": "book-zh-tw"}
    words = {lang: F.load_figure_words(Path(ROOT) / d) for lang, d in folders.items()}
    per: dict[str, float] = {}
    failed = []
    for lang in F.LANGS:
        for script in scripts:
            table = words[lang].get(os.path.basename(script)[:-3])
            t0 = time.process_time()
            result = F.draw_in_worker(script, lang, ROOT, formats, (),
                                      table.table if table else None)
            per[f"{os.path.basename(script)}|{lang}"] = time.process_time() - t0
            if not result.ok:
                failed.append(result.error)
    values = list(per.values())
    print(f"images: {len(values)} ({len(scripts)} scripts x {len(F.LANGS)} languages), "
          f"formats {formats}")
    print(f"CPU total {sum(values):.2f} s, mean {statistics.mean(values) * 1000:.0f} ms, "
          f"median {statistics.median(values) * 1000:.0f} ms per image")
    for name, v in sorted(per.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {v * 1000:6.0f} ms  {name}")
    if failed:
        print("FAILED:", *failed, sep="\n  ")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(per, fh, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
