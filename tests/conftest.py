"""Shared fixtures: the repo root on sys.path, and one headless Chromium for every browser test.

One Playwright session per pytest run: a second `sync_playwright()` in the same process fails
("Sync API inside the asyncio loop"), so every test package uses this `browser` fixture.
"""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage"]


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The whole embedded book, built once per test session (this also warms the shared cache
    that tests on copies of the book start from)."""
    from bookkit.pipeline.build import BuildOptions, Builder
    out = tmp_path_factory.mktemp("site") / "site"
    Builder(BuildOptions(root=ROOT, out=out, quiet=True)).build()
    return out


@pytest.fixture(scope="session")
def site_url(built_site):
    """The built site served over HTTP under a sub-path (/site/), as on a static host."""
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    class QuietServer(http.server.ThreadingHTTPServer):
        def handle_error(self, request, client_address):
            # a browser cancels requests (a page closed, an image no longer wanted): not a failure
            if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
                super().handle_error(request, client_address)

    handler = functools.partial(Quiet, directory=str(built_site.parent))
    httpd = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/{built_site.name}/"
    httpd.shutdown()
    httpd.server_close()


def pytest_terminal_summary(terminalreporter):
    """Print the translation check's precision and recall on the real-world corpus whenever the
    run included tests/translation/test_corpus.py (issue 15: the score is visible in `make
    test`). Computed here, on the controller, because xdist workers' output is not shown."""
    ran = any("test_corpus.py::test_corpus_scores" in getattr(r, "nodeid", "")
              for reports in terminalreporter.stats.values() for r in reports)
    if not ran:
        return
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "corpus_score", ROOT / "tests" / "translation" / "corpus_score.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("corpus_score", module)   # dataclasses look their module up there
    spec.loader.exec_module(module)
    terminalreporter.write_sep("-", "translation check precision / recall")
    terminalreporter.write_line(module.score_corpus().summary())


def _returned(func, args):
    return ("returned", func(*args))


@pytest.fixture
def in_fork():
    """`in_fork(func, *args)`: func(*args) run in a forked process, its result returned (its
    exception raised here as an AssertionError with the child's traceback). For tests that draw
    figures with the worker body (`draw_in_worker`): it changes the working directory and
    forgets the book's modules, which would leak into the tests run after it in this process
    (a `calculations` error class no longer the one `calc.main` catches; a deleted temporary
    folder as the working directory)."""
    from bookkit.resolve.workers import run_jobs

    def run(func, *args, timeout: float = 900):
        result = run_jobs([("job", _returned, (func, args))], workers=1, timeout=timeout)["job"]
        if isinstance(result, tuple) and result[0] == "returned":
            return result[1]
        raise AssertionError(getattr(result, "error", result))
    return run
