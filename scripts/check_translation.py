#!/usr/bin/env python3
"""Compare the numbers and structure of a translated chapter with its original, report the
renderings its edition's glossary avoids (terminology), and, for an edition in Traditional
Chinese (zh-tw), Simplified characters left in the prose.

    python scripts/check_translation.py ORIGINAL.md TRANSLATION.md --lang en|zh-tw|...
                                        [--glossary FILE | --no-glossary] [--format text|json]

`--lang` is a translated edition's id or language (manuscripts/book.yml's `editions:`). The
glossary defaults to `glossary.yml` in the translation's folder, when there is one.

Text output: a per-section summary (counts by severity), then the findings, most severe first
(high: a value a reader would act on is wrong or gone; medium: a plain count, a label, a
structural or wording difference; low: the same number at another precision).

Exit status: 0 no findings, 1 findings, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bookkit.check.numbers import Finding, check_pair, format_summary, format_text, rank  # noqa: E402
from bookkit.check.script import describe, leftover_simplified  # noqa: E402
from bookkit.check.terminology import GLOSSARY_FILE, GlossaryError, find_avoided, load_glossary  # noqa: E402
from bookkit.load import load_registry  # noqa: E402
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


def unsafe_findings(original_path: str, original: str, translation_path: str,
                    translation: str) -> list[Finding]:
    """What a translation may not carry (bookkit/trust.py: raw HTML but the anchors, raw TeX,
    figure scripts of its own, symlinked images, script URLs), as high-severity findings."""
    from bookkit import trust
    from bookkit.markdown import parse
    original_tokens = parse(original)[0]
    figures = Path(original_path).resolve().parent / "figures"
    book_root = figures.parent.parent
    problems = trust.chapter_problems(parse(translation)[0], translation, False, original_tokens,
                                      trust.math_commands(original_tokens), figures, book_root,
                                      Path(translation_path).resolve())
    return [Finding("unsafe", None, None, None, p.line,
                    p.message + (f" ({p.hint})" if p.hint else ""), "high") for p in problems]


def main(argv: list[str] | None = None) -> int:
    try:
        translations = load_registry(ROOT).translations
    except BuildError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        return 2
    by_name = {name: spec for spec in translations for name in (spec.id, spec.lang)}
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("original")
    ap.add_argument("translation")
    ap.add_argument("--lang", required=True, choices=list(by_name),
                    help="the translated edition's id or language")
    ap.add_argument("--format", default="text", choices=["text", "json"])
    ap.add_argument("--glossary", help=f"terminology file (default: {GLOSSARY_FILE} beside the translation)")
    ap.add_argument("--no-glossary", action="store_true", help="skip the terminology check")
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    try:
        original = _read(args.original)
        translation = _read(args.translation)
    except SystemExit as exc:
        print(exc.code, file=sys.stderr)
        return 2
    glossary = None if args.no_glossary else (
        Path(args.glossary) if args.glossary else Path(args.translation).parent / GLOSSARY_FILE)
    try:
        terms = load_glossary(glossary) if glossary and (args.glossary or glossary.is_file()) else []
    except (GlossaryError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    edition = by_name[args.lang]
    findings = check_pair(original, translation, edition.number_lang, args.original,
                          args.translation)
    findings += [Finding("terminology", u.form, None, None, u.line, u.message())
                 for u in find_avoided(translation, terms)]
    if edition.is_traditional_chinese:   # and Simplified characters left in the prose
        findings += [Finding("leftover", x.char, None, None, x.line, describe(x))
                     for x in leftover_simplified(translation)]
    findings += unsafe_findings(args.original, original, args.translation, translation)
    findings = rank(findings)
    if args.format == "json":
        print(json.dumps([f.to_dict() for f in findings], ensure_ascii=False, indent=2))
    elif findings:
        print(format_summary(findings))
        print()
        print(format_text(findings, args.translation))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
