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
from .load import book_dirs
from .model import BuildError
from .processes import Stopped

#: watched besides the book's folders (every edition's, from manuscripts/book.yml)
WATCHED = ("website/templates", "website/static", "calculations")
# The live-reload client. After a rebuild that changed only chapter text (the server says
# "full" otherwise), the open page fetches itself and swaps in just the blocks of <main> that
# differ from the page it was built from: no reload, so the scroll position, the theme,
# inlined figures and open menus stay, and nothing but the page's HTML is fetched (a reload
# fetches every stylesheet, script and font again). A page whose shell (head assets, title,
# navigation, the error overlay) changed reloads as before. (The page is taken as parsed when
# the client runs, before the white space after </body>: the comparison ignores white space
# between tags.) Hand-written, ~30 lines: a
# DOM-morphing library would be a dependency of every served page for this one job.
# Served as /__livereload.js (the pages' Content-Security-Policy runs no inline script).
RELOAD_JS = r"""(function(){
var prev=document.cloneNode(true),g=null;
function shell(d){var b=d.body.cloneNode(true),m=b.querySelector('#content');if(m)m.textContent='';
return[d.title].concat([].map.call(d.querySelectorAll('link[rel=stylesheet],script[src]'),
function(e){return e.getAttribute('href')||e.getAttribute('src')})).join(' ')+
b.outerHTML.replace(/>\s+</g,'><').replace(/\s+<\/body>$/,'</body>')}
function tag(e){return e.cloneNode(false).outerHTML}
function src(e){return e.nodeType===1?e.outerHTML:e.nodeType+':'+e.nodeValue}
function patch(live,old,neu){var o=old.childNodes,n=neu.childNodes,l=live.childNodes,a=0,b=0,i;
if(l.length!==o.length)return false;
while(a<o.length&&a<n.length&&src(o[a])===src(n[a]))a++;
while(b<o.length-a&&b<n.length-a&&src(o[o.length-1-b])===src(n[n.length-1-b]))b++;
if(o.length-a-b===1&&n.length-a-b===1&&o[a].nodeType===1&&n[a].nodeType===1&&
tag(o[a])===tag(n[a])&&patch(l[a],o[a],n[a]))return true;
var at=l[o.length-b]||null;for(i=o.length-b-1;i>=a;i--)live.removeChild(l[i]);
for(i=a;i<n.length-b;i++)live.insertBefore(document.importNode(n[i],true),at);return true}
function update(){fetch(location.href,{cache:'no-store'}).then(function(r){return r.text()})
.then(function(t){var d=new DOMParser().parseFromString(t,'text/html'),
m=document.getElementById('content'),om=prev.getElementById('content'),nm=d.getElementById('content');
if(!m||!om||!nm||shell(d)!==shell(prev)||!patch(m,om,nm)){location.reload();return}prev=d})
.catch(function(){location.reload()})}
var es=new EventSource('/__livereload');
es.onmessage=function(e){var p=e.data.split(' ');if(g!==null&&p[0]!==g){if(p[1]==='full')
location.reload();else update()}g=p[0]};})();"""
RELOAD_SNIPPET = '<script src="/__livereload.js"></script>'


# The error overlay hides the page under it: its button and Escape dismiss it (until the next
# failed build shows it again).
DISMISS_JS = (
    "(function(){var b=document.getElementById('build-error');if(!b)return;"
    "function off(){b.remove();document.removeEventListener('keydown',esc,true)}"
    "function esc(e){if(e.key==='Escape'){off()}}"
    "b.querySelector('button').addEventListener('click',off);"
    "document.addEventListener('keydown',esc,true)})();")
DISMISS_SNIPPET = '<script src="/__dismiss.js"></script>'
SCRIPTS = {"/__livereload.js": RELOAD_JS, "/__dismiss.js": DISMISS_JS}


class LiveState:
    def __init__(self) -> None:
        self.generation = 0
        self.error: str | None = None
        self.full = True        # open pages must reload (not only swap their text)
        self.cond = threading.Condition()

    def publish(self, error: str | None, full: bool = True) -> None:
        with self.cond:
            self.generation += 1
            self.error = error
            self.full = full
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
            if path in SCRIPTS:
                return self.script(SCRIPTS[path])
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
            # The overlay comes before the client, which takes the page as parsed so far as
            # the state it compares the next build with.
            extra = ""
            if state.error:
                extra += ('<div id="build-error" role="alert" style="position:fixed;inset:auto 0 0 0;'
                          'max-height:50vh;overflow:auto;z-index:99;background:#2b1010;color:#fdd;'
                          'font:13px/1.45 monospace;padding:12px 16px;border-top:3px solid #e55;'
                          'white-space:pre-wrap"><button type="button" aria-label="Dismiss" '
                          'title="Dismiss (Esc)" style="float:right;font:inherit;color:inherit;'
                          'background:none;border:1px solid #e55;border-radius:4px;cursor:pointer"'
                          '>×</button><b>Build failed; showing the last good build.'
                          '</b>\n' + html.escape(state.error) + "</div>" + DISMISS_SNIPPET)
            extra += RELOAD_SNIPPET
            return data.replace(b"</body>", extra.encode() + b"</body>", 1)

        def script(self, code: str):
            data = code.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.wfile.write(data)

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
                        generation, full = state.generation, state.full
                    if generation != seen:
                        kind = " full" if full else ""
                        self.wfile.write(f"data: {generation}{kind}\n\n".encode())
                    else:
                        self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    seen = generation
            except (BrokenPipeError, ConnectionResetError):
                return

    return Handler


def rebuild(builder: Builder, state: LiveState, reason: str, full: bool = True) -> None:
    """Build; tell open pages. `full`: something besides chapter text changed (templates,
    assets, figure scripts, calculations), so pages reload instead of swapping their text."""
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
        state.publish(None, full)


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
        # An edition added to book.yml while serving is watched from the next start (as are
        # all of them when book.yml is broken at the start: then only its folder is).
        try:
            folders = book_dirs(builder.root)
        except BuildError:
            folders = ["manuscripts"]
        paths = [str(builder.root / p) for p in (*folders, *WATCHED)
                 if (builder.root / p).exists()]
        for changes in watch(*paths, debounce=30, step=10,
                             watch_filter=lambda _c, p: not p.endswith((".pyc", "~", ".swp"))
                             and "__pycache__" not in p and "node_modules" not in p):
            names = sorted({Path(p).name for _, p in changes})
            text_only = all(p.endswith(".md") for _, p in changes)
            rebuild(builder, state, "changed: " + ", ".join(names[:3]), full=not text_only)
    except (KeyboardInterrupt, Stopped):   # Ctrl+C, or SIGTERM from a service manager
        pass
    finally:
        if thread.is_alive():
            server.shutdown()
        server.server_close()
    return 0
