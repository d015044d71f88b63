"""Session fixtures for the release tests: the real book built once into a scratch directory.

Everything is written under pytest's temporary directory (site, resolved Pandoc sources, the
six PDF/EPUB files), so the tests never touch ``build/``, ``book*/`` or ``dist/`` that other
work in the checkout may be using. The PDFs and EPUBs are built by the project's own entry
points (``book*/build_pdf.sh`` and ``book/build_epub.py``) with ``--source``/``--out``.
"""
from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

from bookkit.pipeline.build import BuildOptions, Builder  # noqa: E402
from bookkit.pipeline.export import export_edition  # noqa: E402
from release_helpers import (EDITIONS, LAYOUT, Books, SiteEdition, _build,  # noqa: E402
                             read_site_edition, run_release)


@pytest.fixture(scope="session")
def books(tmp_path_factory) -> Books:
    """The real book: site, then each edition's PDF and EPUB built exactly once (two at a time
    when this is the only pytest process: the machine has two cores)."""
    tmp = tmp_path_factory.mktemp("release-book")
    site = tmp / "site"
    builder = Builder(BuildOptions(root=ROOT, out=site, quiet=True))
    builder.build()
    sources = {}
    for ed in EDITIONS:
        sources[ed] = export_edition(ed, tmp / "pandoc" / ed, builder=builder)
    artifacts = tmp / "artifacts"
    artifacts.mkdir()
    jobs = [(kind, ed) for kind in ("pdf", "epub") for ed in EDITIONS]
    books = Books(ROOT, site, artifacts)
    # under pytest-xdist another worker already uses the second core
    workers = 1 if os.environ.get("PYTEST_XDIST_WORKER") else 2
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {
            (ed, kind): pool.submit(_build, kind, ed, sources[ed],
                                    artifacts / LAYOUT[ed][2 if kind == "pdf" else 3])
            for kind, ed in jobs
        }
        for key, fut in futures.items():
            books.builds[key] = fut.result()
    return books


@pytest.fixture(scope="session")
def site_editions(books) -> dict[str, SiteEdition]:
    return {ed: read_site_edition(books.site, ed) for ed in EDITIONS}


@pytest.fixture(scope="session")
def release_dist(books, tmp_path_factory) -> Path:
    """scripts/release.py run on the scratch build (SOURCE_DATE_EPOCH fixed)."""
    for ed in EDITIONS:
        for kind in ("pdf", "epub"):
            b = books.builds[(ed, kind)]
            assert b.returncode == 0, f"{kind} {ed} failed:\n{b.output[-3000:]}"
    out = tmp_path_factory.mktemp("release") / "dist"
    run_release("--artifacts", books.artifacts, "--site", books.site, "--out", out, check=True)
    return out


