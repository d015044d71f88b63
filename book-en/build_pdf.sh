#!/usr/bin/env bash
# Build book-en/AI-Infra-Book-EN.pdf (edition: en). Extra args pass through, e.g. --chapter 3
# (writes book-en/AI-Infra-Book-EN-ch03.pdf) or --source DIR (an already resolved directory).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="$ROOT/.venv/bin/python"
[ -x "$PY" ] || PY="$(command -v python3)"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
exec "$PY" -m bookkit pdf --edition en --out "$ROOT/book-en/AI-Infra-Book-EN.pdf" "$@"
