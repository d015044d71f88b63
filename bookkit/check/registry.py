"""The one list of checks `scripts/check_site.py` (and `python -m bookkit check`) runs.

A check is a name, when it applies (from the command line's options) and a function from a
`CheckRun` to findings (`bookkit.model.Finding`). A new check is one entry in `CHECKS`; the
command line, the text and JSON reports and `--strict` need no change.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping

from bookkit.model import ERROR, WARNING, Finding
from bookkit.check import site_links as links, report, sources, trust


@dataclass
class CheckRun:
    """What the checks are run on, and the command line's choices."""

    root: Path                      # the book's sources
    site: Path                      # the built site
    site_url: str
    translations: bool = True       # the translation number, terminology and script checks
    raw: bool = False               # numbers compared on the raw Markdown, not as rendered
    stale: bool = False             # translated sections whose original changed
    strict: bool = False            # warnings fail the run
    list_external: bool = False
    external: bool = False          # probe external links over the network
    timeout: float = links.EXTERNAL_TIMEOUT
    cache: Path | None = None       # external-link cache (default: <root>/.cache/…)
    # What the checks need from the stages they check, handed in by the command line (a check
    # imports neither a renderer nor the pipeline): the chapters' text with bound numbers as
    # rendered, {(edition id, file): text} (`bookkit.pipeline.export.resolved_markdown`), and
    # the files each registered site output puts in every edition root (`bookkit.render.outputs`).
    resolve_texts: Callable[[Path], Mapping] | None = None
    output_files: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    _scan: links.SiteChecker | None = field(default=None, repr=False)
    _external: dict | None = field(default=None, repr=False)

    @property
    def scan(self) -> links.SiteChecker:
        """The built site, parsed once for all the site checks."""
        if self._scan is None:
            self._scan = links.SiteChecker(self.site, self.site_url, self.output_files)
        return self._scan

    @property
    def external_links(self) -> dict:
        if self._external is None:
            self._external = self.scan.external_links()
        return self._external


@dataclass(frozen=True)
class Check:
    name: str
    applies: Callable[[CheckRun], bool]
    run: Callable[[CheckRun], list[Finding]]


def _always(_run: CheckRun) -> bool:
    return True


CHECKS: tuple[Check, ...] = (
    Check("pages", _always, lambda r: r.scan.check_pages()),
    Check("alternates", _always, lambda r: r.scan.check_alternates()),
    Check("sitemap", _always, lambda r: r.scan.check_sitemap()),
    Check("search", _always, lambda r: r.scan.check_search()),
    Check("external-list", lambda r: r.list_external,
          lambda r: links.list_external(r.external_links)),
    Check("external", lambda r: r.external,
          lambda r: links.check_external(r.external_links,
                                         r.cache or r.root / links.DEFAULT_CACHE,
                                         timeout=r.timeout)),
    Check("translations", lambda r: r.translations,
          lambda r: report.translation_findings(r.root, None if r.raw else r.resolve_texts)),
    Check("stale", lambda r: r.stale, lambda r: report.stale_findings(r.root, strict=r.strict)),
    # typed heading numbers, static images, raw anchors, repository links
    Check("sources", _always, lambda r: sources.source_findings(r.root)),
    # the trust boundary: what no contribution may carry, in the sources and in the pages
    Check("unsafe-source", _always, lambda r: trust.trust_findings(r.root)),
    Check("unsafe-output", _always, lambda r: trust.unsafe_output_findings(r.scan)),
)


def run_checks(run: CheckRun, checks: tuple[Check, ...] | None = None) -> list[Finding]:
    """Every applicable check's findings (of `CHECKS` unless given), in order; with `strict`,
    warnings become errors. A `BuildError` (bad sources or config) propagates: bad input."""
    findings: list[Finding] = []
    for check in CHECKS if checks is None else checks:
        if check.applies(run):
            findings += check.run(run)
    if run.strict:
        findings = [replace(f, severity=ERROR) if f.severity == WARNING else f for f in findings]
    return findings
