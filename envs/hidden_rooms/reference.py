"""The Hidden Rooms observation written plainly: the definition the fast encoder must reproduce.

``encode(game, state, seat)`` writes every piece of the layout by name from
the state and the booklet, with no byte table and no offset. The fast encoder
(:mod:`~kakurega.envs.hidden_rooms.observation`) is checked against it over
random games in every registered configuration (``tests/test_conformance.py``).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from kakurega.envs.hidden_rooms.booklet import MAX_PATH_LENGTH, MAX_SIGHT_RANGE, MAX_STEPS, SIGHT_SHAPES
from kakurega.envs.hidden_rooms.observation import make_layout
from kakurega.envs.hidden_rooms.rules import (
    COLOURS,
    ESCAPES_TO_WIN,
    FAILS_TO_LOSE,
    MEMORY_CAPACITY,
    MOVE,
    NUM_CELLS,
    NUM_TILES,
    PLACING,
    SEARCH,
    START_TILE,
    coords,
    tile_colour,
    tile_number,
)


def encode(game, state, seat: int = 0) -> np.ndarray:
    """The child's observation vector of ``state`` (a solitaire game: ``seat`` is always 0)."""
    layout = make_layout(game)
    obs = layout.zeros()
    view = partial(layout.view, obs)  # view(name): the piece as a writable array of its shape

    def tile(slot, t):  # colour one-hot, then number one-hot (1..6)
        slot[tile_colour(t)] = 1
        slot[len(COLOURS) + tile_number(t) - 1] = 1

    for cell, t in enumerate(state.board):
        if t >= 0:
            view("explored")[coords(cell)] = 1
            if t != START_TILE:
                view("tile_colour")[coords(cell) + (tile_colour(t),)] = 1
                view("tile_number")[coords(cell) + (tile_number(t) - 1,)] = 1
    view("child")[coords(state.child)] = 1
    view("monster")[coords(state.monster_cell)] = 1
    for cell in range(NUM_CELLS):
        view("monster_sight")[coords(cell)] = game.sees(state.monster, state.monster_cell, cell)
    path, progress = game.paths[state.monster], state.progress
    last = len(path) - 1
    for k in range(last, progress, -1):  # backwards, so that the first visit after the progress wins
        view("path_ahead")[coords(path[k])] = 1
        view("path_eta")[coords(path[k])] = (k - progress) / MAX_PATH_LENGTH
    view("path_next")[coords(path[min(progress + 1, last)])] = 1
    view("path_end")[coords(path[last])] = 1
    monster = game.monsters[state.monster]
    view("monster_id")[state.monster] = 1
    view("monster_steps")[0] = monster.steps / MAX_STEPS
    view("sight_shape")[SIGHT_SHAPES.index(monster.sight_shape)] = 1
    view("sight_range")[0] = monster.sight_range / MAX_SIGHT_RANGE
    view("path_progress")[0] = progress / last
    view("path_remaining")[0] = (last - progress) / MAX_PATH_LENGTH
    view("chasing")[0] = state.chasing
    view("in_sight")[0] = game.sees(state.monster, state.monster_cell, state.child)
    for slot, t in enumerate(state.memory):
        tile(view("memory")[slot], t)
    view("memory_count")[0] = len(state.memory) / MEMORY_CAPACITY
    for t in state.pile:  # the composition only: the order appears nowhere
        view("pile_tiles")[tile_colour(t), tile_number(t) - 1] = 1
    view("pile_size")[0] = len(state.pile) / NUM_TILES
    if state.drawn >= 0:
        tile(view("drawn"), state.drawn)
        view("drawn_from")[1 if state.drawn_from_memory else 0] = 1
    if state.phase in (MOVE, SEARCH, PLACING):
        view("phase")[(MOVE, SEARCH, PLACING).index(state.phase)] = 1
    view("steps_taken")[0] = state.steps_taken / 2
    view("turn")[0] = min(state.turn / game.max_turns, 1.0)
    view("escapes")[0] = state.escapes / ESCAPES_TO_WIN
    view("fails")[0] = state.fails / FAILS_TO_LOSE
    return obs
