"""The CI workflows pass zizmor's audit: third-party actions pinned to commit SHAs, no
credentials persisted by checkout into the workspace that the artifacts and cache upload."""
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"


def _zizmor() -> str:
    found = Path(sys.executable).with_name("zizmor")
    return str(found) if found.exists() else (shutil.which("zizmor") or "zizmor")


def zizmor_findings(folder: Path) -> list[str]:
    """zizmor's findings for the workflows in `folder`, one line each (rule, file:line)."""
    # --offline: no GitHub API (CI has no token for it, and this machine no internet).
    out = subprocess.run([_zizmor(), "--offline", "--format", "json", str(folder)],
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().startswith("["), out.stderr[-2000:]
    lines = []
    for finding in json.loads(out.stdout):
        where = finding["locations"][0]
        path = next(iter(where["symbolic"]["key"].get("Local", {}).values()), "?")
        row = where["concrete"]["location"]["start_point"]["row"] + 1
        lines.append(f"{finding['ident']}: {finding['desc']} at {Path(path).name}:{row}")
    return lines


def test_zizmor_finds_nothing():
    findings = zizmor_findings(WORKFLOWS)
    assert not findings, "zizmor findings:\n" + "\n".join(findings)


def test_zizmor_reports_an_unpinned_action(tmp_path):
    """The lint can fail: a workflow with a tag-pinned checkout is reported."""
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    (folder / "w.yml").write_text(
        "on: push\npermissions: {}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n        with:\n          persist-credentials: false\n")
    assert any(f.startswith("unpinned-uses") for f in zizmor_findings(folder))


def _steps():
    for path in sorted(WORKFLOWS.glob("*.yml")):
        workflow = yaml.safe_load(path.read_text())
        for job in workflow["jobs"].values():
            for step in job.get("steps", []):
                yield path.name, step


def test_third_party_actions_are_pinned_to_a_commit():
    for name, step in _steps():
        uses = step.get("uses")
        if uses and not uses.startswith("./"):
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", uses), f"{name}: {uses}"


def test_checkouts_keep_no_credentials():
    checkouts = [(name, step) for name, step in _steps()
                 if step.get("uses", "").startswith("actions/checkout@")]
    assert checkouts
    for name, step in checkouts:
        assert step.get("with", {}).get("persist-credentials") is False, name
