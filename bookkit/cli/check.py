"""Check the built website (all editions) and the translations; `make check` and CI run it.

    python -m bookkit check [--site build/site] [--format text|json] [--no-translations]
                            [--raw] [--stale [--strict]] [--list-external] [--external]

(`scripts/check_site.py` takes the same options.) Site: links, anchors, duplicate ids, images
and alt text, lang and hreflang alternates, sitemap, search index, footnotes (see
bookkit/check/site_links.py). Sources: the translation number check over every chapter pair; with
--stale, translated sections whose original changed since they were synced (warnings; errors
with --strict). The checks are listed in bookkit/check/registry.py. One line per problem,
`where: kind: detail`.
Exit status: 0 clean (warnings allowed), 1 errors found, 2 bad input (no site, bad config).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bookkit.model import ERROR, WARNING, BuildError
from bookkit.pipeline import export
from bookkit.render import outputs
from bookkit.check import site_links as links, report
from bookkit.check.registry import CheckRun, run_checks

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
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
        run = CheckRun(root=root, site=site,
                       site_url=args.site_url or links.site_url_from_config(root),
                       translations=not args.no_translations, raw=args.raw, stale=args.stale,
                       strict=args.strict, list_external=args.list_external,
                       external=args.external, timeout=args.timeout,
                       cache=Path(args.cache) if args.cache else None,
                       resolve_texts=export.resolved_markdown,
                       output_files={n: outputs.output_class(n).files
                                     for n in outputs.names("site")})
        findings = run_checks(run)
    except (BuildError, OSError) as exc:   # a broken config is bad input, not a finding
        print(f"error: {exc}", file=sys.stderr)
        return 2

    if args.format == "json":
        print(report.format_json(findings))
    elif findings:
        print(report.format_text(findings))
    errors = sum(f.severity == ERROR for f in findings)
    if not args.quiet:
        warnings = sum(f.severity == WARNING for f in findings)
        print(f"check_site: {len(run.scan.pages)} pages, {errors} errors, {warnings} warnings "
              f"({time.perf_counter() - started:.2f} s)", file=sys.stderr)
    return 1 if errors else 0
