import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bookkit.build import BuildOptions, Builder  # noqa: E402


SHARED_CACHE = ROOT / ".cache" / "bookkit"


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The whole embedded book, built once for the session (this also warms the shared cache
    that tests on copies of the book start from)."""
    out = tmp_path_factory.mktemp("site") / "site"
    Builder(BuildOptions(root=ROOT, out=out, quiet=True)).build()
    return out


@pytest.fixture
def warm_cache(built_site, tmp_path) -> Path:
    """A private copy of the warm cache: cache entries record dependencies relative to the
    book root, so they stay valid for a copy of the book."""
    dest = tmp_path / "cache"
    shutil.copytree(SHARED_CACHE, dest)
    return dest


def copy_book(dest: Path) -> Path:
    """A private copy of the book's sources (for tests that break them)."""
    for name in ("manuscripts", "book-en", "book-zh-tw", "calculations", "bookkit", "scripts"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    (dest / "website").mkdir()
    for name in ("templates", "static"):
        shutil.copytree(ROOT / "website" / name, dest / "website" / name)
    (dest / "website" / "node_modules").symlink_to(ROOT / "website" / "node_modules")
    return dest


@pytest.fixture
def book_copy(tmp_path) -> Path:
    return copy_book(tmp_path / "book")


@pytest.fixture(scope="session")
def site_url(built_site):
    """The built site served over HTTP under a sub-path (/site/), as on a static host."""
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(built_site.parent))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/{built_site.name}/"
    httpd.shutdown()
    httpd.server_close()
