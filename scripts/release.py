#!/usr/bin/env python3
"""Assemble a release in ``dist/`` (``make release`` runs ``make site pdf epub`` first).

``dist/`` holds exactly::

    AI-Infra-Book.pdf  AI-Infra-Book-EN.pdf  AI-Infra-Book-ZH-TW.pdf    one PDF and one EPUB per
    AI-Infra-Book.epub AI-Infra-Book-EN.epub AI-Infra-Book-ZH-TW.epub  edition (book.yml)
    AI-Infra-Book-site.tar.gz   build/site/ as a deterministic archive
    numbers.json                every bound value of the book, "<chapter-slug>/<name>": value
    SHA256SUMS                  sha256sum format, sorted by file name

The tree is built in ``dist.tmp`` and swapped in only when complete, so a failed release leaves
the previous ``dist/`` untouched. A missing input is reported with the command that makes it.

The *numbers diff* compares the book's computed values with a previous release's numbers.json::

    python scripts/release.py --diff OLD/numbers.json            # current book vs OLD
    python scripts/release.py --diff OLD.json --current NEW.json # two files
    python scripts/release.py --diff OLD.json --notes notes.md   # also write release notes

Options ``--artifacts DIR`` (the six files, flat, instead of book*/), ``--site DIR`` and
``--out DIR`` let tests release from a scratch build.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import math
import os
import shutil
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def edition_artifacts(root: Path = ROOT) -> dict[str, tuple[str, str]]:
    """File name in dist -> (where the build puts it, the command that makes it): a PDF and an
    EPUB per edition of the registry (manuscripts/book.yml), PDFs first."""
    from bookkit.load.config import load_registry
    registry = load_registry(root)
    # The command is the pipeline's own, not the edition folder's build_pdf.sh: a translation
    # folder is a contributor's text, never run (CONTRIBUTING, "Threat model").
    out = {e.pdf_name: (f"{e.out}/{e.pdf_name}", f"python -m bookkit pdf --edition {e.id}")
           for e in registry}
    out.update({e.epub_name: (f"{e.out}/{e.epub_name}",
                              f"python3 book/build_epub.py --edition {e.id}") for e in registry})
    return out

SITE_ARCHIVE = "AI-Infra-Book-site.tar.gz"
SITE_PREFIX = "AI-Infra-Book-site"
NUMBERS = "numbers.json"
SUMS = "SHA256SUMS"
SITE_SKIP = {".manifest.json"}     # the builder's incremental-write bookkeeping, not the site


class ReleaseError(Exception):
    pass


from bookkit.util.fsutil import swap_dir  # noqa: E402  (after the sys.path insert)
from bookkit.model import BuildError as BookError  # noqa: E402


# ---------------------------------------------------------------------------------- inputs
def find_inputs(artifacts: Path | None, site: Path) -> dict[str, Path]:
    """dist name -> input path; raises ReleaseError naming every missing file and its command."""
    found, missing = {}, []
    for name, (default, command) in edition_artifacts().items():
        path = (artifacts / name) if artifacts else ROOT / default
        if path.is_file() and path.stat().st_size > 0:
            found[name] = path
        else:
            missing.append((path, command))
    if not (site / "index.html").is_file():
        missing.append((site / "index.html", "make site   (python scripts/build_site.py)"))
    if missing:
        lines = [f"  {_rel(p)}: missing; make it with `{cmd}`" for p, cmd in missing]
        raise ReleaseError("release: missing input file(s):\n" + "\n".join(lines) +
                           "\n(`make release` builds everything: make site pdf epub)")
    return found


def _rel(p: Path) -> str:
    try:
        return str(Path(p).resolve().relative_to(ROOT))
    except ValueError:
        return str(p)


# ---------------------------------------------------------------------------------- numbers
def _jsonable(value):
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    try:                                  # numpy scalars and friends
        item = value.item()
        if isinstance(item, (int, float, str, bool)):
            return _jsonable(item)
    except AttributeError:
        pass
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return repr(value)


def compute_numbers(root: Path = ROOT) -> dict[str, object]:
    """Every bound value of the book: {"<chapter-slug>/<name>": value}, sorted by key."""
    from bookkit.pipeline.build import resolve_book

    resolved = resolve_book(root, figures=())   # the numbers only: no figure drawn, no renderer
    book, cells = resolved.book, resolved.cells
    slugs = {ch.number: ch.slug for ch in book.original.chapters}
    numbers = {}
    for number, result in cells.items():
        for name, bound in result.values.items():
            numbers[f"{slugs[number]}/{name}"] = _jsonable(bound.value)
    return dict(sorted(numbers.items()))


def dump_numbers(numbers: dict) -> bytes:
    return (json.dumps(numbers, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()


def numbers_diff(old: dict, new: dict) -> list[tuple[str, str, object, object]]:
    """(kind, key, old, new) for every added / removed / changed value, sorted by key."""
    out = []
    for key in sorted(old.keys() | new.keys()):
        if key not in old:
            out.append(("added", key, None, new[key]))
        elif key not in new:
            out.append(("removed", key, old[key], None))
        elif old[key] != new[key] or type(old[key]) is not type(new[key]):
            out.append(("changed", key, old[key], new[key]))
    return out


def _show(v) -> str:
    return json.dumps(v, ensure_ascii=False)


def _delta(old, new) -> str:
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (old, new))
    if not numeric or old == 0:
        return ""
    return f" ({(new - old) / abs(old):+.2%})"


def format_diff(changes, previous: str) -> str:
    counts = {k: sum(1 for c in changes if c[0] == k) for k in ("changed", "added", "removed")}
    head = (f"numbers diff vs {previous}: {counts['changed']} changed, {counts['added']} added, "
            f"{counts['removed']} removed")
    lines = [head]
    for kind, key, old, new in changes:
        if kind == "changed":
            lines.append(f"  changed  {key}: {_show(old)} -> {_show(new)}{_delta(old, new)}")
        elif kind == "added":
            lines.append(f"  added    {key}: {_show(new)}")
        else:
            lines.append(f"  removed  {key}: {_show(old)}")
    if not changes:
        lines.append("  (no computed value changed)")
    return "\n".join(lines) + "\n"


def release_notes(changes, previous: str) -> str:
    """Markdown body for a GitHub Release: downloads plus the numbers diff."""
    lines = [
        "Built from the manuscripts by `make release`: PDF and EPUB in three editions, the "
        "website archive, `numbers.json` and `SHA256SUMS` (`sha256sum -c SHA256SUMS`).",
        "",
        "## Numbers diff",
        "",
        "Every number in the book is computed at build time. `numbers.json` lists all of them "
        "(`\"<chapter>/<name>\": value`); this section lists every computed value that changed "
        "since the previous release" + (f" ({previous})" if previous else "") + ": a changed "
        "hardware figure, model configuration or formula shows up here with its old and new "
        "value. Reproduce it with `python scripts/release.py --diff OLD/numbers.json`.",
        "",
    ]
    if changes is None:
        lines.append("No previous release to compare with: this is the first one.")
    elif not changes:
        lines.append("No computed value changed.")
    else:
        counts = {k: sum(1 for c in changes if c[0] == k) for k in ("changed", "added", "removed")}
        lines += [f"{counts['changed']} changed, {counts['added']} added, "
                  f"{counts['removed']} removed.", "",
                  "| | value | before | after |", "|---|---|---|---|"]
        for kind, key, old, new in changes:
            before = "" if kind == "added" else f"`{_show(old)}`"
            after = "" if kind == "removed" else f"`{_show(new)}`"
            if kind == "changed":
                after += _delta(old, new)
            lines.append(f"| {kind} | `{key}` | {before} | {after} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------- archive
def source_date_epoch(root: Path = ROOT) -> int:
    env = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if env:
        try:
            return int(env)
        except ValueError:
            raise ReleaseError(f"release: SOURCE_DATE_EPOCH={env!r} is not an integer")
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=root, capture_output=True,
                             text=True, check=True).stdout.strip()
        return int(out)
    except (OSError, subprocess.CalledProcessError, ValueError):
        return 0


def site_archive(site: Path, out: Path, mtime: int) -> None:
    """Deterministic tar.gz of the site: sorted entries, fixed mtime, root-owned, gzip mtime 0.

    Files are stored as regular files even when the builder hard-linked them, so the archive
    depends only on names and contents.
    """
    entries = []
    for path in site.rglob("*"):
        rel = path.relative_to(site).as_posix()
        if rel in SITE_SKIP:
            continue
        entries.append((rel, path))
    entries.sort(key=lambda e: e[0])

    def info(name: str, kind: bytes, mode: int, size: int = 0) -> tarfile.TarInfo:
        ti = tarfile.TarInfo(name)
        ti.type, ti.mode, ti.size, ti.mtime = kind, mode, size, mtime
        ti.uid = ti.gid = 0
        ti.uname = ti.gname = ""
        return ti

    with open(out, "wb") as raw, \
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(info(SITE_PREFIX, tarfile.DIRTYPE, 0o755))
        for rel, path in entries:
            name = f"{SITE_PREFIX}/{rel}"
            st = path.stat()                       # follows symlinks: store what they point to
            if stat.S_ISDIR(st.st_mode):
                tar.addfile(info(name, tarfile.DIRTYPE, 0o755))
            elif stat.S_ISREG(st.st_mode):
                data = path.read_bytes()
                tar.addfile(info(name, tarfile.REGTYPE, 0o644, len(data)), io.BytesIO(data))


# ---------------------------------------------------------------------------------- dist
def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def make_release(out: Path, artifacts: Path | None, site: Path, root: Path = ROOT) -> Path:
    inputs = find_inputs(artifacts, site)
    epoch = source_date_epoch(root)
    numbers = compute_numbers(root)
    tmp = out.with_name(out.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    try:
        for name, src in inputs.items():
            shutil.copyfile(src, tmp / name)
        site_archive(site, tmp / SITE_ARCHIVE, epoch)
        (tmp / NUMBERS).write_bytes(dump_numbers(numbers))
        sums = "".join(f"{sha256(tmp / n)}  {n}\n" for n in sorted(p.name for p in tmp.iterdir()))
        (tmp / SUMS).write_text(sums, encoding="ascii")
        for p in tmp.iterdir():
            os.utime(p, (epoch, epoch))
            os.chmod(p, 0o644)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    swap_dir(tmp, out)
    return out


def _load_json(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReleaseError(f"release: {path}: no such file")
    except ValueError as exc:
        raise ReleaseError(f"release: {path}: not JSON ({exc})")
    if not isinstance(data, dict):
        raise ReleaseError(f"release: {path}: expected an object of \"<chapter>/<name>\": value")
    return data


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="scripts/release.py", description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "dist", help="release directory (dist/)")
    ap.add_argument("--site", type=Path, default=ROOT / "build" / "site", help="built site")
    ap.add_argument("--artifacts", type=Path, default=None,
                    help="directory holding the six PDF/EPUB files (default: book*/ build paths)")
    ap.add_argument("--diff", type=Path, metavar="PREVIOUS_numbers.json", default=None,
                    help="print every computed value that changed since that release "
                         "(does not assemble dist/)")
    ap.add_argument("--current", type=Path, default=None,
                    help="with --diff: compare against this numbers.json instead of the book")
    ap.add_argument("--notes", type=Path, default=None,
                    help="write a Markdown release-notes body here (with --diff: including the "
                         "numbers diff; alone: for a first release) and do not assemble dist/")
    ap.add_argument("--label", default=None,
                    help="with --notes: how to name the previous release (e.g. its tag)")
    args = ap.parse_args(argv)
    try:
        if args.diff is not None:
            old = _load_json(args.diff)
            new = _load_json(args.current) if args.current else compute_numbers()
            changes = numbers_diff(old, new)
            sys.stdout.write(format_diff(changes, str(args.diff)))
            if args.notes:
                args.notes.write_text(release_notes(changes, args.label or str(args.diff)),
                                      encoding="utf-8")
            return 0
        if args.current:
            ap.error("--current needs --diff")
        if args.notes:                      # first release: nothing to compare with
            args.notes.write_text(release_notes(None, ""), encoding="utf-8")
            return 0
        out = make_release(args.out.resolve(), args.artifacts, args.site)
    except ReleaseError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    except BookError as exc:
        print(f"release: cannot compute the book's numbers: {exc.render()}", file=sys.stderr)
        return 1
    names = sorted(p.name for p in out.iterdir())
    print(f"release: {_rel(out)}/ holds {len(names)} files: {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
