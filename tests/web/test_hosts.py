"""No DNS rebinding, wherever the server listens (docs/web.md, "Safety").

A page at http://attacker.example:PORT whose name was rebound to the server's address sends ``Host`` and ``Origin``
naming attacker.example. The server once answered every Host unless it listened on 127.0.0.1, localhost or ::1
exactly (so on 127.0.0.2, a loopback address too, and on 0.0.0.0), and its websocket compared the Origin with that
same Host. Now it answers only requests naming it by an IP address, ``localhost``, beyond loopback this machine's
own names, and the names given with ``--allow-host``.
"""

from __future__ import annotations

import socket
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette announces a move from httpx to httpx2; httpx still drives it
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402

from kakurega.scripts.web.app import create_app, host_allowed, host_names, is_loopback  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

PORT = 8765
REBOUND = f"attacker.example:{PORT}"


def status(client, host: str) -> int:
    return client.get("/api/rules/kakurenbo", headers={"host": host}).status_code


def websocket_opens(client, host: str) -> bool:
    """Whether a websocket from the page served as ``host`` is accepted (its Origin names the same host)."""
    from starlette.testclient import WebSocketDenialResponse
    from starlette.websockets import WebSocketDisconnect

    try:
        with client.websocket_connect("/ws", headers={"host": host, "origin": f"http://{host}"}) as ws:
            ws.send_json({"type": "look"})
            return ws.receive_json()["type"] == "error"  # answered (no game is open)
    except (WebSocketDenialResponse, WebSocketDisconnect):
        return False


@pytest.mark.parametrize("bind", ["0.0.0.0", "::", "127.0.0.2", "127.0.0.1", "localhost"])
def test_a_rebound_host_name_is_refused_wherever_the_server_listens(bind):
    with TestClient(create_app(host=bind), base_url="http://127.0.0.1") as client:
        assert status(client, REBOUND) == 400 and status(client, "attacker.example") == 400
        assert not websocket_opens(client, REBOUND)
        # addresses (a rebound page names its own host, never an address) and localhost are answered
        for host in (f"127.0.0.1:{PORT}", f"[::1]:{PORT}", f"localhost:{PORT}", f"192.168.1.20:{PORT}",
                     f"{bind}:{PORT}" if ":" not in bind else f"[{bind}]:{PORT}"):
            assert status(client, host) == 200, host
        assert websocket_opens(client, f"127.0.0.1:{PORT}")


@pytest.mark.parametrize("bind", ["0.0.0.0", "::"])
def test_beyond_loopback_the_machines_own_names_are_answered(bind):
    machine = socket.gethostname()
    with TestClient(create_app(host=bind), base_url="http://127.0.0.1") as client:
        for name in {machine, machine.partition(".")[0] + ".local", socket.getfqdn()}:
            assert status(client, f"{name}:{PORT}") == 200, name
            assert status(client, name.upper()) == 200, name
        assert websocket_opens(client, f"{machine}:{PORT}")
        assert not websocket_opens(client, REBOUND)


def test_names_given_with_allow_host_are_answered():
    app = create_app(host="127.0.0.2", allow_hosts=["games.example.org"])
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert status(client, f"games.example.org:{PORT}") == 200 and status(client, "Games.Example.Org") == 200
        assert websocket_opens(client, f"games.example.org:{PORT}")
        assert status(client, f"other.example.org:{PORT}") == 400
        # on loopback, the machine's names are not answered unless given (nothing beyond loopback reaches it)
        if not is_loopback(socket.gethostname()) and socket.gethostname() != "localhost":
            assert status(client, f"{socket.gethostname()}:{PORT}") == 400


@pytest.mark.parametrize("host", ["127.0.0.2", "127.255.0.9", "::1", "[::1]", "localhost", "LOCALHOST"])
def test_every_loopback_address_is_loopback(host):
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "example.org", ""])
def test_other_binds_are_not_loopback(host):
    assert not is_loopback(host)


@pytest.mark.parametrize("header, allowed", [
    ("127.0.0.1", True), ("[::1]:8765", True), ("10.0.0.1:80", True), ("localhost:8765", True),
    ("attacker.example", False), ("attacker.example:8765", False), ("", False), (None, False),
    ("localhost@attacker.example", False), ("attacker.example/localhost", False), ("[::1", False),
    ("::1", False), ("localhost:port", False), ("127.0.0.1.attacker.example", False),
])
def test_host_headers(header, allowed):
    assert host_allowed(header, host_names("127.0.0.1")) is allowed


def test_serve_refuses_an_allow_host_that_is_not_a_host_name(capsys):
    from kakurega.scripts.cli import main

    assert main(["serve", "--allow-host", "evil.example:80", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "--allow-host" in err and "not a host name" in err and "Traceback" not in err
