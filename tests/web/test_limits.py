"""The server's limits on what one page can make it hold: long requests wait as text and are read in their turn
(refused unread beyond MAX_MESSAGE_VALUES values), one tab's waiting text is bounded, the number of tabs is bounded,
and a game left idle gives its place when every game is open in a tab."""

from __future__ import annotations

import json
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette announces a move from httpx to httpx2; httpx still drives it
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402

from kakurega.scripts.web import app as web  # noqa: E402
from kakurega.scripts.web.app import Connection, Queued, RequestError, create_app, json_values, queued  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(record_dir=tmp_path, host="127.0.0.1"), base_url="http://127.0.0.1") as client:
        yield client


def connect(client):
    return client.websocket_connect("/ws", headers={"origin": "http://127.0.0.1", "host": "127.0.0.1"})


def ask(ws, message) -> dict:
    ws.send_text(message if isinstance(message, str) else json.dumps(message))
    return json.loads(ws.receive_text())


@pytest.mark.parametrize("text, values", [
    ('{"a": [1, 2, 3]}', 5),
    ('["a,b", "c\\"d,[", {"x": "\\\\"}]', 5),  # commas and brackets inside strings (escaped quotes too) do not count
    ('{"record": "[1,2,3]"}', 2),
    ("[]", 2),
])
def test_json_values_counts_what_is_outside_strings(text, values):
    json.loads(text)
    assert json_values(text) == values


def test_a_message_of_too_many_values_is_refused_unread_and_a_record_of_many_moves_is_not(client):
    # 250,001 empty objects in 750 KB: once parsed on arrival and queued, 16 such (2.5 MB each) held about 1 GB
    many = "[" + "{}," * 250_000 + "{}]"
    assert json_values(many) > web.MAX_MESSAGE_VALUES
    with connect(client) as ws:
        reply = ask(ws, many)
        assert reply["type"] == "error" and f"more than {web.MAX_MESSAGE_VALUES} JSON values" in reply["message"]
        # the control: a record of 150,000 commas inside its one string is read (and refused for what it is)
        record = json.dumps({"format": "kakurega-game-record", "moves": [[0, 1]] * 75_000})
        reply = ask(ws, {"type": "open_record", "record": record})
        assert reply["type"] == "error" and "JSON values" not in reply["message"], reply
        # a long request (padded past READ_ON_ARRIVAL) waits as text and is answered as the short one is
        padded = json.dumps({"type": "new", "env": "kakurenbo_v1", "seat": 0}) + " " * (2 * web.READ_ON_ARRIVAL)
        assert ask(ws, padded)["type"] == "state"


def test_one_tabs_waiting_text_is_bounded():
    connection = Connection()
    long = json.dumps({"type": "look"}) + " " * (web.MAX_MESSAGE_BYTES - 100)
    first, second, third = (queued(long, connection) for _ in range(3))
    assert isinstance(first, Queued) and isinstance(second, Queued)
    assert isinstance(third, RequestError) and "wait for their replies" in str(third)
    assert connection.queued == 2 * len(long) <= web.MAX_QUEUED_BYTES
    # short requests are read at once (an abandon acts on arrival) and do not count
    assert queued('{"type": "abandon"}', connection) == {"type": "abandon"} and connection.queued == 2 * len(long)


def test_waiting_text_and_messages_are_counted_in_bytes():
    # 2.5 MB of three-byte characters is 830,000 characters: counted as characters, three such waited (7.5 MB)
    long = json.dumps({"type": "look", "pad": "\u3042" * (web.MAX_MESSAGE_BYTES // 3 - 20)}, ensure_ascii=False)
    size = len(long.encode())
    assert size <= web.MAX_MESSAGE_BYTES and 3 * len(long) <= web.MAX_QUEUED_BYTES
    connection = Connection()
    first, second, third = (queued(long, connection) for _ in range(3))
    assert isinstance(first, Queued) and isinstance(second, Queued) and first.size == size
    assert isinstance(third, RequestError) and f"{2 * size} bytes of this tab's requests" in str(third)
    assert connection.queued == 2 * size
    # a message of more bytes than the limit is refused, however few its characters
    over = json.dumps({"type": "look", "pad": "\u3042" * (web.MAX_MESSAGE_BYTES // 3 + 10)}, ensure_ascii=False)
    refused = queued(over, Connection())
    assert isinstance(refused, RequestError)
    assert f"message of {len(over.encode())} bytes; the limit is {web.MAX_MESSAGE_BYTES}" in str(refused)


def test_one_tab_more_than_the_limit_is_told_so_and_closed(client, monkeypatch):
    monkeypatch.setattr(web, "MAX_CONNECTIONS", 2)
    with connect(client) as one, connect(client) as two:
        assert ask(one, {"type": "new", "env": "kakurenbo_v1", "seat": 0})["type"] == "state"
        with connect(client) as three:
            refused = json.loads(three.receive_text())
            assert refused["type"] == "error" and "2 tabs open, its limit" in refused["message"]
        assert ask(two, {"type": "new", "env": "kakurenbo_v1", "seat": 0})["type"] == "state"
    with connect(client) as again:  # the closed tabs freed their places
        assert ask(again, {"type": "look"})["type"] == "error"


def test_a_game_left_idle_gives_its_place_once_every_game_is_open_in_a_tab(client):
    sessions = client.app.state.sessions
    now = [0.0]
    sessions.max_sessions, sessions.clock = 2, lambda: now[0]
    with connect(client) as one, connect(client) as two, connect(client) as three:
        first = ask(one, {"type": "new", "env": "kakurenbo_v1", "seat": 0})
        now[0] = 60.0
        ask(two, {"type": "new", "env": "kakurenbo_v1", "seat": 0})
        refused = ask(three, {"type": "new", "env": "kakurenbo_v1", "seat": 0})
        assert refused["type"] == "error" and "2 games are open in other tabs" in refused["message"]
        now[0] = web.IDLE_SECONDS + 30.0
        ask(two, {"type": "look"})  # the second game is used again: the first is the idle one
        assert ask(three, {"type": "new", "env": "kakurenbo_v1", "seat": 0})["type"] == "state"
        assert first["game"] not in sessions.by_id and len(sessions.by_id) == 2
        gone = ask(one, {"type": "look"})
        assert gone["type"] == "error" and "no game is open in this tab" in gone["message"]


def test_a_server_run_writes_at_most_its_quota_of_records(tmp_path):
    """--max-records bounds the disk a run of games fills: the games past the quota still end, and their events
    say that no record was written; the quota is counted once per record across the run's games."""
    from kakurega.scripts.web.session import GameSession, RecordQuota

    quota = RecordQuota(2)
    finished = []
    for seed in range(3):
        session = GameSession("kakurenbo_v1", {"num_players": 3}, ["random"] * 3, seed=seed, record_dir=tmp_path,
                              record_quota=quota)
        while not session.over:
            session.advance()
        finished.append(session)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"kakurenbo_v1-{s.id}.json" for s in finished[:2])
    assert [s.record_path is not None for s in finished] == [True, True, False]
    assert "no record was written: this server writes at most 2 records" in finished[2].events[-1]
    assert quota.written == 2 and not quota.take()


@pytest.mark.parametrize("value", ["0", "-3", "1000001"])
def test_serve_refuses_a_record_quota_out_of_bounds(value, tmp_path, capsys):
    from kakurega.scripts.cli import main

    assert main(["serve", "--record-dir", str(tmp_path), "--max-records", value]) == 2
    assert f"--max-records must be from 1 to 1,000,000, got {value}" in capsys.readouterr().err


def test_a_game_no_request_touches_for_the_expiry_time_is_let_go_however_few_are_open(client):
    """Without the expiry a game a person walked away from (its tab open or closed) held its place, its bots and its
    table until the server was full; the clock is injected, so nothing sleeps."""
    sessions = client.app.state.sessions
    now = [0.0]
    sessions.clock = lambda: now[0]
    expiry = sessions.expire_seconds
    assert expiry == web.EXPIRE_SECONDS and expiry > web.IDLE_SECONDS
    with connect(client) as one, connect(client) as two:
        left_open = ask(one, {"type": "new", "env": "kakurenbo_v1", "seat": 0})
        with connect(client) as closed:
            left_closed = ask(closed, {"type": "new", "env": "kakurenbo_v1", "seat": 0})
        kept = ask(two, {"type": "new", "env": "kakurenbo_v1", "seat": 0})
        now[0] = expiry - 1.0
        ask(two, {"type": "look"})  # a request touches the kept game: its time starts again
        assert len(sessions.by_id) == 3  # the control: a game is not let go before its time
        now[0] = expiry + 1.0
        assert ask(two, {"type": "look"})["type"] == "state"  # any tab's request lets the two left games go
        assert set(sessions.by_id) == {kept["game"]}
        assert left_open["game"] not in sessions.by_id and left_closed["game"] not in sessions.by_id
        gone = ask(one, {"type": "look"})  # the tab that had one open is told why it is gone
        assert gone["type"] == "error" and "let go: no move or request touched it for 60 minutes" in gone["message"]
        lost = ask(one, {"type": "join", "ticket": left_closed["ticket"]})
        assert lost["type"] == "error" and "left 60 minutes without a move" in lost["message"], lost
        assert ask(one, {"type": "new", "env": "kakurenbo_v1", "seat": 0})["type"] == "state"  # the tab goes on
        assert ask(one, {"type": "look"})["type"] == "state"
