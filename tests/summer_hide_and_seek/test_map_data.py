"""Map loading and validation: the default map, and each malformed map refused with words."""

import copy

import pytest
import yaml

from kakurega.envs.summer_hide_and_seek.map_data import (
    KIND_BLACK,
    KIND_PATH,
    KIND_WHITE,
    MapError,
    load_map,
    parse_map,
)
from kakurega.envs.summer_hide_and_seek.rules import SummerHideAndSeekGame
from kakurega.envs.summer_hide_and_seek_v0 import raw_env

GOOD = {
    "name": "tiny",
    "terrain": {"#": "house", "~": "river"},
    "icons": {"S": {"name": "sunflower", "vp": 1}, "F": {"name": "fireworks", "vp": 4}},
    "grid": """
        .  S  #  s
        .  ~  F  .
    """,
}


def variant(**changes):
    raw = copy.deepcopy(GOOD)
    for key, value in changes.items():
        if value is None:
            del raw[key]
        else:
            raw[key] = value
    return raw


def test_default_map_matches_the_design():
    m = load_map()
    assert (m.height, m.width) == (9, 9)
    assert m.num_squares == 56
    assert [m.kinds.count(k) for k in (KIND_PATH, KIND_BLACK, KIND_WHITE)] == [34, 14, 8]
    assert [(icon.letter, icon.vp) for icon in m.icons] == [("S", 1), ("C", 2), ("W", 3), ("G", 4), ("B", 5), ("F", 7)]
    assert m.icon_counts() == [7, 5, 4, 3, 2, 1]  # rarer icons are worth more


def test_every_square_of_the_default_map_can_be_reached():
    game = SummerHideAndSeekGame(2)
    incoming = {q for p in range(game.num_squares) for q, _b, _l, _c in game.out_lines[p]}
    assert incoming == set(range(game.num_squares))


def test_good_map_parses_with_kinds_and_icons():
    m = parse_map(GOOD)
    assert [m.describe_square(s) for s in range(m.num_squares)] == [
        "r0c0 (path)",
        "r0c1 (black-framed, sunflower)",
        "r0c3 (white-framed, sunflower)",
        "r1c0 (path)",
        "r1c2 (black-framed, fireworks)",
        "r1c3 (path)",
    ]
    assert m.square_at(0, 2) == -1 and m.square_at(5, 5) == -1


def test_load_map_from_a_file(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(GOOD))
    assert load_map(path).num_squares == 6
    env = raw_env(map=str(path))
    assert env.game.num_squares == 6 and env.game.num_actions == 19


MALFORMED = [
    # (case, raw map, words the error must contain)
    ("unknown cell symbol", variant(grid=".  S  #  s\n.  ~  F  ?"), ["row 1, column 3", "unknown cell symbol '?'"]),
    ("ragged rows", variant(grid=".  S  #  s\n.  ~  F"), ["row 1 has 3 cells", "row 0 has 4", "ragged"]),
    ("icon without VP entry", variant(grid=".  S  #  q\n.  ~  F  ."), ["row 0, column 3", "icon 'q' has no VP", "'Q'"]),
    (
        "icon entry without vp",
        variant(icons={"S": {"name": "sunflower", "vp": 1}, "F": {"name": "fireworks"}}),
        ["icons.F.vp", "missing"],
    ),
    (
        "vp not a positive integer",
        variant(icons={"S": {"name": "sunflower", "vp": 0}, "F": {"name": "fireworks", "vp": 4}}),
        ["icons.S.vp", "an integer from 1 to 1000"],
    ),
    ("no path square to start on", variant(grid="S  s  #\nF  ~  f"), ["no path square", "start"]),
    (
        "rarer icon worth less",
        variant(icons={"S": {"name": "sunflower", "vp": 5}, "F": {"name": "fireworks", "vp": 4}}),
        ["icons.F.vp", "rarer", "must be worth more"],
    ),
    ("terrain symbol is a letter", variant(terrain={"T": "tree"}), ["terrain", "'T'", "not a letter"]),
    ("icon key not one uppercase letter", variant(icons={"sun": {"name": "sunflower", "vp": 1}}), ["icons", "'sun'"]),
    ("unknown top-level field", variant(colour="red"), ["unknown field 'colour'"]),
    ("missing grid", variant(grid=None), ["missing field 'grid'"]),
    ("grid not text", variant(grid=42), ["field 'grid'", "block of text"]),
    ("not a mapping", ["a", "list"], ["expected a mapping"]),
]


@pytest.mark.parametrize("case,raw,words", MALFORMED, ids=[c[0] for c in MALFORMED])
def test_malformed_maps_are_refused_with_words(case, raw, words):
    with pytest.raises(MapError) as error:
        parse_map(raw, source="my_map.yaml")
    message = str(error.value)
    assert message.startswith("my_map.yaml: ")
    for word in words:
        assert word in message, f"{case}: {word!r} not in {message!r}"


def test_map_errors_reach_the_env_constructor(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(variant(grid=".  S  #  s\n.  ~  F  ?")))
    with pytest.raises(MapError, match="row 1, column 3"):
        raw_env(map=path)
    with pytest.raises(MapError, match="missing.yaml: cannot read the map file: no such file"):
        raw_env(map=tmp_path / "missing.yaml")
    (tmp_path / "broken.yaml").write_text("grid: [unclosed")
    with pytest.raises(MapError, match="not valid YAML"):
        raw_env(map=tmp_path / "broken.yaml")
