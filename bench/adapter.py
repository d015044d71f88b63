"""Lay a book out the way our pipeline reads it, in a throw-away book root.

Two sources:

- the synthetic trilingual book of ``/work/shared/bench/peers/gen_book.py`` (``zh-Hans/``,
  ``en/``, ``zh-Hant/``, each with ``preface.md``, ``ch01.md`` … ``ch12.md`` and ``images/``);
- the real book of this repository (``manuscripts/``, ``book-en/``, ``book-zh-tw/``), copied so
  that ``--clean`` and the caches of a benchmark never touch the working checkout.

Only the *layout* changes: every Markdown file is copied byte for byte (``verify_content``
checks it against the generator's ``book.json``), under the same file name, so the book's own
``[第 8 章](ch08.md)`` links and ``images/figure.png`` paths resolve as written. What the adapter
adds is configuration: ``manuscripts/book.yml`` (the real book's ``editions:`` lines for the
synthetic book's three languages, and the chapter order: ``{file: ch07.md, slug: ch07}``) and
each edition's ``edition.yml`` (copied from the real book: titles, interface strings).

The pipeline finds its book root from the location of ``scripts/build_site.py``
(``Path(__file__).resolve().parent.parent``) and ``bookkit/cli/build.py`` does the same for
``--clean`` and the default ``--out``, so ``scripts/`` and ``bookkit/`` are *copied* (a symlink
would resolve back to the checkout and build — and clean — the real book). ``website/templates``
and ``website/static`` are copied too (a snapshot, so that edits made in the checkout during a
run do not trigger ``--serve`` rebuilds), and ``calculations/`` (also watched) is
copied; ``website/node_modules`` (lunr, KaTeX) is symlinked: it is only read.

Run the adapted book with the venv's interpreter::

    /work/main/.venv/bin/python ROOT/scripts/build_site.py --out ROOT/site [--clean|--serve --port P]
"""
from __future__ import annotations

import argparse
import compileall
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PEERS = Path("/work/shared/bench/peers")
GEN_BOOK = PEERS / "gen_book.py"
#: the synthetic book's folders: one per language
SYNTHETIC_LANGS = ("zh-Hans", "en", "zh-Hant")


def _editions(repo: Path = REPO) -> list:
    """The real book's editions (its registry) whose language the synthetic book has."""
    if str(repo) not in sys.path:
        sys.path.insert(0, str(repo))
    from bookkit.load.config import load_registry
    return [e for e in load_registry(repo) if e.lang in SYNTHETIC_LANGS]


#: synthetic-book folder -> our edition folder
EDITION_DIRS = {e.lang: e.dir for e in _editions()}
#: the synthetic book's file order: preface, then chapters 1..12
SYNTHETIC_FILES = ["preface.md"] + [f"ch{n:02d}.md" for n in range(1, 13)]
#: the zh-Hans chapter the edit scenario touches (as the peers' `Editor`)
EDIT_FILE = "ch07.md"


def _copytree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
                    dirs_exist_ok=True)


def make_skeleton(root: Path, repo: Path = REPO) -> Path:
    """An empty book root with the pipeline (copied) and the front end (linked)."""
    root = Path(root)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    _copytree(repo / "bookkit", root / "bookkit")
    _copytree(repo / "scripts", root / "scripts")
    # website/: templates and static files are copied (a snapshot: edits others make in the
    # checkout during a run must not trigger `--serve` rebuilds), node_modules is linked.
    (root / "website").mkdir()
    for entry in (repo / "website").iterdir():
        if entry.name == "node_modules" or entry.is_file():
            os.symlink(entry, root / "website" / entry.name)
        else:
            _copytree(entry, root / "website" / entry.name)
    _copytree(repo / "calculations", root / "calculations")
    # Byte-compiled as in a checkout that has run once: with PYTHONDONTWRITEBYTECODE set (as
    # in some CI images and sandboxes) every timed run would otherwise compile the pipeline's
    # sources again (~0.06 s), a cost no user's second build pays.
    for folder in ("bookkit", "scripts", "calculations"):
        compileall.compile_dir(str(root / folder), quiet=1)
    for folder in EDITION_DIRS.values():
        (root / folder).mkdir()
        src = repo / folder / "edition.yml"
        shutil.copy2(src, root / folder / "edition.yml")
    return root


def _book_yml(files: list[str], repo: Path = REPO) -> str:
    real = (repo / "manuscripts" / "book.yml").read_text(encoding="utf-8").splitlines()
    urls = [line for line in real if line.startswith(("site_url:", "release_url:", "file_name:"))]
    # The registry's own lines (one per edition) for the languages the synthetic book has.
    editions = [line for e in _editions(repo) for line in real[e.line - 1:e.line]]
    lines = ["# Written by bench/adapter.py: the synthetic book's chapter order; slug = file stem."]
    lines += urls + ["editions:"] + editions + ["chapters:"]
    lines += [f"  - {{file: {f}, slug: {Path(f).stem}}}" for f in files]
    return "\n".join(lines) + "\n"


def adapt_synthetic(book: Path, root: Path, chapters: int | None = None,
                    repo: Path = REPO) -> Path:
    """Copy the synthetic book at ``book`` into a new book root ``root``.

    ``chapters``: keep only the preface and the first N chapters (for quick tests). Links to
    dropped chapters would be build errors, so a reduced copy is for structure tests only when
    it keeps every chapter it links to; with N = None (the benchmark) every file is copied.
    """
    book, root = Path(book), Path(root)
    files = SYNTHETIC_FILES if chapters is None else SYNTHETIC_FILES[: chapters + 1]
    make_skeleton(root, repo)
    for src_dir, dst_dir in EDITION_DIRS.items():
        src, dst = book / src_dir, root / dst_dir
        for name in files:
            shutil.copy2(src / name, dst / name)
        if (src / "images").is_dir():
            _copytree(src / "images", dst / "images")
    (root / "manuscripts" / "book.yml").write_text(_book_yml(files, repo), encoding="utf-8")
    return root


def verify_content(book: Path, root: Path) -> list[str]:
    """Files whose bytes differ from the generator's manifest (``book.json``); [] if none."""
    manifest = json.loads((Path(book) / "book.json").read_text(encoding="utf-8"))
    bad = []
    for src_dir, dst_dir in EDITION_DIRS.items():
        for entry in manifest["editions"][src_dir]["files"]:
            path = Path(root) / dst_dir / entry["name"]
            if not path.is_file():
                continue    # a reduced copy
            if hashlib.sha256(path.read_bytes()).hexdigest() != entry["sha256"]:
                bad.append(str(path))
    return bad


def book_sha256(book: Path) -> str:
    manifest = json.loads((Path(book) / "book.json").read_text(encoding="utf-8"))
    return str(manifest.get("book_sha256", ""))


def generate(book: Path) -> Path:
    """Run the peers' generator (deterministic) into ``book`` unless it is already there."""
    import subprocess
    book = Path(book)
    if not (book / "book.json").is_file():
        subprocess.run([sys.executable, str(GEN_BOOK), str(book)], check=True,
                       stdout=subprocess.DEVNULL)
    return book


def adapt_real(root: Path, repo: Path = REPO) -> Path:
    """A copy of this repository's book (every edition, figure scripts) in ``root``."""
    root = Path(root)
    make_skeleton(root, repo)
    from bookkit.load.config import book_dirs
    for folder in book_dirs(repo):
        _copytree(repo / folder, root / folder)
    _copytree(repo / "book", root / "book")   # the PDF/EPUB scripts, LaTeX template, EPUB CSS
    return root


def edit_paragraph(path: Path, marker: str) -> str:
    """Append ``marker`` to the first paragraph under the first H3 (the peers' `Editor`).

    Returns the original text so the caller can restore it.
    """
    text = Path(path).read_text(encoding="utf-8")
    lines = text.split("\n")
    in_h3 = False
    for i, line in enumerate(lines):
        if line.startswith("### "):
            in_h3 = True
            continue
        if in_h3 and line.strip():
            lines[i] = line + marker
            break
    else:
        raise ValueError(f"{path}: no paragraph under an H3")
    Path(path).write_text("\n".join(lines), encoding="utf-8")
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", type=Path, help="book root to create (replaced if it exists)")
    ap.add_argument("--book", type=Path, help="synthetic book (default: generate one)")
    ap.add_argument("--real", action="store_true", help="copy the real book instead")
    ap.add_argument("--chapters", type=int, help="keep the preface and the first N chapters")
    args = ap.parse_args(argv)
    if args.real:
        adapt_real(args.root)
    else:
        book = args.book or generate(args.root.with_name(args.root.name + "-src"))
        adapt_synthetic(book, args.root, args.chapters)
        bad = verify_content(book, args.root)
        if bad:
            print("content differs: " + ", ".join(bad), file=sys.stderr)
            return 1
    print(args.root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
