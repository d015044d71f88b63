"""The one command line: `python -m bookkit COMMAND`, one module per command in this package.

The scripts at their documented paths (scripts/build_site.py, scripts/check_site.py,
book/build_epub.py, book*/build_pdf.sh) are thin wrappers around these commands. A command's
module is imported only when it runs: `build`'s no-op check must not pay for the pipeline.
"""
from __future__ import annotations

import importlib
import sys

# command -> (module in this package, extra arguments put before the user's)
COMMANDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "build": ("build", ()),
    "serve": ("build", ("--serve",)),
    "pdf": ("book", ()),
    "epub": ("book", ()),
    "check": ("check", ()),
    "export": ("export", ()),
    "import": ("importer", ()),
    "editions": ("editions", ()),
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(f"usage: python -m bookkit {{{','.join(COMMANDS)}}} [options]")
        return 0
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        print(f"unknown command {command}", file=sys.stderr)
        return 2
    module, extra = COMMANDS[command]
    run = importlib.import_module(f"bookkit.cli.{module}").main
    if module == "book":
        return run(command, rest)
    if module == "check":
        return run(rest, prog="python -m bookkit check")
    return run([*extra, *rest])
