"""`python -m bookkit import`: bring a book written for another toolchain (MkDocs) in."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bookkit.model import BuildError
from bookkit.tools.importer import book_yml, read_layout, write_config


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bookkit import",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path, help="the book's mkdocs.yml or its folder")
    ap.add_argument("--force", action="store_true", help="replace an existing book.yml")
    ap.add_argument("--dry-run", action="store_true", help="print book.yml, write nothing")
    args = ap.parse_args(argv)
    try:
        book = read_layout(args.source)
        if args.dry_run:
            print(book_yml(book), end="")
            return 0
        target = write_config(book, force=args.force)
    except (BuildError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {target}: {len(book.chapters)} chapters, editions "
          f"{', '.join(e['id'] for e in book.editions)}", file=sys.stderr)
    for c in book.chapters:
        for ident in c.missing:
            print(f"note: {ident} has no translation of {c.file}: the build shows the "
                  "original's with a notice", file=sys.stderr)
    return 0
