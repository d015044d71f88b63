"""`python -m bookkit export|pdf|epub`: resolve the book (load and resolve only:
`bookkit.build.resolve_book`, no site renderer), write an edition's Pandoc sources
(`bookkit.render.pandoc_markdown`), and build its PDF or EPUB through the output registry
(`bookkit.render.outputs`). `resolved_markdown` gives the translation check the chapters with
their numbers as rendered.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from .build import resolve_book
from .cache import Cache
from .load import load_book, load_registry, untranslated_warnings
from .model import BuildError, ResolvedBook
from .render import outputs as registry
from .render import pandoc_markdown
from .resolve.book import Resolver
from .render.text import title_text

ROOT = Path(__file__).resolve().parent.parent


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def resolve_edition(edition: str, root: Path = ROOT, strict: bool = False, warn=None,
                    builder=None) -> ResolvedBook:
    """The book resolved for one edition's PDF or EPUB (figures drawn as SVG and PDF). A
    chapter the edition lacks is the original's with a notice (`warn` is told), or, with
    `strict`, a BuildError; an unknown edition is a BuildError. `builder`: a
    `bookkit.build.Builder` whose resolver (and its memo) to use, and whose root and
    `strict` then apply."""
    root, resolver = (builder.root, builder.resolver) if builder else (Path(root).resolve(), None)
    strict = builder.opt.strict if builder else strict
    book = load_book(root, [edition], strict=strict)
    for warning in untranslated_warnings(book, root) if warn else ():
        if warning.startswith(book.editions[edition].info.folder.name + "/"):
            warn(warning)
    figures = registry.figure_formats([registry.output_class("pdf"),
                                       registry.output_class("epub")])
    if resolver is None:
        resolver = Resolver(root, Cache(root / ".cache" / "bookkit", base=root))
    return resolver.resolve(book, title_text, figures, [edition])


def _stamp() -> dict:
    """The date and version printed in the book: the last commit's."""
    return {"date": _git("log", "-1", "--format=%cs") or "2026-01-01",
            "version": _git("rev-parse", "--short", "HEAD") or "dev"}


def export_edition(edition: str, out_dir: Path, chapter: int | None = None,
                   builder=None, warn=None) -> Path:
    """Write the edition's resolved Pandoc sources into out_dir; returns out_dir (see
    `resolve_edition` for `builder` and `warn`)."""
    resolved = resolve_edition(edition, warn=warn, builder=builder)
    return pandoc_markdown.write_sources(resolved, edition, out_dir, chapter, **_stamp())


def resolved_markdown(root: Path = ROOT, builder=None) -> dict:
    """{(edition, file name): text} with bound numbers substituted and nothing else changed.

    Line numbers stay those of the author's file, so a checker can report `file:line`. No
    figure is drawn: the text does not need them. Load and resolve only (no renderer,
    minifier or search indexer); `builder`: a `bookkit.build.Builder` whose resolver to use.
    """
    if builder is not None:
        resolved = builder.resolver.resolve(load_book(builder.root), title_text, ())
    else:
        resolved = resolve_book(root, figures=())
    return {(key, name): text for key in resolved.editions
            for name, text in pandoc_markdown.substituted_text(resolved, key).items()}


def export_main(argv: list[str] | None = None) -> int:
    try:
        ids = load_registry(ROOT).ids
    except BuildError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        return 1
    parser = argparse.ArgumentParser(prog="python -m bookkit export",
                                     description="Write resolved Pandoc sources for one edition.")
    parser.add_argument("--edition", required=True, choices=ids)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--chapter", type=int)
    args = parser.parse_args(argv)
    out = args.out or ROOT / "build" / "pandoc" / args.edition
    try:
        export_edition(args.edition, out, args.chapter)
    except BuildError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        return 1
    print(out)
    return 0


def book_main(kind: str, argv: list[str] | None = None) -> int:
    """`python -m bookkit pdf|epub`: export the edition's Pandoc sources (or take `--source`),
    then build the PDF or EPUB: the registry's output `kind` (`bookkit.render.book_output`)."""
    from .render import pandoc

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
    from .processes import stop_on_signals
    stop_on_signals()   # SIGTERM stops Pandoc/XeLaTeX and leaves the previous file (processes.py)
    # The output's name is the edition's registry entry (book.yml, read above).
    spec = editions.by_id(args.edition)
    out = args.out or pandoc._default_out(kind, args.edition, args.chapter, spec, ROOT)
    if args.chapter is not None and args.out is not None and \
            out.resolve() == pandoc._default_out(kind, args.edition, None, spec, ROOT).resolve():
        out = pandoc._default_out(kind, args.edition, args.chapter, spec, ROOT)  # never clobber
    try:
        options = {"keep_tex": args.keep_tex} if kind == "pdf" else {"check": not args.no_check}
        if args.source:     # resolved sources made earlier (or elsewhere): Pandoc only
            build = pandoc.build_pdf if kind == "pdf" else pandoc.build_epub
            r = build(args.source, out, chapter=args.chapter, edition=args.edition, **options)
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
