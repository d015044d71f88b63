"""`--serve`: build, serve the site on 127.0.0.1, rebuild on change, reload open pages.

A failed rebuild keeps the last good site on disk and shows the error over every page; the next
successful build clears it. Reload is pushed with Server-Sent Events (no extra dependency).
"""
from __future__ import annotations

import html
import mimetypes
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from collections import Counter
from urllib.parse import parse_qs, quote, unquote, urlsplit

from bookkit.pipeline.build import Builder
from bookkit.load.config import book_dirs
from bookkit.model import CONFIG_DIR, BuildError
from bookkit.util.processes import Stopped
from bookkit.render import outputs

# Limits for a server that only the author's browser should use, but any page the author
# visits can reach (DNS rebinding) and any local program can hammer: a connection idle for
# IDLE_TIMEOUT seconds is closed, a request's line and headers must arrive within
# HEADER_DEADLINE (a client sending one byte a second gets no thread for ever), at most
# MAX_CONNECTIONS at once (each is a thread; the live-reload stream holds one per open tab).
IDLE_TIMEOUT = 30.0
HEADER_DEADLINE = 10.0
MAX_CONNECTIONS = 32
MAX_PATH = 1024            # bytes of a decoded URL path; longer is a malformed request
#: ms without a changed file after which the rebuilds' held-back housekeeping runs
#: (`Builder.idle`): longer than the pause between two saves while typing
IDLE_MS = 1500
#: the Host names a browser uses for this server; anything else is another site's page
#: reaching it through DNS rebinding
LOCAL_HOST_RE = re.compile(r"^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$", re.I)

#: watched besides the book's folders (every edition's, from manuscripts/book.yml)
# What the resolve stage reads besides the book's folders; the outputs' own inputs (templates,
# static files) come from the output registry.
RESOLVE_INPUTS = ("calculations",)
# The live-reload client. After a rebuild that changed only chapter text (the server says
# "full" otherwise), the open page fetches itself and swaps in just the blocks of <main> that
# differ from the page it was built from: no reload, so the scroll position, the theme,
# inlined figures and open menus stay, and nothing but the page's HTML is fetched (a reload
# fetches every stylesheet, script and font again). A page whose shell (head assets, title,
# navigation, the error overlay) changed reloads as before. (The page is taken as parsed when
# the client runs, before the white space after </body>: the comparison ignores white space
# between tags.) Each event names the files the build changed (when there are few): a page
# that shows none of them (its HTML, images, stylesheets, scripts) stays as it is, so the
# page open in one edition is not reloaded for another edition's figures; one whose changed
# files are its HTML and images only (a saved figure script) swaps its changed blocks in too,
# loads the changed images anew (`?v=`, past the browser's image cache: a block holding one
# counts as changed even when its HTML is the same) and tells app.js
# (`bookkit:patched`) to set up the new figures; any other file it uses reloads it. Those
# images are asked for (and decoded) as soon as the event names them, while the page's HTML
# is fetched and compared: the patched <img> finds them in the cache. Blocks are compared
# with `isEqualNode` and the page's shell without its content (serialising the whole page
# twice was most of a patch of a long chapter). The stream's URL names the open page:
# `--serve` draws that page's figures first.
# Hand-written, ~45 lines: a
# DOM-morphing library would be a dependency of every served page for this one job.
# Served as /__livereload.js (the pages' Content-Security-Policy runs no inline script).
RELOAD_JS = r"""(function(){
var prev=document.cloneNode(true),g=null,bust=[],done=[];
function shell(d){var m=d.getElementById('content'),e=m&&m.cloneNode(false),h;if(m)m.replaceWith(e);
h=d.body.outerHTML;if(m)e.replaceWith(m);
return[d.title].concat([].map.call(d.querySelectorAll('link[rel=stylesheet],script[src]'),
function(e){return e.getAttribute('href')||e.getAttribute('src')})).join(' ')+
h.replace(/>\s+</g,'><').replace(/\s+<\/body>$/,'</body>')}
function tag(e){return e.cloneNode(false).outerHTML}
function busted(e){return e.nodeType===1&&[].some.call(e.matches('img')?[e]:e.querySelectorAll('img'),
function(i){var s=i.getAttribute('src');return s&&bust.indexOf(path(s))>=0})}
function same(o,n){return o.isEqualNode(n)&&!(bust.length&&busted(n))}
function path(u){return decodeURIComponent(new URL(u,location.href).pathname).replace(/\/$/,'/index.html')}
function fresh(x){if(x.nodeType!==1)return;[].forEach.call(x.matches('img')?[x]:x.querySelectorAll('img'),
function(i){var s=i.getAttribute('src'),p=s&&path(s);if(p&&bust.indexOf(p)>=0){
i.src=s+(s.indexOf('?')<0?'?':'&')+'v='+g;done.push(p)}});
x.dispatchEvent(new CustomEvent('bookkit:patched',{bubbles:true}))}
function patch(live,old,neu){var o=old.childNodes,n=neu.childNodes,l=live.childNodes,a=0,b=0,i,x;
if(l.length!==o.length)return false;
while(a<o.length&&a<n.length&&same(o[a],n[a]))a++;
while(b<o.length-a&&b<n.length-a&&same(o[o.length-1-b],n[n.length-1-b]))b++;
if(o.length-a-b===1&&n.length-a-b===1&&o[a].nodeType===1&&n[a].nodeType===1&&
tag(o[a])===tag(n[a])&&patch(l[a],o[a],n[a]))return true;
var at=l[o.length-b]||null;for(i=o.length-b-1;i>=a;i--)live.removeChild(l[i]);
for(i=a;i<n.length-b;i++){x=document.importNode(n[i],true);live.insertBefore(x,at);fresh(x)}return true}
function update(){fetch(location.href,{cache:'no-store'}).then(function(r){return r.text()})
.then(function(t){var d=new DOMParser().parseFromString(t,'text/html'),
m=document.getElementById('content'),om=prev.getElementById('content'),nm=d.getElementById('content');
done=[];if(!m||!om||!nm||shell(d)!==shell(prev)||!patch(m,om,nm)||
bust.some(function(p){return done.indexOf(p)<0})){location.reload();return}prev=d})
.catch(function(){location.reload()})}
function used(d){return[].map.call(d.querySelectorAll('[src],link[href]'),
function(e){return path(e.getAttribute('src')||e.getAttribute('href'))})}
function image(p){return[].some.call(prev.querySelectorAll('img[src]'),
function(e){return path(e.getAttribute('src'))===p})}
var es=new EventSource('/__livereload?page='+encodeURIComponent(location.pathname));
es.onmessage=function(e){var p=e.data.split(' '),me=path(location.href),own,hits;
if(g===null||p[0]===g){g=p[0];return}g=p[0];bust=[];
if(p.length<3){if(p[1]==='full')location.reload();else update();return}
own=[me].concat(used(prev),used(document));
hits=p.slice(2).map(function(x){return'/'+decodeURIComponent(x)}).filter(function(x){
return own.indexOf(x)>=0});if(!hits.length)return;
if(hits.every(function(x){return x===me||image(x)})){
bust=hits.filter(function(x){return x!==me});
bust.forEach(function(x){var i=new Image();i.src=location.origin+encodeURI(x)+'?v='+g;if(i.decode)i.decode().catch(function(){})});
update()}else location.reload()};})();"""
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


#: an event lists the changed files when there are at most this many (else: "anything")
MAX_LISTED = 200


class LiveState:
    def __init__(self) -> None:
        self.generation = 0
        self.error: str | None = None
        self.full = True        # open pages must reload (not only swap their text)
        self.changed: tuple[str, ...] | None = None   # the build's changed site files; None: any
        self.cond = threading.Condition()
        self._pages: Counter[str] = Counter()   # URL path -> live-reload streams open on it

    def publish(self, error: str | None, full: bool = True,
                changed: list[str] | None = None) -> None:
        with self.cond:
            self.generation += 1
            # a page that shows the error overlay, or is to show it, changes whatever was built
            listed = changed is not None and len(changed) <= MAX_LISTED
            self.changed = tuple(changed) if listed and not (error or self.error) else None
            self.error = error
            self.full = full
            self.cond.notify_all()

    def event(self, generation: int) -> str:
        """The `data:` line for `generation`: its number, whether pages reload or swap their
        text, and the changed files (URL-quoted) when they are listed."""
        kind = "full" if self.full else "text"
        files = "".join(" " + quote(path) for path in self.changed or ())
        return f"data: {generation} {kind}{files}\n\n"

    def opened(self, page: str) -> None:
        with self.cond:
            self._pages[page] += 1

    def closed(self, page: str) -> None:
        with self.cond:
            self._pages[page] -= 1
            if self._pages[page] <= 0:
                del self._pages[page]

    def open_pages(self) -> list[str]:
        with self.cond:
            return sorted(self._pages)


def bad_path(path: str) -> str | None:
    """Why a decoded URL path is malformed (a 400), or None: NUL and control characters, and
    lengths no file of the site has, never reach the file system."""
    if len(path.encode("utf-8", "surrogatepass")) > MAX_PATH:
        return f"path longer than {MAX_PATH} bytes"
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in path):
        return "control character in the path"
    if any(len(part.encode("utf-8", "surrogatepass")) > 255 for part in path.split("/")):
        return "path segment longer than 255 bytes"
    return None


def make_handler(site: Path, state: LiveState):
    # Resolved per request, not here: build/site is a symlink switched to each new build.
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = IDLE_TIMEOUT          # every read and write on the socket

        def log_message(self, fmt, *args):  # quiet: the build log is what matters
            pass

        def handle_one_request(self):
            # The idle timeout bounds each read; this bounds the whole request line and
            # headers, which a slow client could otherwise send one byte at a time.
            self._deadline = threading.Timer(HEADER_DEADLINE, self._drop)
            self._deadline.daemon = True
            self._deadline.start()
            try:
                super().handle_one_request()
            finally:
                self._deadline.cancel()

        def parse_request(self):
            ok = super().parse_request()      # reads the headers
            self._deadline.cancel()
            return ok

        def _drop(self):
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        def send_error(self, code, message=None, explain=None):
            super().send_error(code, message, explain)
            self.close_connection = True

        def do_GET(self):
            host = self.headers.get("Host", "")
            if not LOCAL_HOST_RE.match(host):
                return self.send_error(403, "Host must be 127.0.0.1, localhost or [::1]",
                                       f"refused Host {host[:100]!r}: this preview server "
                                       "answers only pages of its own address")
            try:
                path = unquote(urlsplit(self.path).path, errors="strict")
            except ValueError:               # not UTF-8 once decoded, or not a URL at all
                return self.send_error(400, "malformed path")
            problem = bad_path(path)
            if problem:
                return self.send_error(400, f"malformed path: {problem}")
            if path == "/__livereload":
                page = parse_qs(urlsplit(self.path).query).get("page", [""])[0]
                return self.events("" if bad_path(page) else page)
            if path in SCRIPTS:
                return self.script(SCRIPTS[path])
            try:
                found = self.find(path)
            except (OSError, ValueError):    # a name the file system refuses: not a page
                return self.send_error(400, "malformed path")
            if found is None:
                return None
            status, target = found
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

        def find(self, path: str) -> tuple[int, Path] | None:
            """(status, file) for a URL path; None after an error was sent."""
            root = site.resolve()
            target = (root / path.lstrip("/")).resolve()
            # Serve nothing outside the site folder (no `..` escapes, no symlinks out).
            if target != root and root not in target.parents:
                self.send_error(403)
                return None
            if target.is_dir():
                target = target / "index.html"
            if target.is_file():
                return 200, target
            if (root / "404.html").is_file():
                return 404, root / "404.html"
            self.send_error(404)
            return None

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

        def events(self, page: str):
            """The live-reload stream of the page open at `page` (its URL path)."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            seen = -1
            if page:
                state.opened(page)
            try:
                while True:
                    with state.cond:
                        if state.generation == seen:
                            state.cond.wait(timeout=15)
                        generation = state.generation
                        line = state.event(generation)
                    if generation != seen:
                        self.wfile.write(line.encode())
                    else:
                        self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    seen = generation
            except (BrokenPipeError, ConnectionResetError):
                return
            finally:
                if page:
                    state.closed(page)

    return Handler


def rebuild(builder: Builder, state: LiveState, reason: str, full: bool = True) -> None:
    """Build; tell open pages. `full`: something besides chapter text changed (templates,
    assets, figure scripts, calculations), so pages reload instead of swapping their text.

    A changed figure is drawn first in the languages of the pages open in a browser: that
    build is published at once, and a second one draws the other editions' images (a saved
    diagram script is one drawing to wait for, not three)."""
    report = _build(builder, state, reason, full, state.open_pages())
    if report is not None and report.figures_deferred:
        # behind: the browser reloading the open page gets the cores first
        _build(builder, state, f"{report.figures_deferred} figure image(s) of the other "
               "editions", full, [], behind=True)


def _build(builder: Builder, state: LiveState, reason: str, full: bool,
           open_pages: list[str], behind: bool = False):
    start = time.perf_counter()
    try:
        report = builder.build(open_pages=open_pages, behind=behind)
    except BuildError as exc:
        print(f"build failed ({reason}):\n{exc.render()}", file=sys.stderr, flush=True)
        state.publish(exc.render())
        return None
    ms = (time.perf_counter() - start) * 1000
    if report.changed or state.error:
        print(f"rebuilt in {ms:.0f} ms ({reason}; {report.files_written} files written)",
              file=sys.stderr, flush=True)
        state.publish(None, full, report.changed_paths)
    return report


class PreviewServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, *args, **kwargs) -> None:
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(*args, **kwargs)

    def process_request(self, request, client_address) -> None:
        # A thread per connection, at most MAX_CONNECTIONS: one more is answered 503 and
        # closed here, without a thread.
        if not self._slots.acquire(blocking=False):
            try:
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                                b"Connection: close\r\nRetry-After: 1\r\n\r\n")
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request, client_address) -> None:
        # A browser that cancels a request (a reload, a closed tab) resets its connection:
        # that is normal, not a traceback for the author to read.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError, TimeoutError)):
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
    builder.defer_housekeeping()
    try:
        if (builder.root / CONFIG_DIR / "figures").is_dir():
            # Before the first build, not after it: the watcher starts after that build, and
            # an edit made while this ran would be missed. Each saved figure script is then
            # drawn by workers forked with matplotlib loaded (~1.3 s less per rebuild).
            from bookkit.resolve.figures import warm_up_drawing
            warm_up_drawing()
        rebuild(builder, state, "start")
        # before the drawing workers fork: they share the settled heap's pages
        builder.settle_heap()
        # a first build that drew nothing (a warm cache) forked no drawing worker: start them
        # now, warming up on one figure each, so that the first saved figure is not drawn by
        # a process that has never drawn
        builder.warm_up_workers()
        thread.start()
        print(f"serving http://127.0.0.1:{port}/ (Ctrl+C stops)", file=sys.stderr, flush=True)
        # An edition added to book.yml while serving is watched from the next start (as are
        # all of them when book.yml is broken at the start: then only its folder is).
        try:
            folders = book_dirs(builder.root)
        except BuildError:
            folders = [CONFIG_DIR]
        paths = [str(builder.root / p) for p in (*folders, *RESOLVE_INPUTS,
                                                 *outputs.watched("site"))
                 if (builder.root / p).exists()]
        # An empty set of changes: nothing changed for IDLE_MS, the time for the housekeeping
        # the rebuilds held back (`Builder.idle`).
        for changes in watch(*paths, debounce=30, step=10, rust_timeout=IDLE_MS,
                             yield_on_timeout=True,
                             watch_filter=lambda _c, p: not p.endswith((".pyc", "~", ".swp"))
                             and "__pycache__" not in p and "node_modules" not in p):
            if not changes:
                builder.idle()
                continue
            names = sorted({Path(p).name for _, p in changes})
            text_only = all(p.endswith(".md") for _, p in changes)
            rebuild(builder, state, "changed: " + ", ".join(names[:3]), full=not text_only)
    except (KeyboardInterrupt, Stopped):   # Ctrl+C, or SIGTERM from a service manager
        pass
    finally:
        if thread.is_alive():
            server.shutdown()
        server.server_close()
        builder.idle()
        builder.close()
    return 0
