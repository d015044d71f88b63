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
    from . import uptodate
    out = args.out.resolve()
    options = [str(out), sorted(args.edition or []), args.workers, args.cell_timeout,
               args.strict]
    fast = not (args.clean or args.no_cache or args.serve)
    if fast and uptodate.is_up_to_date(ROOT, out, options):
        if not args.quiet:
            print(f"{out} is up to date (no input changed)", file=sys.stderr)
        return 0
    # Imported only now: the no-op check above must not pay for importing the pipeline.
    from .processes import stop_on_signals
    stop_on_signals()   # SIGTERM/SIGHUP reap workers and Node like Ctrl+C (see processes.py)
    from .build import BuildOptions, Builder
    from .load import book_dirs, load_registry
    from .model import BuildError
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
        from .serve import serve
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


def editions_main(argv: list[str]) -> int:
    """`python -m bookkit editions [--field F]`: one edition per line, in book.yml's order
    (for the Makefile and shell loops)."""
    from .load import load_registry
    from .model import EditionSpec
    from .model import BuildError
    fields = [f for f in EditionSpec.__dataclass_fields__ if f not in ("langs", "line")]
    fields += ["url_prefix", "pdf_name", "epub_name"]
    parser = argparse.ArgumentParser(prog="python -m bookkit editions",
                                     description="List the book's editions (manuscripts/book.yml).")
    parser.add_argument("--field", default="id", choices=fields,
                        help="what to print for each edition (default: id)")
    parser.add_argument("--translations", action="store_true", help="leave out the original")
    args = parser.parse_args(argv)
    try:
        registry = load_registry(ROOT)
    except BuildError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        return 1
    for spec in registry.translations if args.translations else registry:
        value = getattr(spec, args.field)
        print("" if value is None else value)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m bookkit {build,serve,pdf,epub,check,export,import,editions} [options]")
        return 0
    command, rest = argv[0], argv[1:]
    if command == "editions":
        return editions_main(rest)
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
    if command == "import":
        from .importer import main as import_main
        return import_main(rest)
    if command == "export":
        from .export import export_main
        return export_main(rest)
    print(f"unknown command {command}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
