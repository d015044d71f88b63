#!/usr/bin/env bash
# Build the PDF of the edition whose folder this is (manuscripts/book.yml's `editions:` names it
# and its file: book/AI-Infra-Book.pdf, book-en/AI-Infra-Book-EN.pdf, ...). The same script in
# every edition folder, so a copied folder builds its own edition. Extra args pass through, e.g.
# --chapter 3 (writes a -ch03 file next to the book) or --source DIR (an already resolved directory).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
PY="$ROOT/.venv/bin/python"
[ -x "$PY" ] || PY="$(command -v python3)"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
exec "$PY" -m bookkit pdf --edition-dir "$HERE" "$@"
