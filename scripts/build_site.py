#!/usr/bin/env python3
"""Build the website (all three editions) into build/site/; `--serve` to preview with reload."""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_PY = ROOT / ".venv" / "bin" / "python"
if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve() and VENV_PY.exists():
    os.execv(str(VENV_PY), [str(VENV_PY), *sys.argv])
sys.path.insert(0, str(ROOT))

from bookkit.__main__ import build_site_main  # noqa: E402

sys.exit(build_site_main())
