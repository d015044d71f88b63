"""Issue 27, lesser: the supply chain. Every Python package is pinned with hashes (the lock is
exactly what .venv has), pip refuses a file whose hash differs, npm runs no install script and
esbuild still works without its own, and the release attests SHA256SUMS."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

REQ_RE = re.compile(r"^([A-Za-z0-9_.-]+)==(\S+)((?:\s*\\\n\s*--hash=sha256:[0-9a-f]{64})*)", re.M)


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lock() -> dict[str, tuple[str, int]]:
    text = (ROOT / "requirements.txt").read_text()
    return {norm(m.group(1)): (m.group(2), m.group(3).count("--hash=")) for m in
            REQ_RE.finditer(text)}


def test_the_lock_pins_exactly_what_is_installed_each_with_hashes():
    locked = lock()
    assert locked and all(hashes >= 1 for _v, hashes in locked.values()), locked
    freeze = subprocess.run([str(ROOT / ".venv/bin/pip"), "freeze"], capture_output=True,
                            text=True, check=True).stdout.split()
    installed = {norm(line.split("==")[0]): line.split("==")[1] for line in freeze if "==" in line}
    assert {k: v for k, (v, _h) in locked.items()} == installed   # update_lock.sh if not


def test_every_direct_pin_is_in_the_lock():
    locked = lock()
    direct = re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", (ROOT / "requirements.in").read_text(),
                        re.M)
    assert direct and all(locked[norm(n)][0] == v for n, v in direct)


def test_setup_installs_with_require_hashes():
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert re.search(r"pip install .*--require-hashes -r requirements\.txt", setup)


def test_pip_refuses_a_file_whose_hash_is_not_the_locked_one(tmp_path):
    """The mechanism the lock relies on, run for real: a wrong hash stops the install."""
    version = lock()["pyyaml"][0]
    req = tmp_path / "req.txt"
    req.write_text(f"pyyaml=={version} --hash=sha256:{'0' * 64}\n")
    res = subprocess.run([str(ROOT / ".venv/bin/pip"), "download", "--no-deps",
                          "--require-hashes", "-r", str(req), "-d", str(tmp_path / "dl")],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode != 0 and "DO NOT MATCH THE HASHES" in res.stderr, res.stderr
    assert not any((tmp_path / "dl").glob("*.whl"))


def test_npm_runs_no_install_scripts_and_esbuild_still_works(tmp_path):
    npmrc = (ROOT / "website" / ".npmrc").read_text()
    assert re.search(r"^ignore-scripts=true$", npmrc, re.M)
    site = tmp_path / "website"
    site.mkdir()
    for name in ("package.json", "package-lock.json", ".npmrc"):
        shutil.copy(ROOT / "website" / name, site / name)
    res = subprocess.run(["npm", "ci", "--prefer-offline", "--no-audit", "--no-fund"], cwd=site,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    launcher = site / "node_modules" / "esbuild" / "bin" / "esbuild"
    assert launcher.read_bytes()[:2] == b"#!"   # esbuild's postinstall did not run...
    from bookkit.util.cache import Cache
    from bookkit.render.site.minify import Minifier
    sources = {f"static/{n}": (ROOT / "website/static" / n,
                               (ROOT / "website/static" / n).read_bytes())
               for n in ("app.js", "style.css")}
    fresh = Minifier(tmp_path, Cache(tmp_path, enabled=False))(sources)
    shipped = Minifier(ROOT, Cache(tmp_path, enabled=False))(sources)
    assert fresh == shipped and all(len(v) < len(sources[k][1]) for k, v in fresh.items())


def test_the_release_attests_sha256sums():
    workflow = yaml.safe_load((ROOT / ".github/workflows/release.yml").read_text())
    jobs = workflow["jobs"]
    attesting = {name: job for name, job in jobs.items()
                 if any(str(s.get("uses", "")).startswith("actions/attest-build-provenance@")
                        for s in job.get("steps", []))}
    assert len(attesting) == 1
    name, job = next(iter(attesting.items()))
    step = next(s for s in job["steps"] if "attest-build-provenance" in str(s.get("uses")))
    assert re.fullmatch(r"actions/attest-build-provenance@[0-9a-f]{40}", step["uses"])
    subjects = step["with"]["subject-path"]
    assert subjects in ("dist/*", "dist/SHA256SUMS") or "SHA256SUMS" in subjects
    assert job["permissions"] == {"contents": "read", "id-token": "write",
                                  "attestations": "write"}
    assert name in jobs["publish"]["needs"]      # nothing is published unsigned
    others = [n for n, j in jobs.items() if n != name and "id-token" in j.get("permissions", {})
              and n != "pages"]                 # Pages deploys with its own OIDC token
    assert others == []
