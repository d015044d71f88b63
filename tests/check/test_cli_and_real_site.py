"""check_site.py as CI runs it: on the real built site, and its exit codes and JSON output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bookkit.check.site_links import check_site, site_url_from_config
from bookkit.check.report import ERROR

from .conftest import ROOT
from .fixture_site import SITE_URL, edit, make_site
from .test_report import EN, book  # noqa: F401 - fixture

SCRIPT = ROOT / "scripts" / "check_site.py"


@pytest.fixture(scope="module")
def real_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("real") / "site"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "build_site.py"), "--out", str(out), "--quiet"],
                   check=True, cwd=ROOT, timeout=600)
    return out


def cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_real_site_is_clean(real_site):
    found = check_site(real_site, site_url_from_config(ROOT))
    assert [f.text() for f in found if f.severity == ERROR] == []


def test_cli_on_real_site(real_site):
    # The whole validator, translations' numbers and staleness included: the real book has
    # zero findings, and every translated section is recorded as synced with its original.
    res = cli("--site", str(real_site), "--stale", "--strict")
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout == ""
    assert "0 errors" in res.stderr


def test_cli_on_real_site_notices_a_removed_section_id(real_site, tmp_path):
    import shutil

    from bookkit.lunr.index import ASSET_NAME, load_payload

    copy = tmp_path / "site"
    shutil.copytree(real_site, copy)
    # a section the English search index points to (the chapters change; the check must not)
    docs = load_payload({ASSET_NAME: (copy / "en" / ASSET_NAME).read_bytes()})["docs"]
    url = next(row[0] for row in docs if "#" in row[0])
    page, sid = url.split("#")
    edit(copy / "en" / page, f'id="{sid}"', f'id="{sid}-renamed"')
    res = cli("--site", str(copy), "--no-translations", "--format", "json")
    assert res.returncode == 1
    data = json.loads(res.stdout)
    kinds = {(d["kind"], d["where"].split("#")[0]) for d in data}
    assert ("broken-anchor", f"en/{page}") in kinds  # at least the page's own table of contents
    assert ("search-index", "en/search-index.js") in kinds
    assert {d["kind"] for d in data} <= {"broken-anchor", "search-index"}


def test_cli_exit_codes_and_json(tmp_path):
    site = make_site(tmp_path / "site")
    base = ("--site", str(site), "--site-url", SITE_URL, "--no-translations")
    res = cli(*base)
    assert (res.returncode, res.stdout) == (0, ""), res.stderr

    res = cli(*base, "--format", "json")
    assert res.returncode == 0 and json.loads(res.stdout) == []

    edit(site / "en" / "chapter.html", '<h2 id="sec-method">', "<h2>")
    res = cli(*base)
    assert res.returncode == 1
    assert 'en/chapter.html#sec-intro: broken-anchor: href "#sec-method" has no target' in res.stdout.splitlines()

    res = cli(*base, "--format", "json")
    assert res.returncode == 1
    data = json.loads(res.stdout)
    assert data and all({"kind", "where", "detail", "severity"} <= set(d) for d in data)
    assert {"kind": "broken-anchor", "where": "en/chapter.html#sec-intro", "detail": 'href "#sec-method" has no target',
            "severity": "error"}.items() <= data[0].items() or any(
        d["kind"] == "broken-anchor" and d["where"] == "en/chapter.html#sec-intro" for d in data)


def test_cli_list_external_is_info_only(tmp_path):
    site = make_site(tmp_path / "site")
    res = cli("--site", str(site), "--site-url", SITE_URL, "--no-translations", "--list-external")
    assert res.returncode == 0
    assert res.stdout.splitlines() == ["chapter.html#sec-method: external: https://example.com/paper (and 1 more places)"]


def test_cli_bad_input(tmp_path):
    assert cli("--site", str(tmp_path / "nothing")).returncode == 2
    assert cli("--no-such-option").returncode == 2


def test_cli_stale_and_translations_on_a_small_book(tmp_path, book):
    site = make_site(tmp_path / "site")
    # site_url comes from the book's book.yml; the book is too small to resolve, so --raw
    base = ("--site", str(site), "--root", str(book), "--raw")
    res = cli(*base)
    assert res.returncode == 0, res.stdout + res.stderr
    res = cli(*base, "--stale", "--format", "json")
    assert res.returncode == 0  # never-synced sections are warnings
    data = json.loads(res.stdout)
    assert data and {(d["kind"], d["severity"]) for d in data} == {("stale", "warning")}
    assert cli(*base, "--stale", "--strict").returncode == 1
    (book / "book-en" / "01-load.md").write_text(EN.replace("86400", "86401"), encoding="utf-8")
    res = cli(*base)
    assert res.returncode == 1 and res.stdout.startswith("book-en/01-load.md:3: ")
