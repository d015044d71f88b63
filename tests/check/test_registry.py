"""The one list of checks: what check_site.py runs, in which order, and how bad input exits."""

from __future__ import annotations

import json
from dataclasses import replace

from bookkit.cli import check as cli
from bookkit.check import registry
from bookkit.check.registry import CHECKS, Check, CheckRun, run_checks
from bookkit.model import ERROR, WARNING, BuildError, Finding
from bookkit.render.pandoc import convert as pandoc

from .fixture_site import SITE_URL, make_site
from .test_report import book  # noqa: F401 - fixture


def test_every_check_has_a_unique_name():
    names = [c.name for c in CHECKS]
    assert len(names) == len(set(names))
    assert {"pages", "alternates", "sitemap", "search", "translations", "stale"} <= set(names)


def test_the_cli_runs_what_the_registry_lists(tmp_path, monkeypatch, capsys):
    site = make_site(tmp_path / "site")
    extra = Check("extra", lambda r: True,
                  lambda r: [Finding("extra-kind", "book-en/x.md:3", "from a registered check",
                                     WARNING, 3)])
    monkeypatch.setattr(registry, "CHECKS", (*CHECKS, extra))
    code = cli.main(["--site", str(site), "--site-url", SITE_URL, "--no-translations",
                     "--format", "json", "--quiet", "--strict"])
    data = json.loads(capsys.readouterr().out)
    mine = [d for d in data if d["kind"] == "extra-kind"]
    # --strict turns the registered check's warning into an error, like every other warning.
    assert mine == [{"kind": "extra-kind", "where": "book-en/x.md:3",
                     "detail": "from a registered check", "severity": "error", "line": 3}]
    assert code == 1


def test_a_build_error_in_any_check_is_bad_input(tmp_path, monkeypatch, capsys):
    """Bad sources exit 2 whichever stage raised: there is one BuildError type (the PDF
    builder's is the same class), recognised by type, not by name."""
    site = make_site(tmp_path / "site")
    assert pandoc.BuildError is BuildError

    def broken(run):
        raise pandoc.BuildError(tmp_path / "metadata.yaml", 4, "required field 'title' is missing")

    monkeypatch.setattr(cli, "run_checks",
                        lambda run: run_checks(run, (Check("broken", lambda r: True, broken),)))
    code = cli.main(["--site", str(site), "--site-url", SITE_URL, "--quiet"])
    assert code == 2
    assert "metadata.yaml:4: required field 'title' is missing" in capsys.readouterr().err


def test_checks_read_the_site_url_from_the_one_config_reader(book, tmp_path):  # noqa: F811
    site = make_site(tmp_path / "site")
    run = CheckRun(root=book, site=site, site_url=SITE_URL, translations=False)
    assert run_checks(run, tuple(c for c in CHECKS if c.name == "pages")) == []
    from bookkit.check.site_links import site_url_from_config
    assert site_url_from_config(book) == "https://example.org/book/"
    (book / "manuscripts" / "book.yml").write_text("chapters:\n  - {file: 01-load.md, slug: load}\n")
    try:
        site_url_from_config(book)
    except BuildError as exc:
        assert exc.path.endswith("book.yml") and "site_url" in exc.message
    else:
        raise AssertionError("a config without site_url must be a BuildError")


def test_finding_file_and_strict_promotion():
    f = Finding("stale", "book-en/a.md:5", "section s: original changed", WARNING, 5)
    assert f.file == "book-en/a.md" and f.detail == f.message
    assert Finding("broken-anchor", "en/a.html#sec-x", "m", ERROR, 3).file == "en/a.html"
    assert replace(f, severity=ERROR).severity == ERROR


def test_python_m_bookkit_check_is_the_same_command(tmp_path):
    import subprocess
    import sys

    from .conftest import ROOT
    site = make_site(tmp_path / "site")
    base = [sys.executable, "-m", "bookkit", "check", "--site", str(site), "--site-url",
            SITE_URL, "--no-translations", "--format", "json", "--quiet"]
    via_module = subprocess.run(base, capture_output=True, text=True, cwd=ROOT, timeout=120)
    via_script = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_site.py"),
                                 *base[4:]], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert via_module.returncode == via_script.returncode
    assert json.loads(via_module.stdout) == json.loads(via_script.stdout)
