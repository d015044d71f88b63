"""`python -m bookkit editions`: the book's editions, one per line (for the Makefile)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str]) -> int:
    """`python -m bookkit editions [--field F]`: one edition per line, in book.yml's order
    (for the Makefile and shell loops)."""
    from bookkit.load.config import load_registry
    from bookkit.model import EditionSpec
    from bookkit.model import BuildError
    fields = [f for f in EditionSpec.__dataclass_fields__ if f not in ("langs", "line")]
    fields += ["url_prefix", "pdf_name", "epub_name"]
    parser = argparse.ArgumentParser(prog="python -m bookkit editions",
                                     description="List the book's editions (manuscripts/book.yml).")
    parser.add_argument("--field", default="id", choices=fields,
                        help="what to print for each edition (default: id)")
    parser.add_argument("--translations", action="store_true", help="leave out the original")
    args = parser.parse_args(argv)
    try:
        registry = load_registry(ROOT)
    except BuildError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        return 1
    for spec in registry.translations if args.translations else registry:
        value = getattr(spec, args.field)
        print("" if value is None else value)
    return 0
