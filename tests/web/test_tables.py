"""A table for several people in the web app: a secret link per seat, each page its own view, seeds kept by the
server, and another seat's view offered only where it shows nothing hidden."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402

from kakurega.agents.record import load_record, replay  # noqa: E402
from kakurega.scripts.web.app import create_app  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(record_dir=tmp_path, host="127.0.0.1"), base_url="http://127.0.0.1") as client:
        yield client


def ask(ws, message) -> dict:
    ws.send_text(json.dumps(message))
    return json.loads(ws.receive_text())


def connect(client):
    return client.websocket_connect("/ws", headers={"origin": "http://127.0.0.1", "host": "127.0.0.1"})


def test_each_seat_joins_by_its_own_secret_link_and_sees_its_own_view(client):
    rng = np.random.default_rng(0)
    with connect(client) as host, connect(client) as guest, connect(client) as stranger:
        state = ask(host, {"type": "new", "env": "kakurenbo_v1", "options": {"num_players": 3}, "seat": 0,
                           "agents": ["human", "heuristic"]})
        assert state["type"] == "state" and state["you"] == "player_0", state
        assert state["seats"] == {"player_0": "you", "player_1": "a person", "player_2": "heuristic"}
        assert set(state["invites"]) == {"player_1"}
        ticket = state["invites"]["player_1"]
        assert len(ticket) >= 20 and ticket != state["ticket"] and ticket != state["game"]
        # the game id (every seat is sent it) opens no seat; a made-up ticket neither
        for wrong in (state["game"], state["ticket"][:-1], "player_1"):
            refused = ask(stranger, {"type": "join", "ticket": wrong})
            assert refused["type"] == "error" and "no game here has this link" in refused["message"], refused
        # the host's own seat is open in the host's tab: nobody else may take it
        assert "already open" in ask(stranger, {"type": "join", "ticket": state["ticket"]})["message"]
        joined = ask(guest, {"type": "join", "ticket": ticket})
        assert joined["you"] == "player_1" and joined["view"] == "player_1" and "invites" not in joined
        assert joined["seats"] == {"player_0": "a person", "player_1": "you", "player_2": "heuristic"}
        assert joined["svg"] != state["svg"]  # each its own hand
        # the invitation is used up: the seat has a fresh ticket only the guest knows (the host held the invite)
        assert joined["ticket"] != ticket and len(joined["ticket"]) >= 20
        refused = ask(stranger, {"type": "join", "ticket": ticket})
        assert "this invitation was already used to take its seat" in refused["message"], refused
        assert "invites" not in ask(host, {"type": "look"})
        pages = {"player_0": host, "player_1": guest}
        tickets = {"player_0": state["ticket"], "player_1": joined["ticket"]}
        state, bot_moves = joined, 0
        while not state["over"]:
            mover = state["to_move"]
            if mover == "player_2":
                state = ask(host, {"type": "next"})
                bot_moves += 1
                continue
            other = "player_1" if mover == "player_0" else "player_0"
            look = ask(pages[other], {"type": "look" if len(state["events"]) % 2 else "next"})  # nothing is played
            assert look["waiting_for"] == "person" and look["event_count"] == len(look["events"]), look
            assert look["legal"] == {}
            refused = ask(pages[other], {"type": "act", "action": 0})
            assert refused["message"] == f"it is {mover}'s turn, not yours ({other})"
            mine = ask(pages[mover], {"type": "look"})
            assert mine["waiting_for"] == "you" and mine["event_count"] == look["event_count"]
            state = ask(pages[mover], {"type": "act", "action": int(rng.choice([int(a) for a in mine["legal"]]))})
            assert state["type"] == "state", state
        finals = {seat: ask(page, {"type": "join", "ticket": tickets[seat]}) for seat, page in pages.items()}
    assert bot_moves > 0
    assert finals["player_0"]["result"]["returns"] == finals["player_1"]["result"]["returns"]
    record = load_record(finals["player_0"]["record"])
    assert record.agents == {"player_0": "human", "player_1": "human", "player_2": "heuristic"}
    replayer = replay(record)
    assert replayer.raw.game.returns(replayer.raw.game_state).tolist() == \
        list(finals["player_0"]["result"]["returns"].values())
    # each page's log told the game in its own seat's words
    assert finals["player_0"]["events"] != finals["player_1"]["events"]
    assert len(finals["player_0"]["events"]) == len(finals["player_1"]["events"])


def test_another_seats_view_is_offered_only_once_the_game_is_over(client):
    rng = np.random.default_rng(1)
    with connect(client) as page:
        state = ask(page, {"type": "new", "env": "animal_chain_v1", "seat": 0, "agents": ["human"]})
        tickets = {"player_0": state["ticket"], "player_1": state["invites"]["player_1"]}
        refused = ask(page, {"type": "view", "view": "player_1"})
        assert refused["type"] == "error" and "only once the game is over" in refused["message"], refused
        while not state["over"]:  # one page plays both seats here, each by its ticket
            state = ask(page, {"type": "join", "ticket": tickets[state["to_move"]]})
            tickets[state["to_move"]] = state["ticket"]  # an invitation is swapped for the seat's own ticket
            state = ask(page, {"type": "act", "action": int(rng.choice([int(a) for a in state["legal"]]))})
        state = ask(page, {"type": "join", "ticket": tickets["player_0"]})
        seen = ask(page, {"type": "view", "view": "player_1"})
        assert seen["view"] == "player_1" and seen["you"] == "player_0" and seen["over"], seen
        assert seen["events"] != state["events"]  # the log in player_1's words, from the start
        assert "expected \"spectator\" or one of player_0, player_1" in ask(page, {"type": "view", "view": "x"})[
            "message"]


def test_watching_bots_as_a_seat_may_switch_seats_while_they_play(client):
    with connect(client) as page:
        state = ask(page, {"type": "new", "env": "kakurenbo_v1", "options": {"num_players": 3}, "seat": "watch",
                           "view": "player_0", "agents": ["random"]})
        state = ask(page, {"type": "next"})
        seen = ask(page, {"type": "view", "view": "player_2"})
        assert seen["view"] == "player_2" and seen["you"] is None and not seen["over"]
        assert seen["event_count"] == state["event_count"] and seen["svg"] != state["svg"]


@pytest.mark.parametrize("fields", [
    {"seat": "watch", "view": "player_1", "seed": 12},  # the old leak: the deal of a game played with seed 12
    {"seat": 0, "seed": 12},
    {"seat": "random", "seed": 12},
    {"seat": 0, "agents": ["human"], "seed": 12},
])
def test_a_typed_seed_never_deals_a_game_that_hides_something(client, fields):
    with connect(client) as ws:
        reply = ask(ws, {"type": "new", "env": "animal_chain_v1", "agents": ["random"], **fields})
        assert reply["type"] == "error", reply
        assert "a seed may be chosen only to watch bots as the spectator" in reply["message"]
        # the spectator of bots may replay a deal: it shows nothing hidden
        assert ask(ws, {"type": "new", "env": "animal_chain_v1", "seat": "watch", "view": "spectator",
                        "agents": ["random"], "seed": 12})["type"] == "state"


def test_the_server_draws_and_keeps_the_seeds(client):
    with connect(client) as ws:
        games = [ask(ws, {"type": "new", "env": "animal_chain_v1", "seat": 0, "agents": ["random"]})
                 for _ in range(3)]
    seeds = {client.app.state.sessions.by_id[state["game"]].seed for state in games}
    assert len(seeds) == 3
    for state in games:
        assert str(client.app.state.sessions.by_id[state["game"]].seed) not in json.dumps(state)


def test_watching_a_game_of_people_is_refused(client):
    with connect(client) as ws:
        reply = ask(ws, {"type": "new", "env": "animal_chain_v1", "seat": "watch", "agents": ["human", "random"]})
        assert reply["type"] == "error" and "take a seat" in reply["message"]


def test_the_host_may_sit_on_any_seat_of_the_table(client):
    with connect(client) as host, connect(client) as guest:
        state = ask(host, {"type": "new", "env": "animal_chain_v1", "seat": 1, "agents": ["human"]})
        assert state["you"] == "player_1" and state["view"] == "player_1" and set(state["invites"]) == {"player_0"}
        joined = ask(guest, {"type": "join", "ticket": state["invites"]["player_0"]})
        assert joined["you"] == "player_0" and joined["view"] == "player_0"
