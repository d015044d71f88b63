#!/usr/bin/env bash
# Build book/AI-Infra-Book.pdf (edition: zh). Extra args pass through, e.g. --chapter 3
# (writes book/AI-Infra-Book-ch03.pdf) or --source DIR (an already resolved directory).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="$ROOT/.venv/bin/python"
[ -x "$PY" ] || PY="$(command -v python3)"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
exec "$PY" -m bookkit pdf --edition zh --out "$ROOT/book/AI-Infra-Book.pdf" "$@"
