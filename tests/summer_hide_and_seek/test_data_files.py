"""Summer Hide and Seek's data file (the map option): every bad path refused in words, at once;
no error ever quotes a file's content back."""

from __future__ import annotations

import pytest
from data_file_checks import (
    check_a_path_that_is_no_regular_file_is_refused_at_once,
    check_an_error_never_quotes_a_files_content,
)

pytestmark = pytest.mark.faults

#: env, option, and the error class of that option's loader
FILE_OPTIONS = [
    ("summer_hide_and_seek_v1", "map", "kakurega.envs.summer_hide_and_seek.map_data:MapError"),
]


@pytest.mark.parametrize("env, option, error", FILE_OPTIONS, ids=[o[1] for o in FILE_OPTIONS])
def test_a_path_that_is_no_regular_file_is_refused_at_once(env, option, error, tmp_path):
    check_a_path_that_is_no_regular_file_is_refused_at_once(env, option, error, tmp_path)


@pytest.mark.parametrize("env, option, error", FILE_OPTIONS, ids=[o[1] for o in FILE_OPTIONS])
def test_an_error_never_quotes_a_files_content(env, option, error, tmp_path):
    check_an_error_never_quotes_a_files_content(env, option, tmp_path)


#: clears the screen and sets the terminal's title: what a name in a data file must never carry to a terminal
ESCAPE = "\x1b[2J\x1b]0;owned\x07"


def _map_with(change) -> dict:
    from importlib import resources

    import yaml

    from kakurega.envs.summer_hide_and_seek.map_data import DEFAULT_MAP

    data = yaml.safe_load(resources.files("kakurega.envs.data").joinpath(DEFAULT_MAP).read_text(encoding="utf-8"))
    change(data)
    return data


def _set_terrain_name(data):
    symbol = next(iter(data["terrain"]))
    data["terrain"][symbol] += ESCAPE


def _add_terrain_symbol(data):
    data["terrain"]["\x1b"] = "void"


@pytest.mark.parametrize("change, field", [
    (lambda data: data.update(name="map" + ESCAPE), "field 'name'"),
    (lambda data: data["icons"]["S"].update(name="icon" + ESCAPE), "field 'icons.S.name'"),
    (_set_terrain_name, "field 'terrain."),
    (_add_terrain_symbol, "field 'terrain': symbol"),
], ids=["name", "icon name", "terrain name", "terrain symbol"])
def test_a_name_with_control_characters_is_refused_at_load(change, field, tmp_path, capsys):
    # every name of a map is printed by renders (kakurega play, replay): an ESC in the file never reaches a terminal
    import yaml

    from kakurega.envs.summer_hide_and_seek.map_data import MapError, load_map
    from kakurega.scripts.cli import main

    path = tmp_path / "map.yaml"
    path.write_text(yaml.safe_dump(_map_with(change)), encoding="utf-8")
    with pytest.raises(MapError) as failure:
        load_map(path)
    message = str(failure.value)
    assert message.startswith(f"{path}: {field}") and "printable" in message and "\x1b" not in message, message
    assert main(["play", "summer_hide_and_seek", "--option", f"map={path}", "--seed", "0"]) == 2
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err and "printable" in captured.err, captured


def test_the_shipped_map_names_are_printable():
    from kakurega.envs.summer_hide_and_seek.map_data import load_map

    summer_map = load_map()
    names = [summer_map.name] + [icon.name for icon in summer_map.icons] + [n for pair in summer_map.terrain for n in pair]
    assert all(name.isprintable() for name in names), names
