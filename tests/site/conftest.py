import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


SHARED_CACHE = ROOT / ".cache" / "bookkit"


@pytest.fixture
def warm_cache(built_site, tmp_path) -> Path:
    """A private copy of the warm cache: cache entries record dependencies relative to the
    book root, so they stay valid for a copy of the book."""
    from bookkit.util.cache import copy_cache
    dest = tmp_path / "cache"
    copy_cache(SHARED_CACHE, dest)
    return dest


def copy_book(dest: Path) -> Path:
    """A private copy of the book's sources (for tests that break them): every edition's folder
    (the registry in manuscripts/book.yml), the calculations, the pipeline and the scripts."""
    from bookkit.load.config import book_dirs
    for name in (*book_dirs(ROOT), "calculations", "bookkit", "scripts"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    (dest / "website").mkdir()
    for name in ("templates", "static"):
        shutil.copytree(ROOT / "website" / name, dest / "website" / name)
    (dest / "website" / "node_modules").symlink_to(ROOT / "website" / "node_modules")
    return dest


@pytest.fixture
def book_copy(tmp_path) -> Path:
    return copy_book(tmp_path / "book")




@pytest.fixture
def context_factory(browser):
    """Browser contexts made on demand (viewport, colour scheme, JavaScript off…), all closed
    after the test."""
    contexts = []

    def make(**kwargs):
        ctx = browser.new_context(**kwargs)
        contexts.append(ctx)
        return ctx
    yield make
    for ctx in contexts:
        ctx.close()
