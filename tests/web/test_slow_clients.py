"""Slow and stalled clients cannot lock ``kakurega serve`` out (docs/web.md, "Limits you can rely on").

Connections that sent half a request head and stalled (slowloris) were once held for ever: about 1,000 of them
used up the server's open files and every other request timed out. A real server runs here on 127.0.0.1 (a free
port) with test-sized limits (a head deadline of 1.5 s, a cap of 20 open connections; the shipped ones are
:data:`~kakurega.scripts.web.connections.HEAD_SECONDS` and :func:`~kakurega.scripts.web.connections.open_connection_cap`)
and checks that stalled connections are closed by the server while other clients are served, that an open tab is
never cut, and that a connection beyond the cap is refused at once in words; and that a tab which stops reading
its replies is dropped (its place freed, its socket reset), with a test-sized send deadline (the shipped one is
:data:`~kakurega.scripts.web.app.SEND_SECONDS`). Every wait is bounded; the server is killed whatever happens.
"""

from __future__ import annotations

import base64
import errno
import json
import os
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import ExitStack, contextmanager, suppress

import pytest

pytest.importorskip("uvicorn")
websockets_client = pytest.importorskip("websockets.sync.client")
from websockets.exceptions import ConnectionClosed  # noqa: E402

pytestmark = pytest.mark.faults

#: the head deadline the test servers get (the shipped one is longer)
HEAD_SECONDS = 1.5
#: the cap on open connections the test servers get
CAP = 20
#: the longest any wait here lasts (a stalled connection must be closed well before it)
WAIT_SECONDS = 15

_SERVE = """
import sys
from kakurega.scripts.web import connections
connections.HEAD_SECONDS = float(sys.argv[1])
connections.MAX_OPEN_CONNECTIONS = int(sys.argv[2])
from kakurega.scripts.serve import main
sys.exit(main(["--port", sys.argv[3], "--quiet"]))
"""
#: a server with one tab place and a send deadline of sys.argv[1] seconds
_SERVE_ONE_TAB = """
import sys
from kakurega.scripts.web import app
app.SEND_SECONDS = float(sys.argv[1])
app.MAX_CONNECTIONS = 1
from kakurega.scripts.serve import main
sys.exit(main(["--port", sys.argv[2], "--quiet"]))
"""
#: the send deadline the test server gets
SEND_SECONDS = 1.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serve(head_seconds: float, cap: int, script: str = _SERVE):
    """``kakurega serve`` with these limits, on a free port; yields the port (``script``: the server's, taking its
    arguments but the last, the port; :data:`_SERVE` takes ``head_seconds`` and ``cap``)."""
    port = free_port()
    limits = [str(head_seconds), str(cap)] if script is _SERVE else [str(head_seconds)]
    process = subprocess.Popen([sys.executable, "-c", script, *limits, str(port)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:  # a whole request, which the server closes (a bare probe might still count when a test starts)
            try:
                assert get(port)[0] == 200
                break
            except OSError:
                assert process.poll() is None, process.communicate()[1][-2000:]
                assert time.monotonic() < deadline, "the server did not start in 60 s"
                time.sleep(0.2)
        yield port
    finally:
        process.kill()
        process.communicate()


def stalled(port: int, sent: bytes) -> socket.socket:
    """A connection that sends ``sent`` and then nothing."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=WAIT_SECONDS)
    if sent:
        conn.sendall(sent)
    return conn


def read_until_closed(conn: socket.socket) -> bytes | None:
    """Everything the server sends until it closes the connection, or None if it is still open after WAIT_SECONDS."""
    conn.settimeout(WAIT_SECONDS)
    received = b""
    try:
        while chunk := conn.recv(65536):
            received += chunk
    except TimeoutError:
        return None
    except ConnectionResetError:  # the server closed it with data unread: closed too
        return received
    return received


def get(port: int, path: str = "/api/envs") -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=WAIT_SECONDS) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_stalled_request_heads_are_closed_while_others_are_served():
    host = b"Host: 127.0.0.1\r\n"
    with serve(HEAD_SECONDS, CAP) as port, ExitStack() as stack:
        tab = stack.enter_context(websockets_client.connect(f"ws://127.0.0.1:{port}/ws", open_timeout=WAIT_SECONDS))
        stalls = {
            "nothing sent": stalled(port, b""),
            "half a request line": stalled(port, b"GET / HT"),
            "headers never ended": stalled(port, b"GET / HTTP/1.1\r\n" + host),
            # a keep-alive connection: one request answered, then half of the next one
            "half of a second request": stalled(port, b"GET /api/envs HTTP/1.1\r\n" + host + b"\r\nGET /api/e"),
            # answered (405) while its body was still to come, then never sent
            "body never sent": stalled(port, b"POST / HTTP/1.1\r\n" + host + b"Content-Length: 100000\r\n\r\nab"),
        }
        for conn in stalls.values():
            stack.callback(conn.close)
        # served while the stalled connections are open
        status, body = get(port)
        assert status == 200 and json.loads(body)
        for name, conn in stalls.items():
            received = read_until_closed(conn)
            assert received is not None, f"{name}: still open {WAIT_SECONDS} s later ({HEAD_SECONDS} s deadline)"
            if name == "half of a second request":
                assert received.startswith(b"HTTP/1.1 200"), received[:200]
        # a tab is not a stalled request: it is still served after the deadline
        time.sleep(HEAD_SECONDS)
        tab.send(json.dumps({"type": "look"}))
        assert json.loads(tab.recv(timeout=WAIT_SECONDS))["type"]
        assert get(port)[0] == 200


def test_connections_beyond_the_cap_are_refused_at_once():
    with serve(60, CAP) as port, ExitStack() as stack:
        held = []
        for _ in range(CAP):
            held.append(stalled(port, b"GET / HTTP/1.1\r\n"))
            stack.callback(held[-1].close)
        # held: the server closes none of them (its deadline is 60 s)
        for conn in held:
            conn.settimeout(0.2)
            with pytest.raises(TimeoutError):
                conn.recv(1)
        # one more is answered 503 in words and closed, and so is a normal request
        beyond = stack.enter_context(stalled(port, b""))
        received = read_until_closed(beyond)
        assert received is not None and received.startswith(b"HTTP/1.1 503"), received
        assert b"too many open connections" in received
        assert get(port)[0] == 503
        # once the held connections close, requests are served again
        for conn in held:
            conn.close()
        deadline = time.monotonic() + WAIT_SECONDS
        while (status := get(port)[0]) != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert status == 200


def frame(text: str) -> bytes:
    """A client's text frame (masked with a zero key: the payload as it is)."""
    payload = text.encode()
    size = bytes([0x80 | len(payload)]) if len(payload) < 126 else bytes([0x80 | 126]) + struct.pack("!H", len(payload))
    return b"\x81" + size + b"\0\0\0\0" + payload


def tab_that_never_reads(port: int) -> socket.socket:
    """A websocket opened with a small receive buffer, of which only the handshake is ever read."""
    conn = socket.socket()
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    conn.settimeout(WAIT_SECONDS)
    conn.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    conn.sendall(f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += conn.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return conn


def test_a_tab_that_stops_reading_is_dropped_and_its_place_freed():
    """Such a tab once kept its place, its game and every reply queued for it for ever: the send had no deadline,
    and uvicorn closes a connection only once its unsent data is sent."""
    with serve(SEND_SECONDS, 0, _SERVE_ONE_TAB) as port, ExitStack() as stack:
        stuck = tab_that_never_reads(port)
        stack.callback(stuck.close)
        # replies of about 40 KB each, far more than the socket buffers hold: sending them stalls
        stuck.sendall(frame(json.dumps({"type": "new", "env": "animal_chain_v1", "seat": 0, "agents": ["random"]})))
        for _ in range(400):
            stuck.sendall(frame(json.dumps({"type": "look"})))
        # the server's only tab place is freed (a tab opened meanwhile is told the server has 1 tab open)
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            with websockets_client.connect(f"ws://127.0.0.1:{port}/ws", open_timeout=WAIT_SECONDS) as tab:
                with suppress(ConnectionClosed):  # a tab refused is closed at once, after the refusal
                    tab.send(json.dumps({"type": "look"}))
                reply = json.loads(tab.recv(timeout=WAIT_SECONDS))
            if "tabs open, its limit" not in reply.get("message", ""):
                break
            assert time.monotonic() < deadline, f"the tab that stopped reading still held its place {WAIT_SECONDS} s on"
            time.sleep(0.2)
        assert reply["message"].startswith("look: no game is open in this tab"), reply
        # and its connection is dropped (reset, its unsent replies discarded), read or not
        while (error := stuck.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)) == 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert error == errno.ECONNRESET, f"the connection is still open {WAIT_SECONDS} s on ({os.strerror(error)})"
