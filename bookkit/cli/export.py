"""`python -m bookkit export`: write one edition's resolved Pandoc sources."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bookkit.load.config import load_registry
from bookkit.model import BuildError
from bookkit.pipeline.export import export_edition

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    try:
        ids = load_registry(ROOT).ids
    except BuildError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        return 1
    parser = argparse.ArgumentParser(prog="python -m bookkit export",
                                     description="Write resolved Pandoc sources for one edition.")
    parser.add_argument("--edition", required=True, choices=ids)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--chapter", type=int)
    args = parser.parse_args(argv)
    out = args.out or ROOT / "build" / "pandoc" / args.edition
    try:
        export_edition(args.edition, out, args.chapter)
    except BuildError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        return 1
    print(out)
    return 0
