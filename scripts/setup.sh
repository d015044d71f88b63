#!/usr/bin/env bash
# Installs everything the project needs on a fresh Debian 12 machine (run as root, or with sudo
# available). Idempotent: each step is skipped when its result is already present.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(texlive-xetex texlive-lang-chinese texlive-fonts-recommended lmodern fonts-noto-cjk
              fonts-dejavu-core poppler-utils libcairo2 chromium default-jre-headless make)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing apt packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # A matplotlib font cache built before the CJK fonts existed renders tofu.
  rm -rf "${HOME}/.cache/matplotlib"
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.requirements.sha256
want=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  # the lock: every package pinned with its hashes (requirements.in, scripts/update_lock.sh)
  .venv/bin/pip install -q --disable-pip-version-check --require-hashes -r requirements.txt
  echo "$want" > "$stamp"
fi
# pypandoc-binary ships pandoc but puts no command on PATH.
pandoc_path=$(.venv/bin/python -c 'import pypandoc; print(pypandoc.get_pandoc_path())')
ln -sf "$pandoc_path" .venv/bin/pandoc

if [ ! -d website/node_modules ] || [ website/package-lock.json -nt website/node_modules/.stamp ]; then
  (cd website && npm ci --silent --no-audit --no-fund && touch node_modules/.stamp)
fi

# Byte-compile the pipeline: with PYTHONDONTWRITEBYTECODE set (some CI images and containers)
# Python would otherwise compile it again on every build (~0.06 s). Stale files are ignored.
.venv/bin/python -m compileall -q bookkit calculations scripts >/dev/null
