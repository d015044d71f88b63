#!/usr/bin/env python3
"""Check the built website (all editions) and the translations; `make check` and CI run it.

    python scripts/check_site.py [--site build/site] [--format text|json] [--no-translations]
                                 [--raw] [--stale [--strict]] [--list-external] [--external]

Site: links, anchors, duplicate ids, images and alt text, lang and hreflang alternates, sitemap,
search index, footnotes (see bookkit/check/links.py). Sources: the translation number check over
every chapter pair; with --stale, translated sections whose original changed since they were
synced (warnings; errors with --strict). One line per problem, `where: kind: detail`.
Exit status: 0 clean (warnings allowed), 1 errors found, 2 bad input (no site, bad config).
"""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_PY = ROOT / ".venv" / "bin" / "python"
if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve() and VENV_PY.exists():
    os.execv(str(VENV_PY), [str(VENV_PY), *sys.argv])
sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import time  # noqa: E402

from bookkit.check import links, report, sources  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--site", default=str(ROOT / "build" / "site"), help="built site (default build/site)")
    ap.add_argument("--root", default=str(ROOT), help="the book's sources (default: this checkout)")
    ap.add_argument("--site-url", help="override site_url from manuscripts/book.yml")
    ap.add_argument("--format", default="text", choices=["text", "json"])
    ap.add_argument("--no-translations", action="store_true", help="skip the translation number check")
    ap.add_argument("--raw", action="store_true",
                    help="number check on the raw Markdown (bound references by name), not as rendered")
    ap.add_argument("--stale", action="store_true", help="list translated sections whose original changed")
    ap.add_argument("--strict", action="store_true", help="warnings (stale sections, ...) fail the run")
    ap.add_argument("--list-external", action="store_true", help="list the external links")
    ap.add_argument("--external", action="store_true", help="check external links over the network")
    ap.add_argument("--timeout", type=float, default=links.EXTERNAL_TIMEOUT, help="seconds per external link")
    ap.add_argument("--cache", help="external-link cache file (default .cache/external-links.json)")
    ap.add_argument("--quiet", action="store_true", help="no summary line on stderr")
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0

    started = time.perf_counter()
    root = Path(args.root).resolve()
    site = Path(args.site)
    if not (site / "index.html").is_file():
        print(f"error: {site}: no built site here (run scripts/build_site.py first)", file=sys.stderr)
        return 2
    try:
        site_url = args.site_url or links.site_url_from_config(root)
    except (OSError, ValueError) as exc:
        print(f"error: cannot read site_url: {exc}", file=sys.stderr)
        return 2

    checker = links.SiteChecker(site, site_url)
    findings = checker.run()
    if args.list_external or args.external:
        ext = checker.external_links()
        if args.list_external:
            findings += links.list_external(ext)
        if args.external:
            cache = Path(args.cache) if args.cache else root / links.DEFAULT_CACHE
            findings += links.check_external(ext, cache, timeout=args.timeout)
    try:
        if not args.no_translations:
            findings += report.translation_findings(root, resolved=not args.raw)
        if args.stale:
            findings += report.stale_findings(root, strict=args.strict)
        findings += sources.source_findings(root)   # typed numbers, images, anchors, repo links
    except Exception as exc:  # noqa: BLE001 - a broken config is bad input, not a finding
        if type(exc).__name__ != "BuildError" and not isinstance(exc, OSError):
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 2

    if args.strict:
        findings = [report.Finding(f.kind, f.where, f.detail, report.ERROR, f.line)
                    if f.severity == report.WARNING else f for f in findings]
    if args.format == "json":
        print(report.format_json(findings))
    elif findings:
        print(report.format_text(findings))
    errors = sum(f.severity == report.ERROR for f in findings)
    if not args.quiet:
        warnings = sum(f.severity == report.WARNING for f in findings)
        print(f"check_site: {len(checker.pages)} pages, {errors} errors, {warnings} warnings "
              f"({time.perf_counter() - started:.2f} s)", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
