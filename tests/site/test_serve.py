"""`--serve`: live reload after an edit, the error shown in the page, recovery, safe serving."""
import http.client
import os
import socket
import subprocess
import sys
import time

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(book_copy, warm_cache):
    (book_copy / ".cache").mkdir()
    warm_cache.rename(book_copy / ".cache" / "bookkit")   # the test's own copy: a move, not a second copy
    port = free_port()
    log = open(book_copy / "serve.log", "w+")
    proc = subprocess.Popen([sys.executable, "-m", "bookkit", "serve", "--port", str(port)],
                            cwd=book_copy, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONPATH": str(book_copy)})
    deadline = time.time() + 120
    while "serving http://" not in (book_copy / "serve.log").read_text():
        assert proc.poll() is None, (book_copy / "serve.log").read_text()
        assert time.time() < deadline, "server did not start"
        time.sleep(0.2)
    yield book_copy, port, proc
    proc.terminate()
    proc.wait(timeout=10)
    log.close()


def test_edit_reloads_open_page_and_errors_show_in_page(server, browser):
    book, port, _ = server
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{port}/en/device-edge-cloud.html")
    path = book / "book-en" / "12-device-edge-cloud.md"
    original = path.read_text()
    # 1. An edit reloads the open page with the new text.
    path.write_text(original + "\nA freshly written sentence about HBM.\n")
    page.wait_for_selector("text=A freshly written sentence about HBM.", timeout=20_000)
    # 2. A broken source: the page shows the error with file and line, the site keeps serving.
    path.write_text(original + "\nSee @fig-does-not-exist.\n")
    error = page.wait_for_selector("#build-error", timeout=20_000)
    assert "12-device-edge-cloud.md:" in error.inner_text() and "@fig-does-not-exist" in error.inner_text()
    assert page.locator("main h1").is_visible()          # the last good page is still there
    # 3. Fixing it recovers: the error disappears.
    path.write_text(original)
    page.wait_for_selector("#build-error", state="detached", timeout=20_000)
    page.close()


def test_text_edit_swaps_the_changed_block_without_a_reload(server, browser):
    """A paragraph edit updates the open page in place: no reload (a page global survives),
    the scroll position and the inlined figures stay, and only the edited text is new. An
    edit of something else than chapter text (a stylesheet) reloads the page."""
    book, port, _ = server
    page = browser.new_page(viewport={"width": 1200, "height": 800})
    page.goto(f"http://127.0.0.1:{port}/en/accelerators.html")
    # a scripted scroll past blocks not yet laid out (content-visibility) lands short
    page.evaluate("document.documentElement.classList.add('full-layout')")
    page.locator("figure").nth(1).scroll_into_view_if_needed()
    page.wait_for_selector("figure svg.bk-fig")
    page.evaluate("""() => { window.__samePage = true;
        const ps = [...document.querySelectorAll('main article > p')];
        ps.forEach(p => { p.__old = true; }); }""")
    scroll = page.evaluate("window.scrollY")
    assert scroll > 500
    inlined = page.locator("figure svg.bk-fig").count()
    path = book / "book-en" / "04-accelerators.md"
    original = path.read_text()
    lines = original.split("\n")
    first_h3 = next(i for i, line in enumerate(lines) if line.startswith("### "))
    target = next(i for i in range(first_h3 + 1, len(lines)) if lines[i].strip())
    lines[target] += " A sentence swapped in place."
    path.write_text("\n".join(lines))
    page.wait_for_selector("text=A sentence swapped in place.", timeout=30_000)
    assert page.evaluate("window.__samePage") is True
    # where the reader was stays (give or take scroll anchoring's line for the longer paragraph)
    assert abs(page.evaluate("window.scrollY") - scroll) <= 40
    assert page.locator("figure svg.bk-fig").count() == inlined
    # Only the edited text changed: every paragraph is still the element it was.
    assert page.evaluate("[...document.querySelectorAll('main article > p')]"
                         ".every(p => p.__old)")
    css = book / "website" / "static" / "style.css"
    css.write_text(css.read_text() + "\n/* edited */\n")
    page.wait_for_function("() => window.__samePage === undefined", timeout=30_000)
    page.close()


def test_port_in_use_is_a_one_line_error(server):
    book, port, _ = server
    result = subprocess.run([sys.executable, "-m", "bookkit", "serve", "--port", str(port)],
                            cwd=book, capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHONPATH": str(book)})
    assert result.returncode == 2
    assert f"127.0.0.1:{port} is not available" in result.stderr
    assert "--port" in result.stderr


def test_serves_nothing_outside_the_site(server):
    book, port, _ = server
    (book / "build" / "secret.txt").write_text("not for readers")
    for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/en/../../secret.txt"):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        assert b"not for readers" not in body, path
        assert response.status in (403, 404), path


def test_a_cancelled_request_prints_no_traceback(capsys):
    """A browser that cancels a download resets the connection; the author sees nothing."""
    import socket
    import threading
    import time

    from bookkit.pipeline.serve import PreviewServer
    from http.server import BaseHTTPRequestHandler

    class Slow(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            for _ in range(200):
                self.wfile.write(b"x" * 65536)

        def log_message(self, *args):
            pass

    server = PreviewServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = socket.create_connection(server.server_address)
        client.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        client.recv(1024)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        client.close()   # reset, mid-transfer
        time.sleep(0.5)
    finally:
        server.shutdown()
        server.server_close()
    assert "Traceback" not in capsys.readouterr().err


# the ring diagram's description as read (each number's hidden provenance left out)
READ_RING_DESCRIPTION = (
    "() => { const d = document.querySelector('#fig-datacenter-networks-ring-steps-desc');"
    " if (!d) return ''; const c = d.cloneNode(true);"
    " c.querySelectorAll('.prov').forEach(p => p.remove()); return c.textContent; }")


def test_saving_a_diagram_script_redraws_it_and_an_error_names_the_scripts_line(server, browser):
    """Issue 26: save a diagram script under --serve and the open page shows the new drawing
    (its description follows the data); a script that raises names its own file and line over
    the page, which stays as it was."""
    book, port, _ = server
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{port}/en/datacenter-networks.html")
    read = READ_RING_DESCRIPTION
    assert "over 8 GPUs: 14 steps" in page.evaluate(read)
    script = book / "manuscripts" / "figures" / "ch07_ring_allreduce.py"
    original = script.read_text()
    # 1. A change to the script: the page is drawn again with the new ring.
    script.write_text(original.replace("N = 8 ", "N = 6 "))
    page.wait_for_function(f"() => ({read})().includes('over 6 GPUs: 10 steps')", timeout=60_000)
    # 2. A script that raises: its file and line over the page, the page as it was.
    lines = original.replace("N = 8 ", "N = 6 ").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("def draw(")) + 1
    lines.insert(at, "    raise ValueError('half-written diagram')")
    script.write_text("\n".join(lines) + "\n")
    # Read the overlay by polling, not from one element: the build behind the first one (the
    # other editions' images) may already see this save and fail too, and each failed build
    # shows its error again, reloading the page once more.
    where = f"manuscripts/figures/ch07_ring_allreduce.py:{at + 1}"
    page.wait_for_function(
        "() => { const e = document.querySelector('#build-error');"
        f" return !!e && e.innerText.includes('{where}')"
        " && e.innerText.includes('half-written diagram')"
        f" && ({read})().includes('over 6 GPUs'); }}", timeout=60_000)
    script.write_text(original)
    page.wait_for_selector("#build-error", state="detached", timeout=60_000)
    page.close()


def test_a_saved_diagram_reaches_the_open_page_first_and_leaves_other_pages_alone(server,
                                                                                  browser):
    """The pages open in two editions get the new drawing from a build that drew their two
    languages only, swapped into the page without a reload; the next build draws the third
    edition's image. A page that shows none of the changed files (another chapter) is
    neither reloaded nor re-fetched."""
    book, port, _ = server
    log = book / "serve.log"
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{port}/en/datacenter-networks.html")
    page.evaluate("window.__samePage = true")
    images = []
    page.on("request", lambda r: images.append(r.url) if "ring-steps.en.svg" in r.url else None)
    other = browser.new_page()
    other.goto(f"http://127.0.0.1:{port}/zh-tw/device-edge-cloud.html")
    other.evaluate("window.__samePage = true")
    fetched = []
    other.on("request", lambda r: fetched.append(r.url))
    zh_page = book / "build" / "site" / "datacenter-networks.html"
    zh_before = zh_page.read_bytes()
    script = book / "manuscripts" / "figures" / "ch07_ring_allreduce.py"
    original = script.read_text()
    # The page's own HTML, fetched again for the patch, arrives 0.4 s late: the new image is
    # asked for as soon as the event names it, so it is on its way before that HTML is here
    # (its download and decoding overlap the fetch and the patch).
    page.route("**/en/datacenter-networks.html", lambda route: (time.sleep(0.4),
                                                                 route.continue_()))
    page.evaluate("performance.clearResourceTimings()")
    script.write_text(original.replace("N = 8 ", "N = 6 "))
    try:
        page.wait_for_function(f"() => ({READ_RING_DESCRIPTION})().includes('over 6 GPUs')",
                               timeout=60_000)
        timings = page.evaluate("""() => performance.getEntriesByType('resource').map(
            e => [e.name, e.startTime, e.responseEnd])""")
        image = next(t for t in timings if "ring-steps.en.svg?v=" in t[0])
        html = next(t for t in timings if t[0].endswith("/en/datacenter-networks.html"))
        assert image[1] < html[2] - 200, timings
        page.unroute("**/en/datacenter-networks.html")
        # the open page was not reloaded: the new figure was swapped in, its image loaded anew
        # (past the browser's cache), and it is set up as at load (zoom button, themed SVG)
        assert page.evaluate("window.__samePage") is True
        # a scripted scroll past blocks not yet laid out (content-visibility) lands short
        page.evaluate("document.documentElement.classList.add('full-layout')")
        ring = page.locator("#fig-datacenter-networks-ring-steps")
        ring.scroll_into_view_if_needed()
        page.wait_for_selector("#fig-datacenter-networks-ring-steps svg.bk-fig", timeout=30_000)
        assert ring.locator(".figure-zoom-open").count() == 1
        assert any("?v=" in url for url in images), images
        deadline = time.time() + 60
        while "figure image(s) of the other editions" not in log.read_text():
            assert time.time() < deadline, log.read_text()[-2000:]
            time.sleep(0.2)
        lines = log.read_text().splitlines()
        first = next(i for i, line in enumerate(lines) if "ch07_ring_allreduce.py" in line)
        assert lines[first - 1].strip().startswith("drawing 2 figure image(s)")   # en, zh-Hant
        assert lines[first + 1].strip().startswith("drawing 1 figure image(s)")   # zh-Hans
        while zh_page.read_bytes() == zh_before:   # the second build's pages are written
            assert time.time() < deadline, "the other editions' pages were not rebuilt"
            time.sleep(0.2)
        time.sleep(1.0)   # the events of both builds have reached the pages
        assert other.evaluate("window.__samePage") is True
        # (it fetches its search files when idle after loading: not a reload)
        assert [url for url in fetched if ".html" in url or "/figures/" in url] == []
    finally:
        script.write_text(original)
    page.close()
    other.close()


def test_an_event_lists_the_changed_files_unless_a_page_must_reload_anyway():
    """The live-reload event names the changed files (URL-quoted) so that a page showing none
    of them stays; not after an error (the overlay is in every page), nor when there are many."""
    from bookkit.pipeline.serve import MAX_LISTED, LiveState
    state = LiveState()
    state.publish(None, True, ["en/a b.html", "en/figures/x.en.svg"])
    assert state.event(1) == "data: 1 full en/a%20b.html en/figures/x.en.svg\n\n"
    state.publish("boom")
    assert state.event(2) == "data: 2 full\n\n"
    state.publish(None, False, ["a.html"])          # clears the overlay: every page
    assert state.event(3) == "data: 3 text\n\n"
    state.publish(None, False, ["a.html"])
    assert state.event(4) == "data: 4 text a.html\n\n"
    state.publish(None, True, [f"p{i}.html" for i in range(MAX_LISTED + 1)])
    assert state.event(5) == "data: 5 full\n\n"
    state.opened("/en/")
    state.opened("/en/")
    state.opened("/zh-tw/x.html")
    state.closed("/en/")
    assert state.open_pages() == ["/en/", "/zh-tw/x.html"]
    state.closed("/en/")
    assert state.open_pages() == ["/zh-tw/x.html"]
