"""How long the translation check takes on a large pair (issue 29's goal: a 200,000-character
pair in at most 2 s). Not a test (no timings in pass/fail tests): run it by hand,

    .venv/bin/python tests/translation/measure_pair.py [CHARS]

It concatenates the book's chapters (original, and each translated edition in the same order)
until the original has at least CHARS characters (default 200,000), and prints the best of
three runs of check_pair for each edition.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bookkit.check.pair import check_pair  # noqa: E402
from bookkit.load.config import chapter_plan, load_registry  # noqa: E402


def main() -> None:
    want = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    registry = load_registry(ROOT)
    files = sorted((f for _, f, _ in chapter_plan(ROOT)),
                   key=lambda f: -len((ROOT / registry.original.dir / f).read_text(encoding="utf-8")))
    chosen, size = [], 0
    for f in files:
        if size >= want:
            break
        chosen.append(f)
        size += len((ROOT / registry.original.dir / f).read_text(encoding="utf-8"))
    original = "".join((ROOT / registry.original.dir / f).read_text(encoding="utf-8") for f in chosen)
    for spec in registry.translations:
        translation = "".join((ROOT / spec.dir / f).read_text(encoding="utf-8") for f in chosen)
        best = cpu = float("inf")
        found = []
        for _ in range(3):
            started, started_cpu = time.perf_counter(), time.process_time()
            found = check_pair(original, translation, spec.number_lang)
            best = min(best, time.perf_counter() - started)
            cpu = min(cpu, time.process_time() - started_cpu)
        # CPU time as well: on a shared machine the wall clock also counts other processes
        print(f"{spec.id}: original {len(original):,} characters, translation {len(translation):,}: "
              f"{best:.2f} s wall, {cpu:.2f} s CPU (best of 3), {len(found)} finding(s)")


if __name__ == "__main__":
    main()
