"""`--serve`: build, serve the site on 127.0.0.1, rebuild on change, reload open pages.

A failed rebuild keeps the last good site on disk and shows the error over every page; the next
successful build clears it. Reload is pushed with Server-Sent Events (no extra dependency).
"""
from __future__ import annotations

import html
import mimetypes
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .build import Builder
from .model import BuildError
from .processes import Stopped

WATCHED = ("manuscripts", "book-en", "book-zh-tw", "website/templates", "website/static",
           "calculations")
RELOAD_SNIPPET = (
    "<script>(function(){var g=null;var es=new EventSource('/__livereload');"
    "es.onmessage=function(e){if(g!==null&&e.data!==g){location.reload()}g=e.data};})();"
    "</script>")

# The error overlay hides the page under it: its button and Escape dismiss it (until the next
# failed build shows it again).
DISMISS_SNIPPET = (
    "<script>(function(){var b=document.getElementById('build-error');if(!b)return;"
    "function off(){b.remove();document.removeEventListener('keydown',esc,true)}"
    "function esc(e){if(e.key==='Escape'){off()}}"
    "b.querySelector('button').addEventListener('click',off);"
    "document.addEventListener('keydown',esc,true)})();</script>")


class LiveState:
    def __init__(self) -> None:
        self.generation = 0
        self.error: str | None = None
        self.cond = threading.Condition()

    def publish(self, error: str | None) -> None:
        with self.cond:
            self.generation += 1
            self.error = error
            self.cond.notify_all()


def make_handler(site: Path, state: LiveState):
    site = site.resolve()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # quiet: the build log is what matters
            pass

        def do_GET(self):
            path = unquote(urlsplit(self.path).path)
            if path == "/__livereload":
                return self.events()
            target = (site / path.lstrip("/")).resolve()
            # Serve nothing outside the site folder (no `..` escapes, no symlinks out).
            if target != site and site not in target.parents:
                return self.send_error(403)
            if target.is_dir():
                target = target / "index.html"
            status = 200
            if not target.is_file():
                status, target = 404, site / "404.html"
                if not target.is_file():
                    return self.send_error(404)
            data = target.read_bytes()
            ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
            if target.suffix == ".html":
                data = self.inject(data)
                ctype = "text/html; charset=utf-8"
            elif ctype.startswith("text/") or target.suffix in (".js", ".svg", ".json"):
                ctype += "; charset=utf-8"
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.wfile.write(data)

        def inject(self, data: bytes) -> bytes:
            extra = RELOAD_SNIPPET
            if state.error:
                extra += ('<div id="build-error" role="alert" style="position:fixed;inset:auto 0 0 0;'
                          'max-height:50vh;overflow:auto;z-index:99;background:#2b1010;color:#fdd;'
                          'font:13px/1.45 monospace;padding:12px 16px;border-top:3px solid #e55;'
                          'white-space:pre-wrap"><button type="button" aria-label="Dismiss" '
                          'title="Dismiss (Esc)" style="float:right;font:inherit;color:inherit;'
                          'background:none;border:1px solid #e55;border-radius:4px;cursor:pointer"'
                          '>×</button><b>Build failed; showing the last good build.'
                          '</b>\n' + html.escape(state.error) + "</div>" + DISMISS_SNIPPET)
            return data.replace(b"</body>", extra.encode() + b"</body>", 1)

        def events(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            seen = -1
            try:
                while True:
                    with state.cond:
                        if state.generation == seen:
                            state.cond.wait(timeout=15)
                        generation = state.generation
                    if generation != seen:
                        self.wfile.write(f"data: {generation}\n\n".encode())
                    else:
                        self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    seen = generation
            except (BrokenPipeError, ConnectionResetError):
                return

    return Handler


def rebuild(builder: Builder, state: LiveState, reason: str) -> None:
    start = time.perf_counter()
    try:
        report = builder.build()
    except BuildError as exc:
        print(f"build failed ({reason}):\n{exc.render()}", file=sys.stderr, flush=True)
        state.publish(exc.render())
        return
    ms = (time.perf_counter() - start) * 1000
    if report.changed or state.error:
        print(f"rebuilt in {ms:.0f} ms ({reason}; {report.files_written} files written)",
              file=sys.stderr, flush=True)
        state.publish(None)


class PreviewServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        # A browser that cancels a request (a reload, a closed tab) resets its connection:
        # that is normal, not a traceback for the author to read.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def serve(builder: Builder, port: int) -> int:
    from watchfiles import watch

    state = LiveState()
    try:
        server = PreviewServer(("127.0.0.1", port), make_handler(builder.opt.out, state))
    except OSError as exc:
        print(f"error: 127.0.0.1:{port} is not available ({exc.strerror}): pass --port N or "
              "stop the program using it", file=sys.stderr)
        return 2
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    try:
        rebuild(builder, state, "start")
        thread.start()
        print(f"serving http://127.0.0.1:{port}/ (Ctrl+C stops)", file=sys.stderr, flush=True)
        paths = [str(builder.root / p) for p in WATCHED if (builder.root / p).exists()]
        for changes in watch(*paths, debounce=30, step=10,
                             watch_filter=lambda _c, p: not p.endswith((".pyc", "~", ".swp"))
                             and "__pycache__" not in p and "node_modules" not in p):
            names = sorted({Path(p).name for _, p in changes})
            rebuild(builder, state, "changed: " + ", ".join(names[:3]))
    except (KeyboardInterrupt, Stopped):   # Ctrl+C, or SIGTERM from a service manager
        pass
    finally:
        if thread.is_alive():
            server.shutdown()
        server.server_close()
    return 0
