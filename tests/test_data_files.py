"""Data files named by env options (deck, shape, map, booklet): every bad path refused in words, at once,
through every command; no error ever quotes a file's content back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from kakurega.scripts.cli import main

pytestmark = pytest.mark.faults

#: env, option, and the error class of that option's loader
FILE_OPTIONS = [
    ("animal_chain_v1", "deck", "kakurega.envs.animal_chain.data:AnimalChainDataError"),
    ("animal_chain_v1", "shape", "kakurega.envs.animal_chain.data:AnimalChainDataError"),
    ("hidden_rooms_v0", "booklet", "kakurega.envs.hidden_rooms.booklet:BookletError"),
    ("summer_hide_and_seek_v1", "map", "kakurega.envs.summer_hide_and_seek.map_data:MapError"),
]
SECRET = "s3cr3t-TOKEN-42"


def bad_paths(tmp_path) -> dict[str, str]:
    """Paths that are no readable data file: missing, a directory, a FIFO, /dev/null, /dev/stdin."""
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    return {"missing": str(tmp_path / "missing.yaml"), "directory": str(tmp_path), "fifo": str(fifo),
            "/dev/null": "/dev/null", "/dev/stdin": "/dev/stdin"}


@pytest.mark.parametrize("env, option, error", FILE_OPTIONS, ids=[o[1] for o in FILE_OPTIONS])
def test_a_path_that_is_no_regular_file_is_refused_at_once(env, option, error, tmp_path):
    """In a subprocess whose stdin is a pipe nobody writes to: a blocking open or read would hang it."""
    paths = bad_paths(tmp_path)
    module, _, name = error.partition(":")
    code = textwrap.dedent(f"""
        import json
        from kakurega.envs.registry import make
        from {module} import {name}
        results = {{}}
        for kind, path in {json.dumps(paths)}.items():
            try:
                make({env!r}, wrapped=False, **{{{option!r}: path}})
                results[kind] = "accepted"
            except {name} as error:
                results[kind] = str(error)
        print(json.dumps(results))
    """)
    with subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as process:
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail(f"{option}: a path blocked the loader (no answer in 60 s)")
    assert process.returncode == 0, err[-2000:]
    results = json.loads(out)
    for kind, path in paths.items():
        message = results[kind]
        assert message.startswith(f"{path}: "), (kind, message)
        expected = "no such file" if kind == "missing" else "not a regular file"
        assert expected in message, (kind, message)


@pytest.mark.parametrize("env, option, error", FILE_OPTIONS, ids=[o[1] for o in FILE_OPTIONS])
def test_an_error_never_quotes_a_files_content(env, option, error, tmp_path):
    from kakurega.envs.registry import make

    cases = {
        "unknown field": f"api_token: '{SECRET}'\n",
        "wrong type": f"animals: '{SECRET}'\ncards: '{SECRET}'\nmonsters: '{SECRET}'\nterrain: '{SECRET}'\n"
                      f"icons: {{A: {{name: a, vp: 1}}}}\ngrid: '.'\nrows: '{SECRET}'\n",
        "syntax error": f"password: [{SECRET}\nnext: 1\n",
        "not a mapping": f"- {SECRET}\n",
    }
    for case, text in cases.items():
        path = tmp_path / f"{case.replace(' ', '_')}.yaml"
        path.write_text(text)
        with pytest.raises(ValueError) as caught:
            make(env, wrapped=False, **{option: str(path)})
        message = str(caught.value)
        assert str(path) in message, (case, message)
        assert SECRET not in message and "s3cr3t" not in message, (case, message)


def test_the_same_data_given_as_a_mapping_is_quoted_control():
    """The check above can fail: data given in code (not read from a file) is quoted back."""
    from kakurega.envs.animal_chain.data import AnimalChainDataError, load_deck

    with pytest.raises(AnimalChainDataError, match=SECRET):
        load_deck({"animals": SECRET, "cards": []})


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
