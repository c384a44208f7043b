"""Hidden Rooms' data file (the booklet option): every bad path refused in words, at once, through every
command; no error ever quotes a file's content back."""

from __future__ import annotations

import json
import os

import pytest
from data_file_checks import (
    check_a_path_that_is_no_regular_file_is_refused_at_once,
    check_an_error_never_quotes_a_files_content,
)

from kakurega.scripts.cli import main

pytestmark = pytest.mark.faults

#: env, option, and the error class of that option's loader
FILE_OPTIONS = [
    ("hidden_rooms_v0", "booklet", "kakurega.envs.hidden_rooms.booklet:BookletError"),
]


@pytest.mark.parametrize("env, option, error", FILE_OPTIONS, ids=[o[1] for o in FILE_OPTIONS])
def test_a_path_that_is_no_regular_file_is_refused_at_once(env, option, error, tmp_path):
    check_a_path_that_is_no_regular_file_is_refused_at_once(env, option, error, tmp_path)


@pytest.mark.parametrize("env, option, error", FILE_OPTIONS, ids=[o[1] for o in FILE_OPTIONS])
def test_an_error_never_quotes_a_files_content(env, option, error, tmp_path):
    check_an_error_never_quotes_a_files_content(env, option, tmp_path)


def booklet_fifo(tmp_path) -> str:
    fifo = tmp_path / "booklet.yaml"
    os.mkfifo(fifo)
    return str(fifo)


@pytest.mark.parametrize("bad", ["missing", "directory", "fifo", "/dev/null"])
def test_a_bad_booklet_is_a_message_through_every_command(bad, tmp_path, capsys):
    path = {"missing": str(tmp_path / "none.yaml"), "directory": str(tmp_path), "/dev/null": "/dev/null"}.get(bad)
    path = path or booklet_fifo(tmp_path)
    commands = {
        "evaluate": ["evaluate", "hidden_rooms", "--option", f"booklet={path}", "--agents", "random", "heuristic",
                     "--games", "1", "--quiet"],
        "play": ["play", "hidden_rooms", "--option", f"booklet={path}", "--seed", "0"],
    }
    for name, argv in commands.items():
        assert main(argv) == 2, name
        err = capsys.readouterr().err
        assert err.startswith(f"error: {path}: ") and "Traceback" not in err, (name, err)
    record = tmp_path / "record.json"
    record.write_text(json.dumps({
        "format": "kakurega-game-record", "version": 1, "env": "hidden_rooms_v0", "env_version": 0,
        "options": {"booklet": path}, "seed": 1, "agents": {"player_0": "random"}, "moves": [],
        "end": "terminated", "returns": {"player_0": 0.0}}))
    assert main(["replay", str(record)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: " in err and "Traceback" not in err, err


#: clears the screen and sets the terminal's title: what a name in a data file must never carry to a terminal
ESCAPE = "\x1b[2J\x1b]0;owned\x07"


@pytest.mark.parametrize("field", ["name", "description"])
def test_a_monster_name_with_control_characters_is_refused_at_load(field, tmp_path, capsys):
    # kakurega play and replay print monster names: an ESC in a booklet never reaches a terminal
    from importlib import resources

    import yaml

    from kakurega.envs.hidden_rooms.booklet import DEFAULT_BOOKLET, BookletError, load_booklet, validate_booklet

    text = resources.files("kakurega.envs").joinpath("data", DEFAULT_BOOKLET).read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    data["monsters"][1][field] = "Rokurokubi" + ESCAPE
    path = tmp_path / "booklet.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(BookletError) as failure:
        load_booklet(path)
    message = str(failure.value)
    assert message.startswith(f"{path}: monster 1, field '{field}': got <str>; expected printable text"), message
    assert main(["play", "hidden_rooms", "--option", f"booklet={path}", "--seed", "0"]) == 2
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err and "printable" in captured.err, captured
    # a booklet given as data is quoted back, escaped
    with pytest.raises(BookletError, match=r"got 'Rokurokubi\\x1b\[2J"):
        validate_booklet(data)


def test_the_shipped_monster_names_are_printable():
    from kakurega.envs.hidden_rooms.booklet import load_booklet

    assert all(m.name.isprintable() and m.description.isprintable() for m in load_booklet())


def test_a_policy_plays_with_its_booklet_however_the_path_is_written(tmp_path, monkeypatch):
    """A policy trained with ``booklet=PATH`` fits an env made with the same file named another way (relative, or
    through a link): the file decides, not the spelling. Another file with the same monsters is still another
    option value (the control)."""
    import shutil
    from importlib import resources

    from kakurega.agents.policy import PolicyFileError, check_compatible, context_for, resolved_env_options

    booklet = tmp_path / "booklet.yaml"
    shutil.copyfile(resources.files("kakurega.envs").joinpath("data", "hidden_rooms_monsters.yaml"), booklet)
    (tmp_path / "link.yaml").symlink_to(booklet)
    shutil.copyfile(booklet, tmp_path / "copy.yaml")
    trained = context_for("hidden_rooms_v0", {"booklet": str(booklet)})
    meta = {"env": "hidden_rooms_v0", "env_options": resolved_env_options("hidden_rooms_v0", {"booklet": str(booklet)}),
            "observation_size": trained.layout.size, "num_actions": trained.num_actions}
    monkeypatch.chdir(tmp_path)
    for same in ("booklet.yaml", "link.yaml", str(tmp_path / "." / "booklet.yaml")):
        check_compatible(meta, context_for("hidden_rooms_v0", {"booklet": same}))
    with pytest.raises(PolicyFileError, match="option booklet: policy"):
        check_compatible(meta, context_for("hidden_rooms_v0", {"booklet": "copy.yaml"}))
