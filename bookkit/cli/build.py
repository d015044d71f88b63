"""`python -m bookkit build|serve` (and `scripts/build_site.py`): build the website, or serve it
and rebuild on change."""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build_site.py",
                                     description="Build the book's website into build/site/.")
    # No `choices`: the registry (manuscripts/book.yml) is read only past the no-op check,
    # which must stay free of PyYAML; an unknown id is rejected below with the known ones.
    parser.add_argument("--edition", action="append", metavar="ID",
                        help="build only this edition (repeatable; the ids of "
                             "manuscripts/book.yml's `editions:`); default: all")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "site")
    parser.add_argument("--clean", action="store_true", help="drop caches before building")
    parser.add_argument("--no-cache", action="store_true", help="execute every cell and figure")
    parser.add_argument("--serve", action="store_true", help="serve on 127.0.0.1 and rebuild on change")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cell-timeout", type=float, default=60.0,
                        help="seconds a chapter's cells or a figure may run (default 60)")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--strict", action="store_true",
                        help="a chapter a translation lacks is an error (default: the "
                             "original's is shown with a notice, and a warning)")
    args = parser.parse_args(argv)
    from bookkit.pipeline import uptodate
    out = args.out.resolve()
    options = [str(out), sorted(args.edition or []), args.workers, args.cell_timeout,
               args.strict]
    fast = not (args.clean or args.no_cache or args.serve)
    if fast and uptodate.is_up_to_date(ROOT, out, options):
        if not args.quiet:
            print(f"{out} is up to date (no input changed)", file=sys.stderr)
        return 0
    # Imported only now: the no-op check above must not pay for importing the pipeline.
    from bookkit.util.processes import stop_on_signals
    stop_on_signals()   # SIGTERM/SIGHUP reap workers and Node like Ctrl+C (see processes.py)
    from bookkit.pipeline.build import BuildOptions, Builder
    from bookkit.load.config import book_dirs, load_registry
    from bookkit.model import BuildError
    try:
        registry, dirs = load_registry(ROOT), book_dirs(ROOT)
    except BuildError:
        # A broken book.yml: the build reports it (and keeps the previous site), --serve shows it.
        registry, dirs = None, []
    unknown = [e for e in args.edition or [] if registry and e not in registry.ids]
    if unknown:
        parser.error(f"argument --edition: invalid choice: {unknown[0]!r} "
                     f"(choose from {', '.join(registry.ids)})")
    if args.clean:
        shutil.rmtree(ROOT / ".cache" / "bookkit", ignore_errors=True)
        shutil.rmtree(ROOT / "build" / "figures", ignore_errors=True)
    builder = Builder(BuildOptions(root=ROOT, out=out, editions=args.edition,
                                   use_cache=not args.no_cache, workers=args.workers,
                                   cell_timeout=args.cell_timeout, quiet=args.quiet,
                                   strict=args.strict))
    if args.serve:
        from bookkit.pipeline.serve import serve
        return serve(builder, args.port)
    try:
        before = uptodate.fingerprint(ROOT, options, dirs)
        report = builder.build()
    except BuildError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        print("build failed; the previous site (if any) is intact", file=sys.stderr)
        return 1
    # Only if nothing changed while building: an edit made mid-build must trigger a rebuild.
    if uptodate.fingerprint(ROOT, options, dirs) == before:
        uptodate.record(ROOT, out, options, dirs, before)
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not args.quiet:
        t = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in report.timings.items())
        print(f"built {report.pages} pages into {args.out} in {report.seconds:.2f} s "
              f"({report.cells_executed} chapters' cells executed; {t})", file=sys.stderr)
    return 0
