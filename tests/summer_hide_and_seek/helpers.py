"""A small test map and a readable way to play scripted moves on it.

The test map (row 0 at the top; ``.`` path, ``S``/``F`` black-framed,
``s``/``f`` white-framed, ``#`` house, ``~`` river)::

         c0 c1 c2 c3 c4 c5
    r0    .  .  .  #  s  .
    r1    .  S  .  #  #  .
    r2    .  .  F  ~  .  S
    r3    #  ~  #  ~  #  .
    r4    .  #  f  .  S  .

Icons: S = sunflower 1 VP (4 squares), F = fireworks 4 VP (2 squares).
"""

from __future__ import annotations

import numpy as np

from kakurega.envs.summer_hide_and_seek.map_data import parse_map
from kakurega.envs.summer_hide_and_seek.rules import SummerHideAndSeekGame

TEST_MAP = {
    "name": "test map",
    "terrain": {"#": "house", "~": "river"},
    "icons": {"S": {"name": "sunflower", "vp": 1}, "F": {"name": "fireworks", "vp": 4}},
    "grid": """
        .  .  .  #  s  .
        .  S  .  #  #  .
        .  .  F  ~  .  S
        #  ~  #  ~  #  .
        .  #  f  .  S  .
    """,
}
SUNFLOWER, FIREWORKS = 0, 1


def new_game(num_players=2, first_child=0, **options):
    """(game, state) on the test map with a chosen first child."""
    game = SummerHideAndSeekGame(num_players, parse_map(TEST_MAP, "test map"), **options)
    state = game.initial_state(np.random.default_rng(0))
    state.first_child = first_child
    return game, state


def square(game, name: str) -> int:
    """Square index of a name like ``"r2c5"``."""
    row, col = name[1:].split("c")
    index = game.map.square_at(int(row), int(col))
    assert index >= 0, f"{name} is not a square of the test map"
    return index


def action(game, text: str) -> int:
    """Action id of ``"start r0c0"``, ``"line r1c1"``, ``"stop"`` or ``"place r2c5"``."""
    words = text.split()
    if words[0] == "stop":
        return game.stop_action
    s = square(game, words[1])
    return {"start": s, "line": game.line_base + s, "place": game.place_base + s}[words[0]]


def play(game, state, *steps: str) -> None:
    """Apply scripted steps, failing with the rules' reason if one is illegal."""
    rng = np.random.default_rng(0)
    for text in steps:
        a = action(game, text)
        assert a in game.legal_actions(state), f"{text!r} is illegal: {game.illegal_reason(state, a)}"
        game.apply_action(state, a, rng)


def names(game, mask_or_squares) -> list[str]:
    """Square names of a bitmask or an iterable of squares."""
    if isinstance(mask_or_squares, int):
        mask_or_squares = [s for s in range(game.num_squares) if mask_or_squares >> s & 1]
    return [game.map.square_name(s) for s in mask_or_squares]
