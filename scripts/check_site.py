#!/usr/bin/env python3
"""Check the built website and the translations: `python -m bookkit check` (see bookkit/cli/check.py
for the options; the checks are listed in bookkit/check/registry.py). `make check` and CI run it.
Exit status: 0 clean (warnings allowed), 1 errors found, 2 bad input (no site, bad config).
"""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_PY = ROOT / ".venv" / "bin" / "python"
if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve() and VENV_PY.exists():
    os.execv(str(VENV_PY), [str(VENV_PY), *sys.argv])
sys.path.insert(0, str(ROOT))

from bookkit.cli.check import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(prog="check_site.py"))
