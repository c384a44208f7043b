"""Builders for hand-made Hidden Rooms tables used by the rule-scenario tests."""

from __future__ import annotations

import numpy as np

from kakurega.envs.hidden_rooms.booklet import Monster
from kakurega.envs.hidden_rooms.rules import (
    EMPTY,
    MOVE,
    NUM_TILES,
    START_CELL,
    START_TILE,
    HiddenRoomsGame,
    HiddenRoomsState,
    cell_of,
    tile_id,
)


def tile(name: str) -> int:
    """Tile id of e.g. ``"red 3"``."""
    colour, number = name.split()
    return tile_id(colour, int(number))


def monster(path, steps=1, sight_range=0, sight_shape="radius", name="M") -> Monster:
    """A booklet page for tests (blind and slow unless told otherwise)."""
    return Monster(name=name, path=tuple(tuple(c) for c in path), steps=steps, sight_range=sight_range, sight_shape=sight_shape)


def game_with(*monsters: Monster, **options) -> HiddenRoomsGame:
    """A game whose booklet is exactly ``monsters``."""
    return HiddenRoomsGame(monsters=tuple(monsters), **options)


def table(
    game: HiddenRoomsGame,
    tiles: dict | None = None,
    child=(4, 4),
    monster_cell=None,
    progress: int = 0,
    pile: list[str] | None = None,
    memory: list[str] = (),
    phase: int = MOVE,
    turn: int = 1,
    chasing: bool = False,
) -> HiddenRoomsState:
    """A state of booklet monster 0: ``tiles`` maps (row, col) to "colour n"; the pile's top is its last item.

    Without ``pile`` the pile holds every other room tile, sorted.
    """
    board = [EMPTY] * 25
    board[START_CELL] = START_TILE
    for (r, c), name in (tiles or {}).items():
        board[cell_of(r, c)] = tile(name)
    memory_ids = sorted(tile(n) for n in memory)
    if pile is None:
        used = set(board) | set(memory_ids)
        pile_ids = [t for t in range(NUM_TILES) if t not in used]
    else:
        pile_ids = [tile(n) for n in pile]
    path = game.paths[0]
    return HiddenRoomsState(
        board=board,
        pile=pile_ids,
        memory=memory_ids,
        child=cell_of(*child),
        monster=0,
        monster_cell=path[progress] if monster_cell is None else cell_of(*monster_cell),
        progress=progress,
        chasing=chasing,
        phase=phase,
        turn=turn,
        rounds=1,
    )


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)
