"""The web app's server: every request answered, bad ones refused in words without harm to a game."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette announces a move from httpx to httpx2; httpx still drives it
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402

from kakurega.agents.record import load_record, replay  # noqa: E402
from kakurega.scripts.web.app import create_app  # noqa: E402

# Starlette announces a move from httpx to httpx2 for its test client; httpx still drives it
pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(record_dir=tmp_path, host="127.0.0.1"), base_url="http://127.0.0.1") as client:
        client.record_dir = tmp_path
        yield client


def ask(ws, message) -> dict:
    ws.send_text(message if isinstance(message, str) else json.dumps(message))
    return json.loads(ws.receive_text())


def connect(client):
    return client.websocket_connect("/ws", headers={"origin": "http://127.0.0.1", "host": "127.0.0.1"})


def new_game(ws, env="kakurenbo_v0", **fields) -> dict:
    reply = ask(ws, {"type": "new", "env": env, **fields})
    assert reply["type"] == "state", reply
    return reply


def play_out(ws, state, rng) -> dict:
    """Play the person's moves at random and let the bots move, until the game is over."""
    while not state["over"]:
        if state["waiting_for"] == "you":
            state = ask(ws, {"type": "act", "action": int(rng.choice([int(a) for a in state["legal"]]))})
        else:
            state = ask(ws, {"type": "next"})
        assert state["type"] == "state", state
    return state


def test_page_and_env_list(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    for asset in ("app.js", "app.css"):
        assert client.get(f"/static/{asset}").status_code == 200
    envs = client.get("/api/envs").json()
    names = [env["name"] for env in envs["envs"]]
    from kakurega.envs.registry import ENV_SPECS

    assert names == list(ENV_SPECS)
    assert {"random", "heuristic", "policy", "pretrained", "ismcts"} <= set(envs["agent_kinds"])
    assert "human" not in envs["agent_kinds"]


def test_a_full_game_matches_its_record(client):
    rng = np.random.default_rng(0)
    with connect(client) as ws:
        state = new_game(ws, "animal_chain_v1", seat=1, agents=["heuristic"])
        seed = client.app.state.sessions.by_id[state["game"]].seed
        assert state["you"] == "player_1" and state["seats"] == {"player_0": "heuristic", "player_1": "you"}
        final = play_out(ws, state, rng)
    record = load_record(final["record"])
    assert record.agents == {"player_0": "heuristic", "player_1": "human"} and record.seed == seed
    assert final["result"]["returns"] == record.returns
    replay(record)


def test_watching_bots_from_a_chosen_view(client):
    with connect(client) as ws:
        state = new_game(ws, "kakurenbo_v0", options={"num_players": 3}, seat="watch", view="player_2",
                         agents=["random", "heuristic", "random"])
        assert state["you"] is None and state["view"] == "player_2" and state["waiting_for"] == "bot"
        final = play_out(ws, state, None)
        assert final["over"] and final["seats"]["player_1"] == "heuristic"
        refused = ask(ws, {"type": "act", "action": 0})
        assert refused == {"type": "error", "message": "nobody plays in this game: the bots play it alone (send "
                                                       "next to see their moves)", "request": "act"}


@pytest.mark.parametrize(
    "request_text,message",
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "unknown message type None"),
        ('{"type": "dance"}', "unknown message type 'dance'; expected a JSON object with \"type\" one of new, act"),
        ('{"type": "new", "env": "chess"}', "unknown env 'chess'; registered envs: kakurenbo_v1"),
        ('{"type": "new", "env": 3}', "'env' must be an env name"),
        ('{"type": "new", "env": "kakurenbo", "options": {"num_players": 9}}', "num_players"),
        ('{"type": "new", "env": "kakurenbo", "options": {"colour": "red"}}', "colour"),
        ('{"type": "new", "env": "kakurenbo", "options": [1]}', "'options' must be an object"),
        ('{"type": "new", "env": "kakurenbo", "agents": ["wizard"]}', "unknown agent kind 'wizard'"),
        ('{"type": "new", "env": "kakurenbo", "agents": ["policy:/no/such/file.safetensors"]}', "/no/such/file"),
        ('{"type": "new", "env": "kakurenbo", "agents": ["random", "random"]}', "give 1 or 3 opponent specs, got 2"),
        ('{"type": "new", "env": "kakurenbo", "seat": 7}', "seat must be in 0..3, got 7"),
        ('{"type": "new", "env": "kakurenbo", "seat": "left"}', "'seat' must be a seat number (0..3)"),
        ('{"type": "new", "env": "kakurenbo", "seed": -4}', "'seed' must be null or an integer"),
        ('{"type": "new", "env": "kakurenbo", "seat": "watch", "view": "player_9"}', "view 'player_9'"),
        ('{"type": "act", "action": 1}', "act: no game is open in this tab; start one first"),
        ('{"type": "seek", "position": 1}', "seek: no game is open in this tab"),
        ('{"type": "join", "ticket": "nope"}', "join: no game here has this link"),
        ('{"type": "join", "game": "nope"}', "join: no game here has this link"),
        ('{"type": "view", "view": "player_1"}', "view: no game is open in this tab"),
        ('{"type": "open_record", "record": "{}"}', "format: expected 'kakurega-game-record'"),
        ('{"type": "open_record", "record": 5}', "'record' must be the text of a game record"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
        ('{"type": "join", "ticket": ["a"]}', "join: 'ticket' must be a string"),
        ('{"type": "join", "ticket": {"a": 1}}', "join: 'ticket' must be a string"),
        ("x" * 3_000_000, "the limit is 2500000"),
    ],
    ids=lambda value: value[:30] if isinstance(value, str) else None,
)
def test_bad_requests_are_refused_in_words(client, request_text, message):
    with connect(client) as ws:
        reply = ask(ws, request_text)
        assert reply["type"] == "error"
        assert message in reply["message"]
        # the connection still works
        assert new_game(ws)["over"] is False


def test_bad_moves_leave_the_game_as_it_was(client):
    with connect(client) as ws:
        state = new_game(ws, "animal_chain_v1", seat=0)
        assert state["waiting_for"] == "you"
        illegal = next(a for a in range(2000) if str(a) not in state["legal"])
        for action, message in [(illegal, f"action {illegal} is not one of your legal actions now"),
                                (-1, "action -1 is not one of your legal actions"),
                                ("12", "action must be an integer action id, got '12'"),
                                (True, "action must be an integer action id, got True"),
                                (None, "action must be an integer action id, got None")]:
            reply = ask(ws, {"type": "act", "action": action})
            assert reply["type"] == "error" and message in reply["message"], reply
        assert ask(ws, {"type": "next"}) == {"type": "error", "message": "it is your turn: click the table to move",
                                             "request": "next"}
        # nothing changed: the same message as before, and the game plays on to the end
        again = ask(ws, {"type": "join", "ticket": state["ticket"]})
        assert {k: again[k] for k in ("svg", "legal", "to_move", "event_count")} == {
            k: state[k] for k in ("svg", "legal", "to_move", "event_count")}
        final = play_out(ws, again, np.random.default_rng(1))
        replay(load_record(final["record"]))
        assert ask(ws, {"type": "act", "action": 0})["message"] == "the game is over; start a new one"


def test_a_second_tab_cannot_open_a_game_in_play(client):
    with connect(client) as first, connect(client) as second:
        state = new_game(first, "kakurenbo_v0", seat=0)
        refused = ask(second, {"type": "join", "ticket": state["ticket"]})
        assert refused["type"] == "error" and "already open in another tab" in refused["message"]
        assert ask(second, {"type": "act", "action": 0})["message"].startswith("act: no game is open in this tab")
        # the first tab plays on undisturbed
        assert first is not None and play_out(first, state, np.random.default_rng(2))["over"]
    # once the first tab is closed, a reload may reopen the game
    with connect(client) as third:
        assert ask(third, {"type": "join", "ticket": state["ticket"]})["over"]


def test_pages_from_other_sites_and_other_host_names_are_refused(client):
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect("/ws", headers={"origin": "http://evil.example", "host": "127.0.0.1"}) as ws:
            ws.receive_text()
    assert client.get("/", headers={"host": "rebound.example"}).status_code == 400


def test_stepping_through_a_record(client, tmp_path):
    from .test_records import recorded_game

    record = recorded_game("kakurenbo_v0", {"num_players": 3}, 6)
    text = json.dumps(record.to_dict())
    with connect(client) as ws:
        first = ask(ws, {"type": "open_record", "record": text, "view": "player_1"})
        assert first["type"] == "replay" and first["position"] == 0 and first["moves"] == len(record.moves)
        last = ask(ws, {"type": "seek", "position": len(record.moves)})
        assert last["over"] and last["result"]["returns"] == record.returns
        middle = ask(ws, {"type": "seek", "position": 5})
        assert middle["position"] == 5 and middle["move"].startswith(("you ", "player_0 ", "player_2 "))
        for position in (-1, len(record.moves) + 1, "3"):
            assert "position must be an integer in 0.." in ask(ws, {"type": "seek", "position": position})["message"]
        assert ask(ws, {"type": "next"})["message"] == "next: the open game is a replay; use seek to move through it"
        bad = dict(record.to_dict())
        bad["moves"] = [list(m) for m in bad["moves"]]
        bad["moves"][1][1] = 10**6
        refused = ask(ws, {"type": "open_record", "record": json.dumps(bad)})
        assert refused["type"] == "error" and f"move 2 of {len(record.moves)}" in refused["message"]
        assert "out of range" in refused["message"]
        # the replay open before is still there
        assert ask(ws, {"type": "seek", "position": 2})["position"] == 2


def test_binary_frames_are_refused(client):
    with connect(client) as ws:
        ws.send_bytes(b"\x80\x04pickle")
        assert json.loads(ws.receive_text()) == {"type": "error", "message": "messages are JSON text frames"}
        assert new_game(ws)["type"] == "state"


def test_serve_refuses_a_bad_port(capsys):
    from kakurega.scripts.cli import main

    assert main(["serve", "--port", "70000"]) == 2
    assert "--port must be in 0..65535, got 70000" in capsys.readouterr().err


def test_serve_imports_the_modules_that_register_agent_kinds(tmp_path, monkeypatch):
    """--import MODULE is imported before the app is made, so the page can name its kinds; a module that does not
    import stops the server in words before it listens."""
    import kakurega.scripts.web.app as app_module
    from kakurega.agents.specs import agent_kinds
    from kakurega.scripts.serve import build_parser, run

    (tmp_path / "my_serve_bots.py").write_text(
        "from kakurega.agents import register_agent_kind\n"
        "from kakurega.agents.base import RandomAgent\n"
        "register_agent_kind('servebot', lambda context, seed, options, argument: RandomAgent(context, seed), 'a test bot')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import kakurega.agents.specs as specs

    monkeypatch.setattr(specs, "_KINDS", dict(specs._KINDS))  # the kind registered here goes with the test
    seen = []

    def stop(**_):
        seen.append("servebot" in agent_kinds())
        raise RuntimeError("the app would be made here")

    monkeypatch.setattr(app_module, "create_app", stop)
    assert "servebot" not in agent_kinds()  # the control: not registered before
    with pytest.raises(RuntimeError, match="the app would be made here"):
        run(build_parser().parse_args(["--port", "0", "--import", "my_serve_bots"]))
    assert seen == [True]
    with pytest.raises(SystemExit, match="--import no_such_module_of_bots: cannot import it"):
        run(build_parser().parse_args(["--port", "0", "--import", "no_such_module_of_bots"]))


def test_an_abandon_queued_behind_a_new_game_calls_off_that_game_not_the_one_left(client):
    with connect(client) as ws:
        first = new_game(ws, seat=0, agents=["random"])
        # two clicks at once: start another game, and leave it
        ws.send_text(json.dumps({"type": "new", "env": "animal_chain_v1", "seat": 0, "agents": ["random"]}))
        ws.send_text(json.dumps({"type": "abandon"}))
        second, left = json.loads(ws.receive_text()), json.loads(ws.receive_text())
        assert second["type"] == "state" and second["game"] != first["game"], second
        assert left["type"] != "error", left
    with connect(client) as ws:  # the first game, back by its link, plays on
        back = ask(ws, {"type": "join", "ticket": first["ticket"]})
        assert back["type"] == "state" and back["game"] == first["game"], back
        if back.get("waiting_for") == "you":
            move = ask(ws, {"type": "act", "action": int(next(iter(back["legal"])))})
        else:
            move = ask(ws, {"type": "next"})
        assert move["type"] == "state", move  # it was marked abandoned: "this game was abandoned; start a new one"


def test_a_failing_bot_is_reported_and_the_game_kept(client):
    from kakurega.agents.base import Agent
    from kakurega.agents.specs import register_agent_kind

    class Broken(Agent):  # its words name its own hand, which a page must not read
        def act(self, observation, sampler=None):
            raise ValueError(f"the bot fell over holding {observation['observation'].tobytes().hex()[:40]}")

    register_agent_kind("broken_for_test", lambda context, seed, options, argument: Broken(context, seed))
    with connect(client) as ws:
        state = new_game(ws, "animal_chain_v1", seat="watch", agents=["broken_for_test"], seed=2)
        reply = ask(ws, {"type": "next"})
        assert reply["type"] == "error"
        assert reply["message"].startswith("broken_for_test on player_0 failed to choose a move (ValueError; the "
                                           "server's log has the details); nothing was played"), reply
        assert "holding" not in reply["message"]
        again = ask(ws, {"type": "join", "ticket": state["ticket"]})
        assert again["svg"] == state["svg"] and again["event_count"] == 0
        assert new_game(ws)["type"] == "state"  # the server and the connection still work


# ------------------------------------------------------- rules, setup, results
def test_the_rules_page_of_every_game(client):
    from kakurega.envs.registry import ENV_SPECS
    from kakurega.envs.rules_pages import game_of, rules_page, title

    for name in ENV_SPECS:
        reply = client.get(f"/api/rules/{name}")
        assert reply.status_code == 200
        assert reply.json() == {"game": game_of(name), "title": title(name), "text": rules_page(name)}
    reply = client.get("/api/rules/chess")
    assert reply.status_code == 404 and reply.json()["error"].startswith("unknown game 'chess'; expected a game")
    reply = client.get("/api/rules/" + "x" * 8000)  # an unknown name is quoted short, not repeated whole
    assert reply.status_code == 404 and len(reply.json()["error"]) < 1000 and "x" * 200 not in reply.json()["error"]
    assert 'id="rules-button"' in client.get("/").text


def test_the_env_list_names_games_for_players_and_marks_older_versions(client):
    from kakurega.envs.registry import latest_envs
    from kakurega.envs.rules_pages import title

    envs = client.get("/api/envs").json()["envs"]
    assert [env["name"] for env in envs if env["latest"]] == latest_envs()
    assert {env["title"] for env in envs} == {"KAKURENBO", "Hidden Rooms", "Animal Chain", "Summer Hide-and-Seek"}
    for env in envs:
        assert env["title"] == title(env["name"])
        version = env["name"].rpartition("_v")[2]
        assert env["label"] == (env["title"] if env["latest"] else f"{env['title']} (version {version}, older)")


def test_option_fields_match_the_declared_options(client):
    from kakurega.envs.registry import get_spec

    envs = client.get("/api/envs").json()["envs"]
    for env in envs:
        options = get_spec(env["name"]).definition().options
        assert [field["name"] for field in env["fields"]] == [option.name for option in options]
        for field, option in zip(env["fields"], options):
            assert field["doc"] == option.doc and field["describe"] == option.describe()
            if option.choices:
                assert (field["type"], field["choices"], field["default"]) == ("select", list(option.choices),
                                                                               option.default)
            elif option.kind is bool:
                assert (field["type"], field["default"]) == ("checkbox", option.default)
            elif option.kind in (int, float):
                assert (field["type"], field["integer"], field["min"], field["max"], field["default"]) == (
                    "number", option.kind is int, option.low, option.high, option.default)
            else:  # a data file by name, or the shipped one (null)
                assert (field["type"], field["default"]) == ("file", None) and option.default is None
    assert {field["type"] for env in envs for field in env["fields"]} == {"select", "number", "checkbox", "file"}


def test_the_default_opponent_is_the_shipped_bot_exactly_where_one_is_shipped(client):
    from kakurega.agents.policy import served_options
    from kakurega.agents.pretrained import has_bot, shipped

    envs = client.get("/api/envs").json()["envs"]
    played = [(meta["env"], options) for _, meta in shipped() for options in served_options(meta)]
    for env in envs:  # a file's trained options and those it serves (the Hidden Rooms round bot plays matches too)
        assert env["bots"] == [options for name, options in played if name == env["name"]]
        for config in env["configurations"]:
            assert config["opponent"] == ("pretrained" if has_bot(env["name"], config["options"]) else "heuristic")
    assert sum(config["opponent"] == "pretrained" for env in envs for config in env["configurations"]) == len(played)
    with connect(client) as ws:
        for env in envs:  # the first preset of every game starts against its default opponent
            config = env["configurations"][0]
            state = new_game(ws, env["name"], options=config["options"], seat=0, agents=[config["opponent"]])
            assert set(state["seats"].values()) <= {"you", config["opponent"]}
        # a new game that names no opponent gets the default: no bot for 3 players, one for 4
        state = new_game(ws, "kakurenbo_v0", options={"num_players": 3}, seat=0)
        assert set(state["seats"].values()) == {"you", "heuristic"}
        state = new_game(ws, "kakurenbo_v0", options={"num_players": 4}, seat=0)
        assert set(state["seats"].values()) == {"you", "pretrained"}
        reply = ask(ws, {"type": "new", "env": "kakurenbo_v0", "options": {"num_players": 3}, "seat": 0,
                         "agents": ["pretrained"]})
        assert reply == {"type": "error", "message": "no shipped bot for kakurenbo_v0 with 3 players; 4 players has "
                                                     "one (or choose heuristic)", "request": "new"}


@pytest.mark.parametrize("env,seed", [("hidden_rooms_v0", 4), ("summer_hide_and_seek_v2", 5)])
def test_the_result_and_each_round_are_told_in_words(client, env, seed):
    rng = np.random.default_rng(seed)
    with connect(client) as ws:
        state = new_game(ws, env, seat=0, agents=["random"])
        rounds_seen = []
        while not state["over"]:  # between rounds the finished ones are told, one more at a time
            rounds_seen.append(len(state["rounds"]))
            action = int(rng.choice([int(a) for a in state["legal"]])) if state["waiting_for"] == "you" else None
            state = ask(ws, {"type": "act", "action": action} if action is not None else {"type": "next"})
        final = state
    replayer = replay(load_record(final["record"]))
    game, end = replayer.raw.game, replayer.raw.game_state
    assert final["result"]["words"] == game.result_words(end, 0) and final["rounds"] == game.round_words(end, 0)
    assert len(final["rounds"]) >= 2 and sorted(set(rounds_seen)) == list(range(len(final["rounds"])))
    events = final["events"]
    assert [e for e in events if e.startswith("Round ")] == final["rounds"]
    assert events[-1] == "Game over. " + final["result"]["words"][0]
    # no reinforcement-learning jargon ("+1 (win)", "terminated"); "(+1 VP)" in an announcement is the game's own words
    jargon = ("(win)", "(draw)", "(loss)", "terminated", "truncated")
    assert not any(word in line for word in jargon for line in final["result"]["words"] + events)
    assert not any(line.rstrip().endswith(("+1", "-1")) for line in final["result"]["words"] + events)
