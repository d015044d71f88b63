#!/usr/bin/env python3
"""Compare the numbers and structure of a translated chapter with its original, report the
renderings its edition's glossary avoids (terminology), and, for an edition in Traditional
Chinese (zh-tw), Simplified characters left in the prose.

    python scripts/check_translation.py ORIGINAL.md TRANSLATION.md --lang en|zh-tw|...
                                        [--glossary FILE | --no-glossary] [--precision]
                                        [--format text|json|github|html] [--output FILE]
    python scripts/check_translation.py --book [EDITION ...|all] [--format text|github]

`--lang` is a translated edition's id or language (manuscripts/book.yml's `editions:`). The
glossary is `glossary.yml` beside the translation, else the edition's from the registry; the
report says which (text and JSON: on stderr).
The original is checked against `glossary.yml` in its own folder (manuscripts/glossary.yml)
the same way (findings name the original's line).

The paragraphs of each section are aligned first; numbers are compared inside aligned
paragraphs; a paragraph on one side only is one finding. Many of them: a revision-skew note
at the top (naming, where git can tell, the original's revision the translation matches
best). Differences of precision only (2,796 for 2,795.66) are one summary line unless
`--precision`.

Text output: the notes, a per-section summary (counts by severity), then the findings, most
severe first. `--format github`: workflow annotations (`::error file=…,line=…::…`).
`--format html`: the side-by-side page (to `--output`, or stdout). `--book`: every chapter of
the editions named (all by default) against the original, one summary line per chapter.

Exit status: 0 no findings (with --book: no high finding), 1 findings, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bookkit.check.translation import (book_summary, check_book, check_chapter, find_glossary,
                                        render)
from bookkit.source.glossary import GlossaryError  # noqa: E402
from bookkit.load.config import load_registry  # noqa: E402
from bookkit.model import BuildError  # noqa: E402


def _read(path: str) -> str:
    try:
        return Path(path).read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise SystemExit(f"error: {path}: no such file")
    except IsADirectoryError:
        raise SystemExit(f"error: {path}: is a directory")
    except UnicodeDecodeError as exc:
        raise SystemExit(f"error: {path}: not valid UTF-8 ({exc.reason} at byte {exc.start})")
    except OSError as exc:
        raise SystemExit(f"error: {path}: {exc.strerror}")


def _write(text: str, output: str | None) -> None:
    if output is None:
        print(text)
        return
    out = Path(output)
    tmp = out.with_name(out.name + ".tmp")   # a failed write leaves the previous report intact
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out)
    except OSError as exc:
        raise SystemExit(f"error: {output}: cannot write the report ({exc.strerror}); "
                         f"choose another --output")


def main(argv: list[str] | None = None) -> int:
    try:
        registry = load_registry(ROOT)
        translations = registry.translations
    except BuildError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        return 2
    by_name = {name: spec for spec in translations for name in (spec.id, spec.lang)}
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("original", nargs="?")
    ap.add_argument("translation", nargs="?")
    ap.add_argument("--lang", choices=list(by_name), help="the translated edition's id or language")
    ap.add_argument("--book", nargs="*", metavar="EDITION",
                    help="check every chapter of these editions (default: all) against the original")
    ap.add_argument("--format", default="text", choices=["text", "json", "github", "html"])
    ap.add_argument("--output", help="write the report here (html: default stdout)")
    ap.add_argument("--precision", action="store_true",
                    help="list differences of precision only (2,796 for 2,795.66) as findings")
    ap.add_argument("--glossary", help="terminology file (default: glossary.yml beside the "
                                       "translation, else the edition's)")
    ap.add_argument("--no-glossary", action="store_true", help="skip the terminology check")
    ap.add_argument("--no-history", action="store_true",
                    help="do not ask git which revision of the original a skewed translation follows")
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    if args.book is not None:
        return _book(args, by_name)
    if not (args.original and args.translation and args.lang):
        print("error: give ORIGINAL.md TRANSLATION.md --lang EDITION, or --book", file=sys.stderr)
        return 2
    try:
        original = _read(args.original)
        translation = _read(args.translation)
    except SystemExit as exc:
        print(exc.code, file=sys.stderr)
        return 2
    edition = by_name[args.lang]
    try:
        glossary = find_glossary(Path(args.translation), ROOT / edition.dir,
                                 Path(args.glossary) if args.glossary else None, args.no_glossary)
    except (GlossaryError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    check = check_chapter(args.original, original, args.translation, translation, edition,
                          glossary, find_revision=not args.no_history,
                          original_lang=registry.original.number_lang)
    report = render(check, args.format, args.precision, ROOT)
    if args.format in ("text", "json"):
        print(glossary.describe(ROOT), file=sys.stderr)
    if report or args.format in ("json", "html"):
        _write(report, args.output)
    return 1 if check.listed(args.precision) else 0


def _book(args, by_name) -> int:
    names = [n for n in args.book if n != "all"] or None
    unknown = [n for n in names or [] if n not in by_name]
    if unknown:
        print(f"error: no translated edition {', '.join(unknown)} in manuscripts/book.yml "
              f"(known: {', '.join(sorted(by_name))})", file=sys.stderr)
        return 2
    if names:
        names = [by_name[n].id for n in names]
    if args.format not in ("text", "github"):
        print("error: --book writes text or github annotations", file=sys.stderr)
        return 2
    book = check_book(ROOT, names, find_revision=not args.no_history)
    if args.format == "github":
        lines = [render(c, "github", args.precision) for c in book.chapters]
        text = "\n".join(x for x in lines if x)
        if text:
            _write(text, args.output)
        print(book_summary(book, args.precision), file=sys.stderr)
    elif args.format == "text":
        parts = [book_summary(book, args.precision)]
        for c in book.chapters:
            if c.listed(args.precision):
                parts += ["", render(c, "text", args.precision)]
        _write("\n".join(parts), args.output)
    return 1 if book.has_high(args.precision) else 0


def _main() -> int:
    try:
        return main()
    except SystemExit as exc:   # an unwritable --output: bad input
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    sys.exit(_main())
