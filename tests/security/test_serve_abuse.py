"""Issue 27, lesser: the `--serve` preview server under abuse. The real handler and server class
on a small static site, in this process (no book build needed for what is tested here)."""
import http.client
import socket
import threading
import time

import pytest

from bookkit.pipeline import serve


@pytest.fixture
def server(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(serve, "HEADER_DEADLINE", 1.0)
    monkeypatch.setattr(serve, "MAX_CONNECTIONS", 3)
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html><body>home</body></html>")
    (site / "404.html").write_text("<html><body>not found</body></html>")
    httpd = serve.PreviewServer(("127.0.0.1", 0), serve.make_handler(site, serve.LiveState()))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()
    assert "Traceback" not in capsys.readouterr().err


def get(port, path, host=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.putrequest("GET", path, skip_host=host is not None)
    if host is not None:
        conn.putheader("Host", host)
    conn.endheaders()
    response = conn.getresponse()
    return response.status, response.read()


@pytest.mark.parametrize("path", ["/%00", "/a%00.html", "/" + "a" * 5000, "/%ff%fe.html",
                                  "/x/" + "b" * 300 + ".html", "/%0d%0aSet-Cookie:x"])
def test_malformed_paths_get_400(server, path):
    status, body = get(server, path)
    assert status == 400 and b"malformed path" in body


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]", "127.0.0.1:8000",
                                  "LOCALHOST:1", "[::1]:8000"])
def test_localhost_names_are_served(server, host):
    assert get(server, "/", host) == (200, get(server, "/")[1])


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example",
                                  "localhost.evil", "", "127.0.0.2"])
def test_other_host_headers_are_refused(server, host):
    status, body = get(server, "/", host)
    assert status == 403 and b"home" not in body


def test_a_slow_client_is_dropped(server):
    """One header byte at a time, each within the idle timeout: the header deadline ends it."""
    client = socket.create_connection(("127.0.0.1", server), timeout=10)
    client.sendall(b"GET / HTTP/1.1\r\n")
    client.setblocking(False)
    dropped = False
    for _ in range(40):      # up to ~4 s of trickling, well past the 1 s deadline
        try:
            client.sendall(b"X")
            if client.recv(1024) == b"":
                dropped = True
                break
        except BlockingIOError:
            pass
        except OSError:
            dropped = True
            break
        time.sleep(0.1)
    client.close()
    assert dropped


def test_connections_are_bounded(server):
    """Idle connections hold at most MAX_CONNECTIONS threads; one more gets a 503 at once."""
    idle = [socket.create_connection(("127.0.0.1", server), timeout=10) for _ in range(3)]
    time.sleep(0.2)
    extra = socket.create_connection(("127.0.0.1", server), timeout=10)
    answer = extra.recv(1024)
    assert answer.startswith(b"HTTP/1.1 503")
    for s in idle + [extra]:
        s.close()
    deadline = time.time() + 10
    while time.time() < deadline:    # the slots come back when the connections close
        try:
            if get(server, "/")[0] == 200:
                break
        except (ConnectionError, http.client.HTTPException):
            time.sleep(0.1)
    assert get(server, "/")[0] == 200


def test_an_idle_connection_is_closed(server, monkeypatch):
    """An open connection that sends nothing is closed by the header deadline (the idle timeout,
    30 s, bounds each read after that)."""
    client = socket.create_connection(("127.0.0.1", server), timeout=10)
    assert client.recv(1024) == b""     # closed by the server, not by this timeout
    client.close()
