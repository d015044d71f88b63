#!/usr/bin/env python3
"""Mark sections of translated chapters as synced with the current original.

    python scripts/sync_translation.py --edition en|zh-tw|... [FILE ...] [--section ID ...] [--root DIR]

FILE is a chapter file name (``01-intro.md``) or a path into the edition folder; with no FILE,
every chapter of the edition that has an original is synced. ``--section`` (repeatable) syncs
only those sections. Writes ``<edition>/.sync/<chapter-file>.json``. Exit 0 on success, 2 on
bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bookkit.check.staleness import (load_sync_record, mark_synced, save_sync_record,
                                      sync_record_path)
from bookkit.load.config import edition_file, load_registry, read_book_config  # noqa: E402
from bookkit.model import BuildError  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--edition", required=True,
                    help="a translated edition's id (manuscripts/book.yml's `editions:`)")
    ap.add_argument("files", nargs="*", metavar="FILE")
    ap.add_argument("--section", action="append", metavar="ID")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent),
                    help="project root (default: this checkout)")
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    root = Path(args.root)
    try:
        registry = load_registry(root)
        config = read_book_config(root)
    except BuildError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        return 2
    editions = {spec.id: spec for spec in registry.translations}
    if args.edition not in editions:
        print(f"error: --edition {args.edition}: not a translated edition "
              f"(choose from {', '.join(editions)})", file=sys.stderr)
        return 2
    edition_dir = root / editions[args.edition].dir
    originals = root / registry.original.dir
    # A translation may name its files differently (book.yml `files:`): its original's name.
    try:
        plan = config.chapters
    except BuildError:
        plan = ()     # no chapter list to read names from: the files share the original's
    original_of = {edition_file(config, number, editions[args.edition]): file
                   for number, file, _slug in plan}
    names = [Path(f).name for f in args.files] or sorted(
        p.name for p in edition_dir.glob("*.md")
        if (originals / original_of.get(p.name, p.name)).exists())
    if args.section and len(names) != 1:
        print("error: --section needs exactly one FILE", file=sys.stderr)
        return 2
    for name in names:
        orig_path = originals / original_of.get(name, name)
        try:
            original = orig_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            print(f"error: {orig_path}: {exc}", file=sys.stderr)
            return 2
        rec_path = sync_record_path(edition_dir, name)
        try:
            record = load_sync_record(rec_path)
            new = mark_synced(original, record, args.section)
        except KeyError as exc:
            print(f"error: {orig_path}: no section {exc.args[0]}", file=sys.stderr)
            return 2
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        save_sync_record(rec_path, new)
        what = ", ".join(args.section) if args.section else f"{len(new)} section(s)"
        print(f"{rec_path}: synced {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
