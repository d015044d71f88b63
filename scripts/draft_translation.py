#!/usr/bin/env python3
"""Draft a translation of an original chapter by conversion (zh-tw: OpenCC s2twp, Taiwan usage).

    python scripts/draft_translation.py --to zh-tw manuscripts/03-workloads.md [--out FILE] [--force]

Link targets, code (inline and fenced), URLs, HTML tags and IDs, {#…} attributes, {{ … }} bound
references, cross-references and math are kept byte-identical; only the prose is converted. The
draft is written to FILE (default: standard output); an existing FILE is kept unless --force.
Then edit it by hand (the glossary, book-zh-tw/glossary.yml, says which terms to use) and run
scripts/check_translation.py. Exit 0 on success, 2 on bad input.
"""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_PY = ROOT / ".venv" / "bin" / "python"
if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve() and VENV_PY.exists():
    os.execv(str(VENV_PY), [str(VENV_PY), *sys.argv])
sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402

from bookkit.tools.draft import draft_zh_tw  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--to", required=True, choices=["zh-tw"], help="the edition to draft")
    ap.add_argument("file", type=Path, help="the original chapter (manuscripts/NN-x.md)")
    ap.add_argument("--out", type=Path, help="write the draft here (default: standard output)")
    ap.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    args = ap.parse_args(argv)
    try:
        text = args.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: {args.file}: cannot read it ({exc})", file=sys.stderr)
        return 2
    if args.out and args.out.exists() and not args.force:
        print(f"error: {args.out} exists; a draft would replace hand edits (use --force)",
              file=sys.stderr)
        return 2
    draft = draft_zh_tw(text)
    if args.out:
        args.out.write_text(draft, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(draft)
    return 0


if __name__ == "__main__":
    sys.exit(main())
