"""`python -m bookkit pdf|epub` (and `book/build_epub.py`, `book*/build_pdf.sh`): one edition's
PDF or EPUB through the registry's Pandoc outputs."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bookkit.load.config import load_edition_info, load_registry
from bookkit.model import BuildError
from bookkit.render import outputs as registry
from bookkit.util.cache import Cache
from bookkit.pipeline.export import _stamp, resolve_edition

ROOT = Path(__file__).resolve().parents[2]


def main(kind: str, argv: list[str] | None = None) -> int:
    """`python -m bookkit pdf|epub`: export the edition's Pandoc sources (or take `--source`),
    then build the PDF or EPUB: the registry's output `kind` (`bookkit.render.pandoc.output`)."""
    from bookkit.render.pandoc import convert as pandoc

    try:
        editions = load_registry(ROOT)
    except BuildError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        return 1
    ap = argparse.ArgumentParser(prog=f"python -m bookkit {kind}",
                                 description=f"Build the book's {kind.upper()} for one edition.")
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("--edition", choices=editions.ids)
    which.add_argument("--edition-dir", metavar="DIR",
                       help="the edition whose folder (or PDF/EPUB folder) is DIR; what "
                            "book*/build_pdf.sh passes, so that a copied folder builds itself")
    ap.add_argument("--chapter", type=int, default=None,
                    help="build one chapter for proofreading (0 = preface)")
    ap.add_argument("--out", type=Path, default=None,
                    help="output file (default: the edition's book file; "
                         "with --chapter a -chNN file next to it)")
    ap.add_argument("--source", type=Path, default=None,
                    help="resolved source directory (default: export build/pandoc/<edition>)")
    if kind == "pdf":
        ap.add_argument("--keep-tex", type=Path, default=None, help="copy book.tex/book.log here")
    else:
        ap.add_argument("--no-check", action="store_true", help="skip epubcheck")
    ap.add_argument("--strict", action="store_true",
                    help="a chapter the edition lacks is an error (default: the original's, "
                         "with a notice)")
    args = ap.parse_args(argv)
    if args.edition_dir:
        spec = editions.by_dir(Path(args.edition_dir).resolve().name)
        if spec is None:
            ap.error(f"{args.edition_dir}: not the folder of an edition in manuscripts/book.yml "
                     f"(add its line to `editions:`)")
        args.edition = spec.id
    from bookkit.util.processes import stop_on_signals
    stop_on_signals()   # SIGTERM stops Pandoc/XeLaTeX and leaves the previous file (processes.py)
    # The output's name is the edition's registry entry (book.yml, read above).
    spec = editions.by_id(args.edition)
    out = args.out or pandoc.default_out(kind, spec, args.chapter, ROOT)
    if args.chapter is not None and args.out is not None and \
            out.resolve() == pandoc.default_out(kind, spec, None, ROOT).resolve():
        out = pandoc.default_out(kind, spec, args.chapter, ROOT)  # never clobber
    try:
        options = {"keep_tex": args.keep_tex} if kind == "pdf" else {"check": not args.no_check}
        if args.source:     # resolved sources made earlier (or elsewhere): Pandoc only
            build = pandoc.build_pdf if kind == "pdf" else pandoc.build_epub
            r = build(args.source, out, info=load_edition_info(ROOT, args.edition, editions),
                      chapter=args.chapter, **options)
        else:
            resolved = resolve_edition(args.edition, ROOT, strict=args.strict,
                                       warn=lambda w: print(f"warning: {w}", file=sys.stderr))
            context = registry.OutputContext(
                ROOT, Cache(ROOT / ".cache" / "bookkit", base=ROOT), out=out,
                work=ROOT / "build" / "pandoc" / args.edition, chapter=args.chapter,
                options={**options, **_stamp()})
            r = registry.make(kind, ROOT, context.cache).write(resolved, context) \
                .details["result"]
        if kind == "pdf":
            print(f"built {_rel(r.output)}: {r.pages} pages, {r.latex_runs} XeLaTeX run(s), "
                  f"{r.seconds:.1f} s")
        else:
            print(f"built {_rel(r.output)}: {r.output.stat().st_size // 1024} KiB, "
                  f"epubcheck {'skipped' if args.no_check else 'clean'}, {r.seconds:.1f} s")
    except BuildError as exc:
        print(exc.render(), file=sys.stderr)
        print(f"error: {kind.upper()} build failed; {_rel(out)} was left unchanged",
              file=sys.stderr)
        return 1
    return 0


def _rel(p: Path) -> str:
    try:
        return str(Path(p).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(p)
