"""Put the repository root on sys.path and share the fixture builds across tests."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FIXTURES = ROOT / "tests" / "fixtures" / "pandoc"


def _info(ed):
    """The fixture edition's settings, as the book's registry gives them."""
    from bookkit.load.config import load_edition_info
    return load_edition_info(ROOT, ed)
EDITIONS = ("zh", "en", "zh-tw")


def _ensure_fixture_figures() -> None:
    """The fixtures' figures are drawn, not committed (like every other output)."""
    import subprocess
    wanted = [FIXTURES / ed / "figures" / f"{name}.{ext}" for ed in EDITIONS
              for name in ("fig-roofline", "fig-kv-growth") for ext in ("pdf", "svg")]
    if not all(path.is_file() for path in wanted):
        subprocess.run([sys.executable, str(FIXTURES / "make_figures.py")], check=True)


_ensure_fixture_figures()


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def built_pdfs(tmp_path_factory):
    """One PDF per fixture edition (the slow part of the suite: built once)."""
    from bookkit.render.pandoc.convert import build_pdf

    out_dir = tmp_path_factory.mktemp("pdf")
    results = {}
    for ed in EDITIONS:
        results[ed] = build_pdf(FIXTURES / ed, out_dir / f"{ed}.pdf", info=_info(ed),
                                log=lambda *_: None)
    return results


@pytest.fixture(scope="session")
def built_epubs(tmp_path_factory):
    """Each fixture edition built twice to EPUB; the first build runs epubcheck."""
    from bookkit.render.pandoc.convert import build_epub

    out_dir = tmp_path_factory.mktemp("epub")
    results = {}
    for ed in EDITIONS:
        first = build_epub(FIXTURES / ed, out_dir / f"{ed}-1.epub", info=_info(ed), check=True)
        second = build_epub(FIXTURES / ed, out_dir / f"{ed}-2.epub", info=_info(ed), check=False)
        results[ed] = (first, second)
    return results
