"""The one command line: `python -m bookkit build|serve|pdf|epub|check|export`.

The scripts at their documented paths (scripts/build_site.py, scripts/check_site.py,
book/build_epub.py, book*/build_pdf.sh) are thin wrappers around these commands.
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_site_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build_site.py",
                                     description="Build the book's website into build/site/.")
    parser.add_argument("--edition", action="append", choices=["zh", "en", "zh-tw"],
                        help="build only this edition (repeatable); default: all three")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "site")
    parser.add_argument("--clean", action="store_true", help="drop caches before building")
    parser.add_argument("--no-cache", action="store_true", help="execute every cell and figure")
    parser.add_argument("--serve", action="store_true", help="serve on 127.0.0.1 and rebuild on change")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cell-timeout", type=float, default=60.0,
                        help="seconds a chapter's cells or a figure may run (default 60)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    from . import uptodate
    out = args.out.resolve()
    options = [str(out), sorted(args.edition or []), args.workers, args.cell_timeout]
    fast = not (args.clean or args.no_cache or args.serve)
    if fast and uptodate.is_up_to_date(ROOT, out, options):
        if not args.quiet:
            print(f"{out} is up to date (no input changed)", file=sys.stderr)
        return 0
    # Imported only now: the no-op check above must not pay for importing the pipeline.
    from .processes import stop_on_signals
    stop_on_signals()   # SIGTERM/SIGHUP reap workers and Node like Ctrl+C (see processes.py)
    from .build import BuildOptions, Builder
    from .model import BuildError
    if args.clean:
        shutil.rmtree(ROOT / ".cache" / "bookkit", ignore_errors=True)
        shutil.rmtree(ROOT / "build" / "figures", ignore_errors=True)
    builder = Builder(BuildOptions(root=ROOT, out=out, editions=args.edition,
                                   use_cache=not args.no_cache, workers=args.workers,
                                   cell_timeout=args.cell_timeout, quiet=args.quiet))
    if args.serve:
        from .serve import serve
        return serve(builder, args.port)
    try:
        before = uptodate.fingerprint(ROOT, options)
        report = builder.build()
    except BuildError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        print("build failed; the previous site (if any) is intact", file=sys.stderr)
        return 1
    # Only if nothing changed while building: an edit made mid-build must trigger a rebuild.
    if uptodate.fingerprint(ROOT, options) == before:
        uptodate.record(ROOT, out, options)
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not args.quiet:
        t = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in report.timings.items())
        print(f"built {report.pages} pages into {args.out} in {report.seconds:.2f} s "
              f"({report.cells_executed} chapters' cells executed; {t})", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m bookkit {build,serve,pdf,epub,check,export} [options]")
        return 0
    command, rest = argv[0], argv[1:]
    if command == "build":
        return build_site_main(rest)
    if command == "serve":
        return build_site_main(["--serve", *rest])
    if command in ("pdf", "epub"):
        from .export import book_main
        return book_main(command, rest)
    if command == "check":
        from .check.cli import main as check_main
        return check_main(rest, prog="python -m bookkit check")
    if command == "export":
        from .export import export_main
        return export_main(rest)
    print(f"unknown command {command}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
