"""Connection limits of ``kakurega serve``, below the app: a deadline for every request head and a cap on open
connections.

Uvicorn's HTTP protocols wait for ever for a request whose head (request line and headers) never ends, and its
``limit_concurrency`` is checked only once a head is complete, so connections that send half a request and stall
(slowloris) once held their sockets for ever: about 1,000 of them used up the usual 1024 open files and every other
client was locked out. :func:`bounded_protocol` makes the protocol ``kakurega serve`` passes uvicorn (``http=``),
uvicorn's own h11 one (also where ``httptools`` is installed) with two limits:

- while a connection has no response in progress it must deliver a complete request head within
  :data:`HEAD_SECONDS` of opening (or of the end of its previous response), or it is closed; an answer in
  progress (a bot thinking) is never cut;
- at most :func:`open_connection_cap` connections are open at once, websockets (tabs) included: one more is
  answered ``503`` and closed as soon as it is accepted.

:func:`bounded_ws_protocol` makes its websocket protocol (``ws=``): uvicorn closes a connection only once the
data it holds for it is sent, so a page that stopped reading held its socket and that data for ever, even after
the app gave up on it (:data:`~kakurega.scripts.web.app.SEND_SECONDS`) or a keepalive ping went unanswered; such
a connection is reset a while later instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: the longest a connection with no response in progress may take to send a complete request head
HEAD_SECONDS = 10.0
#: open connections (requests and websockets together) at most; see :func:`open_connection_cap`
MAX_OPEN_CONNECTIONS = 400
#: the answer to a connection beyond the cap
_REFUSAL = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"connection: close\r\ncontent-length: 35\r\n\r\ntoo many open connections, try again")
#: the fewest seconds between two warnings that connections are refused
_WARN_SECONDS = 60.0

log = logging.getLogger("kakurega.scripts.web")


def open_connection_cap(limit: int | None = None) -> int:
    """``limit`` (default :data:`MAX_OPEN_CONNECTIONS`), or a quarter of this process's open-file limit when that is
    lower (at least 8), so the cap is reached well before the server runs out of files."""
    limit = MAX_OPEN_CONNECTIONS if limit is None else limit
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):  # no such limit here (Windows)
        return limit
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return limit
    return max(8, min(limit, soft // 4))


def bounded_protocol(head_seconds: float | None = None, max_connections: int | None = None) -> type[H11Protocol]:
    """The HTTP protocol class for ``uvicorn.Config(http=...)`` with these limits (default :data:`HEAD_SECONDS` and
    :func:`open_connection_cap`, read now)."""
    return type("BoundedH11Protocol", (BoundedH11Protocol,), {
        "head_seconds": HEAD_SECONDS if head_seconds is None else head_seconds,
        "max_connections": open_connection_cap() if max_connections is None else max_connections,
    })


class BoundedH11Protocol(H11Protocol):
    """Uvicorn's h11 protocol with a head deadline and a cap on open connections (see the module)."""

    head_seconds: float = HEAD_SECONDS
    max_connections: int = MAX_OPEN_CONNECTIONS
    _last_warning = float("-inf")  # loop time of the last warning that connections are refused (class-wide)

    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)  # counted in self.connections from here on, until connection_lost
        if len(self.connections) > self.max_connections:
            now = self.loop.time()
            if now - BoundedH11Protocol._last_warning >= _WARN_SECONDS:
                BoundedH11Protocol._last_warning = now
                log.warning("more than %d connections open: refusing new ones until some close",
                            self.max_connections)
            transport.write(_REFUSAL)
            transport.close()
            return
        self._sync_deadline()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._sync_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._sync_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        super().connection_lost(exc)

    def _waiting_for_head(self) -> bool:
        """True while this connection has no response in progress (nor has been handed on to a websocket)."""
        if self.transport is None or self.transport.is_closing() or self.transport.get_protocol() is not self:
            return False
        return self.cycle is None or self.cycle.response_complete

    def _sync_deadline(self) -> None:
        if not self._waiting_for_head():
            self._cancel_deadline()
        elif self._head_timer is None:  # the deadline runs from when the wait began
            self._head_timer = self.loop.call_later(self.head_seconds, self._head_deadline)

    def _cancel_deadline(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_deadline(self) -> None:
        self._head_timer = None
        if self._waiting_for_head():
            # h11 refuses the close event in some states (half a request in): closing the transport is what counts
            with contextlib.suppress(h11.LocalProtocolError):
                self.conn.send(h11.ConnectionClosed())
            self.transport.close()


def bounded_ws_protocol(close_seconds: float) -> type[asyncio.Protocol] | str:
    """The websocket protocol for ``uvicorn.Config(ws=...)``: the one uvicorn would choose, but a connection still
    open ``close_seconds`` after its app ended (or after an unanswered keepalive ping closed it) is reset."""
    from uvicorn.protocols.websockets.auto import AutoWebSocketsProtocol

    if AutoWebSocketsProtocol is None:  # no websocket library: uvicorn says so itself
        return "auto"
    return type("BoundedWebSocketProtocol", (_DroppedWhenDone, AutoWebSocketsProtocol), {"close_seconds": close_seconds})


class _DroppedWhenDone:
    """Resets the connection ``close_seconds`` after it should have closed: asyncio's ``close()`` waits for the
    unsent data, which a peer that stopped reading never takes, and so would the system once the socket is closed
    (a reset discards it; once the connection has closed, nothing is done)."""

    close_seconds: float = 30.0

    async def run_asgi(self) -> None:
        try:
            await super().run_asgi()
        finally:
            self._abort_later()

    def keepalive_timeout(self) -> None:  # uvicorn's sans-I/O protocol: no pong came back, it closes the connection
        super().keepalive_timeout()
        self._abort_later()

    def _abort_later(self) -> None:
        asyncio.get_running_loop().call_later(self.close_seconds, self._reset)

    def _reset(self) -> None:
        with contextlib.suppress(OSError, AttributeError):  # closed already (or not a socket)
            linger_none = struct.pack("ii", 1, 0)  # closing discards the unsent data and resets the connection
            self.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger_none)
        self.transport.abort()  # nothing once the connection is lost


def announcing_server(config, announce):
    """A uvicorn server of ``config`` that calls ``announce(port)`` once it listens, with the port it got (``--port
    0`` takes any free one): the address shown is never one it failed to bind (a port in use: uvicorn's one-line
    error, and nothing announced; ``kakurega serve`` then exits with status 3)."""
    import uvicorn

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets=sockets)  # a failed bind stops here (before uvicorn 0.50: SystemExit)
            if self.started:
                announce(self.servers[0].sockets[0].getsockname()[1])

    return AnnouncingServer(config)
