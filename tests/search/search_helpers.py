"""Fixtures for the search tests: the fixture corpus, built assets, a served site, Chromium."""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bookkit.lunr.index import SearchDoc, build_search_assets  # noqa: E402

HERE = Path(__file__).resolve().parent
STATIC = ROOT / "website" / "static"
LUNR_MIN = ROOT / "website" / "node_modules" / "lunr" / "lunr.min.js"
LUNR_JS = ROOT / "website" / "node_modules" / "lunr" / "lunr.js"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: edition -> directory under the served sub-path (site root "/" is zh-Hans)
EDITION_DIRS = {"zh-Hans": "", "en": "en/", "zh-Hant": "zh-tw/"}
LABELS = {
    "zh-Hans": ("搜索", "搜索全书", "共 {n} 条结果", "没有找到结果", "正在加载索引…"),
    "en": ("Search", "Search the book", "{n} results", "No results", "Loading index…"),
    "zh-Hant": ("搜尋", "搜尋全書", "共 {n} 筆結果", "找不到結果", "正在載入索引…"),
}
SUBPATH = "book/"


def load_corpus() -> dict:
    data = json.loads((HERE / "fixtures" / "corpus.json").read_text("utf-8"))
    return {
        lang: {"docs": [SearchDoc(*row) for row in ed["docs"]], "golden": [tuple(g) for g in ed["golden"]]}
        for lang, ed in data.items()
    }


@pytest.fixture(scope="session")
def corpus() -> dict:
    return load_corpus()


@pytest.fixture(scope="session")
def assets(corpus) -> dict:
    return {lang: build_search_assets(ed["docs"], lang) for lang, ed in corpus.items()}


def page_html(lang: str, root: str, static: str, body: str = "") -> str:
    placeholder, aria, count, none, loading = LABELS[lang]
    return f"""<!DOCTYPE html>
<html lang="{lang}" data-root="{root}" data-static="{static}">
<head><meta charset="utf-8"><title>test</title>
<link rel="stylesheet" href="{static}search.css">
<style>:root{{--bg:#fff;--fg:#111;--muted:#555;--accent:#0a58ca;--border:#ccc;--hl:#ffe58a}}</style>
</head>
<body>
<div class="search" role="search">
  <input type="search" id="search-input" placeholder="{placeholder}" aria-label="{aria}" autocomplete="off"
         aria-controls="search-results" aria-expanded="false"
         data-label-count="{count}" data-label-none="{none}" data-label-loading="{loading}">
  <div id="search-status" aria-live="polite"></div>
  <ul id="search-results" role="listbox" hidden></ul>
</div>
<main><p id="body">{body}</p></main>
<script src="{static}search.js" defer></script>
</body>
</html>
"""


def build_site(dest: Path, corpus: dict, assets: dict) -> Path:
    """A site like the lead's: editions at /, /en/, /zh-tw/, one shared static dir."""
    site = dest / SUBPATH
    (site / "static").mkdir(parents=True)
    for name in ("search.js", "search-ui.js", "search-worker.js", "search-engine.js", "search.css"):
        shutil.copy(STATIC / name, site / "static" / name)
    shutil.copy(LUNR_MIN, site / "static" / "lunr.min.js")   # as the build copies it
    # the worker as the build ships it: lunr and the engine in front of its own code
    from bookkit.render.site.renderer import bundle_search_worker
    (site / "static" / "search-worker.js").write_bytes(bundle_search_worker(
        LUNR_MIN.read_bytes(), (STATIC / "search-engine.js").read_bytes(),
        (STATIC / "search-worker.js").read_bytes()))
    for lang, sub in EDITION_DIRS.items():
        edition = site / sub
        edition.mkdir(parents=True, exist_ok=True)
        for name, data in assets[lang].items():
            (edition / name).write_bytes(data)
        pages = {"index.html"} | {d.url.split("#")[0] for d in corpus[lang]["docs"]}
        for page in sorted(pages):
            depth = page.count("/")
            root = "../" * depth or "./"
            static = "../" * (depth + sub.count("/")) + "static/"
            path = edition / page
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(page_html(lang, root, static, body=f"{lang}:{page}"), "utf-8")
    return site


@pytest.fixture(scope="session")
def site(tmp_path_factory, corpus, assets) -> Path:
    return build_site(tmp_path_factory.mktemp("site"), corpus, assets)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # a browser cancels requests (a page closed, a search file no longer wanted)
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


@pytest.fixture(scope="session")
def server(site):
    handler = functools.partial(_QuietHandler, directory=str(site.parent))
    httpd = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/{SUBPATH}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.js_errors = errors
    yield pg
    context.close()


def edition_url(base: str, lang: str, page: str = "index.html") -> str:
    return base + EDITION_DIRS[lang] + page
