#!/usr/bin/env bash
# Regenerate requirements.txt, the lock: every Python package the book needs (requirements.in's
# pins and all they depend on), each pinned with the sha256 hashes of its files, which
# scripts/setup.sh installs with --require-hashes. Versions already in the lock are kept;
# pass pip-compile's options to move some, e.g.
#   scripts/update_lock.sh --upgrade-package matplotlib
# pip-tools runs from its own throwaway venv (pinned), so it never enters the book's .venv.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PIP_TOOLS_VERSION=7.6.2
tools="${TMPDIR:-/tmp}/bookkit-pip-tools-$PIP_TOOLS_VERSION"
if [ ! -x "$tools/bin/pip-compile" ]; then
  # the .venv's interpreter: the lock is resolved for the Python the book runs on
  py=python3
  [ -x .venv/bin/python ] && py=.venv/bin/python
  "$py" -m venv "$tools"
  "$tools/bin/pip" install -q --disable-pip-version-check "pip-tools==$PIP_TOOLS_VERSION"
fi
CUSTOM_COMPILE_COMMAND="scripts/update_lock.sh" "$tools/bin/pip-compile" -q --generate-hashes \
  --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links "$@" \
  -o requirements.txt requirements.in
