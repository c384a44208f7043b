"""The web app and the record writers under hostile or unlucky input: refused in words, bounded in time,
no game lost, nothing read that the server does not offer."""

from __future__ import annotations

import json
import time
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402

from kakurega.agents.record import load_record, replay  # noqa: E402
from kakurega.scripts.cli import main  # noqa: E402
from kakurega.scripts.web.app import create_app  # noqa: E402

pytestmark = [pytest.mark.faults, pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]

SECRET = "s3cr3t-TOKEN-42"


def client_for(**app_options):
    return TestClient(create_app(host="127.0.0.1", **app_options), base_url="http://127.0.0.1")


def connect(client):
    return client.websocket_connect("/ws", headers={"origin": "http://127.0.0.1", "host": "127.0.0.1"})


def ask(ws, message) -> dict:
    ws.send_text(json.dumps(message))
    return json.loads(ws.receive_text())


def play_out(ws, state, rng) -> dict:
    while not state["over"]:
        if state["waiting_for"] == "you":
            state = ask(ws, {"type": "act", "action": int(rng.choice([int(a) for a in state["legal"]]))})
        else:
            state = ask(ws, {"type": "next"})
        assert state["type"] == "state", state
    return state


# ------------------------------------------------------------------ D7: files named by options
def test_a_request_cannot_name_a_path_and_gets_no_content_back(tmp_path):
    secret = tmp_path / "someone_elses.yaml"
    secret.write_text(f"api_token: '{SECRET}'\n")
    with client_for() as client, connect(client) as ws:
        for env, option in (("animal_chain_v1", "deck"), ("animal_chain_v1", "shape"),
                            ("hidden_rooms_v0", "booklet"), ("summer_hide_and_seek_v1", "map")):
            for value in (str(secret), "../" * 8 + str(secret)[1:], "/etc/passwd", "/dev/stdin"):
                reply = ask(ws, {"type": "new", "env": env, "options": {option: value}, "seat": 0})
                assert reply["type"] == "error", (option, value, reply)
                assert "opens only the data files it offers" in reply["message"], reply
                assert SECRET not in reply["message"] and "api_token" not in reply["message"]
        # the shipped data by name
        state = ask(ws, {"type": "new", "env": "animal_chain_v1", "seat": 0,
                         "options": {"deck": "animal_chain_deck.yaml", "shape": "animal_chain_shape.yaml"}})
        assert state["type"] == "state", state
        assert "summer_map.yaml" in client.get("/api/envs").json()["data_files"]


def test_files_of_the_data_dir_by_name_and_their_records(tmp_path):
    from importlib import resources

    from kakurega.envs.summer_hide_and_seek.map_data import DEFAULT_MAP

    data, records = tmp_path / "data", tmp_path / "records"
    data.mkdir()
    (data / "my_map.yaml").write_text(resources.files("kakurega.envs").joinpath("data", DEFAULT_MAP).read_text())
    (tmp_path / "outside.yaml").write_text(f"token: {SECRET}\n")
    (data / "link.yaml").symlink_to(tmp_path / "outside.yaml")  # a link leading out of the directory
    with client_for(data_dir=data, record_dir=records) as client, connect(client) as ws:
        assert "my_map.yaml" in client.get("/api/envs").json()["data_files"]
        assert "link.yaml" not in client.get("/api/envs").json()["data_files"]
        reply = ask(ws, {"type": "new", "env": "summer_hide_and_seek_v1", "options": {"map": "link.yaml"}, "seat": 0})
        assert reply["type"] == "error" and SECRET not in reply["message"]
        state = ask(ws, {"type": "new", "env": "summer_hide_and_seek_v1", "options": {"map": "my_map.yaml"},
                         "seat": 0, "agents": ["random"]})
        final = play_out(ws, state, np.random.default_rng(0))
        record = load_record(final["record"])
        assert record.options["map"] == str((data / "my_map.yaml").resolve())
        replay(record)  # the record replays outside the app: it holds the file's path
        text = open(final["record"]).read()
        assert ask(ws, {"type": "open_record", "record": text})["type"] == "replay"  # a file the app offers
        forged = json.loads(text)
        forged["options"]["map"] = str(tmp_path / "outside.yaml")
        reply = ask(ws, {"type": "open_record", "record": json.dumps(forged)})
        assert reply["type"] == "error" and "opens only the data files it offers" in reply["message"]
        assert SECRET not in reply["message"]


# ------------------------------------------------------------------ D6: no person on a bot seat
def test_the_terminal_human_is_refused_on_a_bot_seat():
    """``human`` on the page is a seat another person joins by link; any other spelling names the terminal's human
    agent, which would wait at the server's terminal: refused."""
    with client_for() as client, connect(client) as ws:
        for agents in (["HUMAN"], ["random", "Human"]):
            reply = ask(ws, {"type": "new", "env": "kakurenbo_v0", "options": {"num_players": 3}, "seat": 0,
                             "agents": agents})
            assert reply["type"] == "error" and "needs a person at the terminal" in reply["message"], reply
        state = ask(ws, {"type": "new", "env": "kakurenbo_v0", "options": {"num_players": 3}, "seat": 0,
                         "agents": ["random", "human"]})
        assert state["type"] == "state" and set(state["invites"]) == {"player_2"}, state
        assert ask(ws, {"type": "new", "env": "kakurenbo_v0", "seat": "watch", "agents": ["human"]})["type"] == "error"


def game_with_a_bot_to_think(client, ws) -> tuple[str, str]:
    """A bots-only game of searching bots, moved on until the bot to move has a choice (so it searches): its id and
    its ticket."""
    state = ask(ws, {"type": "new", "env": "kakurenbo_v0", "seat": "watch", "seed": 2,
                     "agents": ["ismcts:simulations=100000,rollout=heuristic"]})
    session = client.app.state.sessions.by_id[state["game"]]
    while len(session.raw.legal_actions()) == 1:
        assert ask(ws, {"type": "next"})["type"] == "state"
    return state["game"], state["ticket"]


# ------------------------------------------------------------------ D8: caps and the time per move
def test_search_settings_past_their_cap_are_refused_naming_it():
    with client_for() as client, connect(client) as ws:
        for spec, words in (("ismcts:simulations=1000000000", "simulations must be an integer from 1 to 100,000"),
                            ("ismcts:depth=10000000000", "max_rollout_depth must be an integer from 0 to 100,000"),
                            ("ismcts:widen=1e300", "widen must be a number from 0 to 100"),
                            ("ismcts:c=inf", "c must be a number from 0 to 100"),
                            ("ismcts:bias=nan", "bias must be a number from 0 to 1000"),
                            ("ismcts:seed=-1", "seed")):
            reply = ask(ws, {"type": "new", "env": "kakurenbo_v0", "seat": 0, "agents": [spec]})
            assert reply["type"] == "error" and words in reply["message"], (spec, reply)


def test_a_bot_thinks_at_most_the_time_per_move():
    with client_for(move_seconds=0.5) as client, connect(client) as ws:
        state = ask(ws, {"type": "new", "env": "kakurenbo_v0", "seat": "watch", "seed": 2,
                         "agents": ["ismcts:simulations=100000,rollout=heuristic"]})
        assert state["type"] == "state", state
        bots = client.app.state.sessions.by_id[state["game"]].agents.values()
        searched = 0
        for move in range(1, 6):
            start = time.monotonic()
            state = ask(ws, {"type": "next"})
            seconds = time.monotonic() - start
            assert state["type"] == "state" and state["event_count"] == move, state  # the move was played
            assert seconds < 5, seconds
            searched = sum(bot.totals["searched"] for bot in bots)
            if searched >= 2:
                break
        assert searched >= 2  # forced moves (one legal action) need no search
        simulations = sum(bot.totals["simulations"] for bot in bots)
        assert searched <= simulations < 100_000 * searched  # each search was cut short, none skipped
        assert all(bot.should_stop is None for bot in bots)


def test_a_game_whose_bot_is_thinking_can_be_abandoned():
    with client_for(move_seconds=120) as client, connect(client) as ws:
        game, ticket = game_with_a_bot_to_think(client, ws)
        start = time.monotonic()
        ws.send_text(json.dumps({"type": "next"}))
        time.sleep(0.5)  # the bot is thinking now
        ws.send_text(json.dumps({"type": "abandon"}))
        called_off = json.loads(ws.receive_text())
        abandoned = json.loads(ws.receive_text())
        assert time.monotonic() - start < 10
        assert called_off["type"] == "error" and "called off" in called_off["message"], called_off
        assert abandoned == {"type": "abandoned", "game": game}
        assert game not in client.app.state.sessions.by_id
        assert ask(ws, {"type": "join", "ticket": ticket})["type"] == "error"
        assert ask(ws, {"type": "new", "env": "kakurenbo_v0", "seat": 0})["type"] == "state"  # the tab goes on


def test_a_new_game_asked_for_while_a_bot_thinks_calls_off_that_move_only_and_a_refused_one_leaves_the_game():
    """Start pressed while a bot thinks: the move is called off at once (not after the bot's time), the game is
    kept, and when the new game is refused the tab goes on with it; each error says which request it answers."""
    with client_for(move_seconds=120) as client, connect(client) as ws:
        game, _ticket = game_with_a_bot_to_think(client, ws)
        session = client.app.state.sessions.by_id[game]
        played = list(session.events)
        start = time.monotonic()
        ws.send_text(json.dumps({"type": "next"}))
        time.sleep(0.5)  # the bot is thinking now
        ws.send_text(json.dumps({"type": "new", "env": "kakurenbo_v0", "seat": 0, "agents": ["no_such_bot"]}))
        called_off, refused = json.loads(ws.receive_text()), json.loads(ws.receive_text())
        assert time.monotonic() - start < 10
        assert called_off["type"] == "error" and "called off" in called_off["message"], called_off
        assert called_off["request"] == "next" and refused["request"] == "new", (called_off, refused)
        assert refused["type"] == "error" and "no_such_bot" in refused["message"], refused
        assert session.events == played and not session.abandoned.is_set()  # nothing played, the game kept
        assert ask(ws, {"type": "look"})["game"] == game  # still open in the tab, and it plays on
        client.app.state.sessions.by_id[game].move_seconds = 0.2
        moved = ask(ws, {"type": "next"})
        assert moved["type"] == "state" and moved["event_count"] > len(played), moved
        # a long request (read in its turn) that fails says its type too; a frame that is not JSON has none
        padded = json.dumps({"type": "new", "env": "no_such_game"}) + " " * (2 * 4096)
        ws.send_text(padded)
        assert json.loads(ws.receive_text())["request"] == "new"
        ws.send_text("{not json")
        assert "request" not in json.loads(ws.receive_text())


def test_a_closed_tab_calls_off_its_bot(tmp_path):
    with client_for(move_seconds=120) as client:
        with connect(client) as ws:
            game, ticket = game_with_a_bot_to_think(client, ws)
            played = list(client.app.state.sessions.by_id[game].events)
            ws.send_text(json.dumps({"type": "next"}))
            time.sleep(0.5)
            start = time.monotonic()
        assert time.monotonic() - start < 10  # the connection's handler ended: the search stopped
        assert client.app.state.sessions.by_id[game].events == played  # nothing was played
        with connect(client) as ws:
            assert ask(ws, {"type": "join", "ticket": ticket})["type"] == "state"  # the game can be joined again


# ------------------------------------------------------------------ D15, D13: destinations checked first
def test_an_unwritable_record_dir_is_refused_before_the_first_move(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    with client_for(record_dir=blocker / "records") as client, connect(client) as ws:
        reply = ask(ws, {"type": "new", "env": "kakurenbo_v0", "seat": 0})
        assert reply["type"] == "error" and "record directory" in reply["message"], reply
        assert "internal error" not in reply["message"]
    assert main(["serve", "--record-dir", str(blocker / "records"), "--port", "0"]) == 2


def test_play_refuses_an_unwritable_record_before_the_game(tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    asked = []

    def person(*args):
        asked.append(args)
        raise KeyboardInterrupt  # the person leaves at the first prompt

    monkeypatch.setattr("builtins.input", person)
    assert main(["play", "kakurenbo", "--record", str(blocker / "game.json"), "--seed", "1"]) == 2
    assert asked == []  # refused before the first move
    err = capsys.readouterr().err
    assert f"--record {blocker / 'game.json'}: its directory {blocker}: exists and is not a directory" in err, err
    assert main(["play", "kakurenbo", "--record", str(tmp_path), "--seed", "1"]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_evaluate_refuses_an_unwritable_record_dir_or_out_before_the_games(tmp_path, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    for flag in ("--record-dir", "--out"):
        start = time.monotonic()
        assert main(["evaluate", "kakurenbo", "--agents", "random", "heuristic", "--games", "300", "--quiet",
                     flag, str(blocker / "sub")]) == 2
        assert time.monotonic() - start < 5  # no game was played first
        err = capsys.readouterr().err
        assert err.startswith(f"error: {flag} ") and "Traceback" not in err, err


# ------------------------------------------------------------------ D14: replays say what is wrong
def short_record(tmp_path, **options):
    from kakurega.agents.record import Record
    from kakurega.envs.registry import make

    raw = make("kakurenbo_v0", wrapped=False, num_players=3)
    raw.reset(seed=5)
    record = Record.start("kakurenbo_v0", {"num_players": 3}, 5, {a: "random" for a in raw.possible_agents})
    rng = np.random.default_rng(0)
    while not (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]):
        agent, action = raw.agent_selection, int(rng.choice(raw.legal_actions()))
        raw.step(action)
        record.add(agent, action)
    record.finish(raw)
    path = record.save(tmp_path / "game.json")
    if options:
        data = json.loads(path.read_text())
        data["options"].update(options)
        path.write_text(json.dumps(data))
    return path


def test_gif_options_and_destinations_are_checked_in_words(tmp_path, capsys):
    path = short_record(tmp_path)
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    folder = tmp_path / "folder.gif"
    folder.mkdir()
    for argv, words in ((["--fps", "1e-9"], "--fps must be a number from 0.01 to 50"),
                        (["--fps", "nan"], "--fps must be"),
                        (["--fps", "1000"], "--fps must be"),
                        (["--gif", str(blocker / "x.gif")], "--gif"),
                        (["--gif", str(folder)], "is a directory")):
        argv = argv if "--gif" in argv else argv + ["--gif", str(tmp_path / "out.gif")]
        assert main(["replay", str(path), *argv]) == 2, argv
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, (argv, err)
    assert main(["replay", str(path), "--gif", str(tmp_path / "new" / "dir" / "out.gif"), "--fps", "0.01"]) == 0
    assert not list(tmp_path.rglob("*.partial"))


def test_replay_options_that_would_be_ignored_are_refused(tmp_path, capsys):
    path = short_record(tmp_path)
    for argv, words in ((["--fps", "4"], "--fps sets the GIF's frames per second: give --gif"),
                        (["--gif", str(tmp_path / "out.png")], "give a name ending in .gif"),
                        (["--gif", str(tmp_path / "out.gif"), "--step"], "--step waits for Enter")):
        assert main(["replay", str(path), *argv]) == 2, argv
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, (argv, err)
    assert not list(tmp_path.glob("out.*"))
    assert main(["replay", str(path), "--gif", str(tmp_path / "OUT.GIF")]) == 0  # the default rate, any case
    assert "at 2 fps" in capsys.readouterr().out


@pytest.mark.parametrize("option", [{"render_mode": "human"}, {"render_view": "player_1"}])
def test_a_record_with_render_options_is_refused_alike_everywhere(option, tmp_path, capsys):
    path = short_record(tmp_path, **option)
    name = next(iter(option))
    for argv in (["replay", str(path)], ["replay", str(path), "--gif", str(tmp_path / "x.gif")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"options: {name} chooses how a game is shown" in err and "Traceback" not in err, err
    with client_for() as client, connect(client) as ws:
        reply = ask(ws, {"type": "open_record", "record": path.read_text()})
        assert reply["type"] == "error" and f"{name} chooses how a game is shown" in reply["message"]


# ------------------------------------------------------------------ D4: GIF frames streamed
def test_a_gif_export_holds_a_bounded_number_of_frames(tmp_path, monkeypatch, capsys):
    """Every frame image made is tracked; at most a few are alive at once however long the game."""
    import gc
    import weakref

    from PIL import Image

    import kakurega.scripts.replay as replay_script

    path = short_record(tmp_path)
    moves = len(load_record(path).moves)
    assert moves >= 30
    made = []  # a weak reference to every frame image made
    most = [0]
    caption = replay_script._caption

    def tracked(frame, text, band):
        gc.collect()
        most[0] = max(most[0], sum(ref() is not None for ref in made))
        image = caption(frame, text, band)
        made.append(weakref.ref(image))
        return image

    monkeypatch.setattr(replay_script, "_caption", tracked)
    gif = tmp_path / "game.gif"
    assert main(["replay", str(path), "--gif", str(gif), "--fps", "4"]) == 0
    assert most[0] <= 3, f"{most[0]} frames held at once"
    with Image.open(gif) as image:
        assert image.n_frames == moves + 1
        durations = []
        for k in range(image.n_frames):
            image.seek(k)
            durations.append(image.info["duration"])
        assert durations == [250] * moves + [750]


@pytest.mark.parametrize("host, words", [("a" * 100, "label too long"), ("", "1 to 253 characters")])
def test_a_host_that_cannot_be_bound_is_refused_in_one_line(host, words, capsys):
    """It once reached uvicorn, which printed a traceback of its startup before the error."""
    assert main(["serve", "--host", host, "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "not a host name or address" in err and words in err and "Traceback" not in err


def test_play_stops_on_a_bots_illegal_move_without_the_envs_words_for_it(capsys, monkeypatch):
    """A bot's illegal move in ``kakurega play`` stops the game in words of its own: the env's refusal speaks of
    the mover's hand ("there is no ... in your hand"), which the person at the terminal must not read."""
    from terminal_player import typist

    from kakurega.agents.base import Agent
    from kakurega.agents.specs import register_agent_kind

    class Illegal(Agent):  # the first action id that is not legal now
        def act(self, observation, sampler=None):
            return int(np.flatnonzero(observation["action_mask"] == 0)[0])

    register_agent_kind("illegal_for_test", lambda context, seed, options, argument: Illegal(context, seed))
    monkeypatch.setattr("builtins.input", typist(capsys))
    assert main(["play", "kakurenbo", "--opponents", "illegal_for_test", "--seat", "1", "--seed", "3",
                 "--option", "num_players=3"]) == 1
    err = capsys.readouterr().err
    assert "illegal_for_test on player_0 chose the illegal action" in err and "the game stops" in err
    assert "your hand" not in err and "illegal action" in err
