"""Game records: written by every runner, replayed exactly, refused in words when wrong."""

from __future__ import annotations

import json
import re

import pytest
from conformance import registry_cases
from terminal_player import typist

from kakurega.agents.base import AgentContext, RandomAgent
from kakurega.agents.record import (
    MAX_RECORD_BYTES,
    Record,
    RecordError,
    Replayer,
    describe_move,
    load_record,
    parse_record,
    replay,
)
from kakurega.agents.specs import make_agent
from kakurega.agents.tournament import play_game
from kakurega.envs.registry import make
from kakurega.scripts.cli import main
from kakurega.scripts.replay import CAPTION_LINE, MAX_CAPTION_LINES, _captions, caption_lines


def recorded_game(env_name: str, options: dict, seed: int, specs=None) -> Record:
    """A game of ``specs`` (default: random on every seat) played through ``play_game``, as a record."""
    raw = make(env_name, wrapped=False, **options)
    context = AgentContext.from_env(raw, env_name, options)
    specs = specs or ["random"] * context.num_players
    agents = [make_agent(spec, context, seed=seed + seat) for seat, spec in enumerate(specs)]
    record = Record.start(env_name, options, seed, dict(zip(raw.possible_agents, specs)))
    play_game(raw, agents, seed, moves=record.moves)
    record.finish(raw)
    return record


@pytest.mark.parametrize("env_name,options", registry_cases())
def test_every_env_replays_its_records_exactly(env_name, options, tmp_path):
    # random and heuristic players, several deals: the replayed game ends as recorded, with the same returns
    num_players = len(make(env_name, wrapped=False, **options).possible_agents)
    for seed in range(3):
        specs = ["heuristic" if (seat + seed) % 2 else "random" for seat in range(num_players)]
        record = recorded_game(env_name, options, 100 + seed, specs)
        path = record.save(tmp_path / f"game{seed}.json")
        loaded = load_record(path)
        assert (loaded.env, loaded.options, loaded.seed, loaded.moves) == (env_name, options, 100 + seed, record.moves)
        replayer = replay(loaded)
        assert replayer.position == len(record.moves)
        final = dict(zip(replayer.raw.possible_agents, replayer.raw.game.returns(replayer.raw.game_state).tolist()))
        assert final == record.returns


def test_a_changed_move_is_caught_at_its_step():
    # control: the replay check is not vacuous: one move changed to another legal one changes the game
    record = recorded_game("kakurenbo_v0", {"num_players": 3}, 7)
    replayer = Replayer(record)
    k = next(i for i in range(len(record.moves)) if len(_legal_at(replayer, i)) > 1)
    legal = _legal_at(replayer, k)
    changed = [list(m) for m in record.moves]
    changed[k][1] = next(a for a in legal if a != record.moves[k][1])
    with pytest.raises(RecordError, match=r"move \d+ of|returns differ|not over|already over"):
        replay(Record(**{**record.__dict__, "moves": changed}))


def _legal_at(replayer, position):
    replayer.seek(position)
    return replayer.raw.legal_actions()


def _valid_data() -> dict:
    return recorded_game("animal_chain_v1", {}, 3).to_dict()


def _mutated(**changes) -> str:
    data = _valid_data()
    for key, value in changes.items():
        if value is KeyError:
            del data[key]
        else:
            data[key] = value
    return json.dumps(data)


@pytest.mark.parametrize(
    "text,message",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "a game record is a JSON object"),
        ('{"format": "kakurega-game-record", "format": "x"}', "appears twice"),
        (_mutated(format="chess-pgn"), "format: expected 'kakurega-game-record'"),
        (_mutated(version=2), "version 2 is newer than this kakurega reads"),
        (_mutated(version="1"), "version: expected the integer 1"),
        (_mutated(seed=KeyError), "missing key(s) seed"),
        (_mutated(colour="red"), "unknown key(s) 'colour'"),
        (_mutated(env="chess_v0"), "env: unknown env 'chess_v0'; registered envs: kakurenbo_v1"),
        (_mutated(env_version=0), "env_version: expected 1"),
        (_mutated(options=[1]), "options: expected an object"),
        (_mutated(seed=-1), "seed: expected an integer in [0, 2**64)"),
        (_mutated(seed=1.5), "seed: expected an integer"),
        (_mutated(seed=True), "seed: expected an integer"),
        (_mutated(agents=["random", "random"]), "agents: expected an object"),
        (_mutated(moves={"0": 1}), "moves: expected a list"),
        (_mutated(moves=[["player_0", "17"]]), 'moves[0]: expected [agent name, action id], e.g. ["player_0", 12]'),
        (_mutated(moves=[["player_0", 1, 2]]), "moves[0]: expected [agent name, action id]"),
        (_mutated(end="won"), "end: expected one of terminated, truncated"),
        (_mutated(returns={"player_0": "1"}), "returns: expected an object agent name -> final return"),
        (b"\x80\x04\x95pickle", "not UTF-8 text"),
    ],
    ids=lambda value: value[:24] if isinstance(value, str) else None,
)
def test_malformed_records_are_refused_in_words(text, message):
    with pytest.raises(RecordError) as failure:
        parse_record(text, "game.json")
    assert str(failure.value).startswith("game.json: ")
    assert message in str(failure.value)


def test_bad_games_are_refused_at_their_move():
    data = _valid_data()
    moves = data["moves"]
    # an illegal action at move 3: the env's own words, with the move number
    illegal = json.loads(json.dumps(data))
    replayer = Replayer(parse_record(json.dumps(data)))
    replayer.seek(2)
    bad = next(a for a in range(replayer.raw.game.num_actions) if a not in replayer.raw.legal_actions())
    illegal["moves"][2][1] = bad
    with pytest.raises(RecordError, match=rf"move 3 of {len(moves)} \({moves[2][0]}, action {bad}\): illegal action {bad}"):
        replay(parse_record(json.dumps(illegal)))
    # out of range
    illegal["moves"][2][1] = 10**6
    with pytest.raises(RecordError, match="move 3 of .*out of range"):
        replay(parse_record(json.dumps(illegal)))
    # the wrong agent
    wrong = json.loads(json.dumps(data))
    wrong["moves"][0][0] = "player_1" if moves[0][0] == "player_0" else "player_0"
    with pytest.raises(RecordError, match=f"move 1 of {len(moves)}.*it is {moves[0][0]}'s turn"):
        replay(parse_record(json.dumps(wrong)))
    # a record cut short, one with a move too many, returns that differ, agents that do not fit the env
    short = {**data, "moves": moves[:-1]}
    with pytest.raises(RecordError, match="the game is not over"):
        replay(parse_record(json.dumps(short)))
    long = {**data, "moves": moves + [moves[-1]]}
    with pytest.raises(RecordError, match="the game was already over after"):
        replay(parse_record(json.dumps(long)))
    returns = {**data, "returns": {agent: value + 1 for agent, value in data["returns"].items()}}
    with pytest.raises(RecordError, match="returns differ"):
        replay(parse_record(json.dumps(returns)))
    seats = {**data, "agents": {"player_0": "random"}}
    with pytest.raises(RecordError, match="agents: expected one entry for each of player_0, player_1"):
        replay(parse_record(json.dumps(seats)))
    options = {**data, "options": {"attack_rule": "sideways"}}
    with pytest.raises(RecordError, match="options: animal_chain_v1 refuses them"):
        replay(parse_record(json.dumps(options)))


def test_huge_and_deep_records_are_refused_before_parsing(tmp_path):
    path = tmp_path / "huge.json"
    path.write_bytes(b" " * (MAX_RECORD_BYTES + 10))
    with pytest.raises(RecordError, match=f"larger than {MAX_RECORD_BYTES} bytes"):
        load_record(path)
    with pytest.raises(RecordError, match="nested deeper than"):
        parse_record("[" * 10_000 + "]" * 10_000)
    with pytest.raises(RecordError, match="missing.json: cannot read the file"):
        load_record(tmp_path / "missing.json")


# ---------------------------------------------------------------- views
def test_describe_move_gives_each_view_the_rules_words():
    # describe_move, the words a replay and the web app show for a move, is the rules' public_action_string
    # for that view (tests/test_move_words.py proves those words leak nothing and leave nothing public out)
    for env_name, options in [("kakurenbo_v1", {"num_players": 3}), ("summer_hide_and_seek_v2", {}),
                              ("animal_chain_v1", {}), ("hidden_rooms_v0", {})]:
        raw = make(env_name, wrapped=False, **options)
        raw.reset(seed=1)
        agent = RandomAgent(AgentContext.from_env(raw, env_name, options), seed=2)
        told = set()
        while not (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]):
            actor = raw.agent_selection
            action = agent.act(raw.observe(actor))
            before = raw.game.clone(raw.game_state)
            raw.step(action)
            for seat, view in [(None, None), *enumerate(raw.possible_agents)]:
                words = describe_move(raw, actor, action, view, before)
                assert words == raw.game.public_action_string(before, action, raw.game_state, seat)
                told.add(words)
            if len(raw.possible_agents) > 1:
                other = next(a for a in raw.possible_agents if a != actor)
                with pytest.raises(ValueError, match=f"{other} did not move in the state given, {actor} did"):
                    describe_move(raw, other, action, None, before)
        assert not any(words.endswith(" moved") for words in told)


# ------------------------------------------------------------------ CLI
def test_play_record_then_replay_in_the_terminal(tmp_path, monkeypatch, capsys):
    path = tmp_path / "game.json"
    typed = typist(capsys)
    monkeypatch.setattr("builtins.input", typed)
    assert main(["play", "kakurenbo", "--option", "num_players=3", "--opponents", "random", "--seat", "1",
                 "--seed", "4", "--record", str(path)]) == 0
    assert "game record written to" in "".join(typed.printed) + capsys.readouterr().out
    record = load_record(path)
    assert record.agents == {"player_0": "random", "player_1": "human", "player_2": "random"}
    assert record.seed == 4
    assert main(["replay", str(path), "--view", "player_1"]) == 0
    out = capsys.readouterr().out
    assert "the replayed returns match the record" in out
    assert f"--- move {len(record.moves)}/{len(record.moves)}" in out
    lines = [line for line in out.splitlines() if line.startswith("--- move")]
    # every move told in player_1's words: its own as "you ...", the others' public part by name
    own = [line for line in lines if re.search(r"^--- move \d+/\d+: you ", line)]
    others = [line for line in lines if re.search(r"^--- move \d+/\d+: player_[02] ", line)]
    assert own and others and len(own) + len(others) == len(record.moves)
    assert any(re.search(r"player_[02] draws a (red|blue) card", line) for line in others)  # its face stays hidden
    assert any(re.search(r"player_[02] (gives|takes) .*\((red|blue)\)", line) for line in others)  # seen by you


def test_replay_steps_and_quits(tmp_path, monkeypatch, capsys):
    path = recorded_game("hidden_rooms_v0", {}, 5).save(tmp_path / "game.json")
    answers = iter(["", "", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["replay", str(path), "--step"]) == 0
    out = capsys.readouterr().out
    assert "--- move 2/" in out and "--- move 3/" not in out and out.rstrip().endswith("stopped.")


def test_replay_refuses_a_bad_record_and_view(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "kakurega-game-record", "version": 1}')
    assert main(["replay", str(path)]) == 2
    assert "missing key(s)" in capsys.readouterr().err
    good = recorded_game("hidden_rooms_v0", {}, 5).save(tmp_path / "good.json")
    assert main(["replay", str(good), "--view", "player_7"]) == 2
    assert "view 'player_7': expected spectator, an agent name (player_0)" in capsys.readouterr().err
    assert main(["replay", str(good), "--view", "²"]) == 2  # a digit to str.isdigit, not to int(): said in words
    assert "view '²': expected spectator, an agent name (player_0) or a seat number" in capsys.readouterr().err


def test_evaluate_writes_a_record_per_game(tmp_path, capsys):
    out = tmp_path / "records"
    assert main(["evaluate", "kakurenbo", "--option", "num_players=3", "--agents", "random", "heuristic",
                 "--games", "3", "--record-dir", str(out), "--quiet"]) == 0
    files = sorted(out.glob("game-*.json"))
    assert len(files) == 6  # one deal, two pairings (random vs heuristic and back), each seat in turn
    for path in files:
        record = load_record(path)
        assert sorted(set(record.agents.values())) == ["heuristic", "random"]
        replay(record)


def test_gif_of_a_view(tmp_path, capsys):
    from PIL import Image

    record = recorded_game("kakurenbo_v0", {"num_players": 3}, 9)
    path = record.save(tmp_path / "game.json")
    gif = tmp_path / "game.gif"
    assert main(["replay", str(path), "--gif", str(gif), "--view", "player_1", "--fps", "5"]) == 0
    assert "the replayed returns match the record" in capsys.readouterr().out
    with Image.open(gif) as image:
        assert image.n_frames == len(record.moves) + 1
        assert image.info["duration"] == 200
        raw = make("kakurenbo_v0", wrapped=False, num_players=3)
        raw.reset(seed=record.seed)
        width, height = raw.picture.scene(raw.game_state, 1).width, raw.picture.scene(raw.game_state, 1).height
        band = max(len(caption_lines(text, width)) for text in _captions(record, "player_1"))
        assert image.size == (width, height + band * CAPTION_LINE)
    assert main(["replay", str(path), "--gif", str(gif), "--fps", "0"]) == 2


@pytest.mark.parametrize("env, options, seed", [("hidden_rooms_v0", {}, 3), ("summer_hide_and_seek_v2", {}, 1)])
def test_every_gif_caption_fits_its_frame_whole(tmp_path, env, options, seed):
    """A caption is wrapped to the frame's width, the band as tall as the game's longest caption (captions ran
    past the frame's edge: 43 of 200 in a Hidden Rooms match, the end of a round among them)."""
    from PIL import Image, ImageFont

    record = recorded_game(env, options, seed)
    path = record.save(tmp_path / "game.json")
    gif = tmp_path / "game.gif"
    assert main(["replay", str(path), "--gif", str(gif)]) == 0
    captions = _captions(record, None)
    font = ImageFont.load_default(size=CAPTION_LINE - 8)
    with Image.open(gif) as image:
        width = image.size[0]
        wrapped = [caption_lines(text, width) for text in captions]
        assert max(len(lines) for lines in wrapped) > 1  # the control: some caption needs a second line
        band = min(MAX_CAPTION_LINES, max(len(lines) for lines in wrapped))
        raw = make(env, wrapped=False, render_mode="rgb_array", **options)
        raw.reset(seed=record.seed)
        assert image.size[1] == raw.render().shape[0] + band * CAPTION_LINE
    for text, lines in zip(captions, wrapped):
        assert all(font.getlength(line) <= width - 12 for line in lines)
        assert " ".join(lines).split() == text.split()  # every word kept, in order


# ------------------------------------------------------------ terminal escapes
#: clears the screen and sets the terminal's title: what a record must never carry to a terminal
ESCAPE = "\x1b[2J\x1b]0;owned\x07"


def _with_escape(where: str) -> dict:
    data = _valid_data()
    first = data["moves"][0][0]
    if where == "moves":
        data["moves"][0][0] = first + ESCAPE
    elif where in ("agents", "returns"):
        data[where]["x" + ESCAPE] = data[where][first]
    elif where == "options":
        data["options"] = {"deck": "deck.yaml" + ESCAPE}
    elif where == "option names":
        data["options"] = {"deck" + ESCAPE: None}
    else:
        data[where] = "0.1" + ESCAPE
    return data


@pytest.mark.parametrize("where, field", [
    ("moves", "moves[0][0] (an agent name)"),
    ("agents", "agents (an agent name)"),
    ("returns", "returns (an agent name)"),
    ("options", "options.deck"),
    ("option names", "options (an option name)"),
    ("created", "created"),
])
def test_a_record_with_control_characters_in_a_name_is_refused_at_load(where, field, tmp_path, capsys):
    # kakurega replay prints a record's agent names (and quotes its options): an ESC in one never reaches a terminal
    data = _with_escape(where)
    with pytest.raises(RecordError) as failure:
        parse_record(json.dumps(data), "game.json")
    message = str(failure.value)
    assert message.startswith(f"game.json: {field}: got ") and "expected printable text" in message, message
    assert "\x1b" not in message and "\\x1b[2J" in message, message  # quoted, escaped
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err and "printable" in captured.err, captured


def test_replay_errors_quote_a_records_agent_names():
    # a Record built in code is not checked field by field: the replayer's own messages escape what they quote
    record = parse_record(json.dumps(_valid_data()))
    moves = [list(move) for move in record.moves]
    moves[0][0] += ESCAPE
    with pytest.raises(RecordError) as failure:
        Replayer(Record(**{**record.__dict__, "moves": moves})).step()
    assert "\x1b" not in str(failure.value) and "turn, not 'player_" in str(failure.value), failure.value
    agents = {**record.agents, "x" + ESCAPE: "random"}
    with pytest.raises(RecordError) as failure:
        Replayer(Record(**{**record.__dict__, "agents": agents}))
    assert "\x1b" not in str(failure.value) and "'x\\x1b[2J" in str(failure.value), failure.value
