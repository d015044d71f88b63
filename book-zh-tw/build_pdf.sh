#!/usr/bin/env bash
# Build book-zh-tw/AI-Infra-Book-ZH-TW.pdf (edition: zh-tw). Extra args pass through, e.g. --chapter 3
# (writes book-zh-tw/AI-Infra-Book-ZH-TW-ch03.pdf) or --source DIR (an already resolved directory).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="$ROOT/.venv/bin/python"
[ -x "$PY" ] || PY="$(command -v python3)"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
exec "$PY" -m bookkit pdf --edition zh-tw --out "$ROOT/book-zh-tw/AI-Infra-Book-ZH-TW.pdf" "$@"
