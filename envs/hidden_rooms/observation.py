"""The child's observation: everything on the table except the pile's order.

``HiddenRoomsObserver(game)`` declares the layout (``observer.layout``) and
encodes a state (``observer.encode(state, seat)``). The pile appears only as
its composition (every tile neither placed, in memory nor in hand), which the
child can work out from the face-up tiles; its order appears nowhere.
"""

from __future__ import annotations

import numpy as np

from kakurega.envs.core.layout import ObservationLayout
from kakurega.envs.hidden_rooms.booklet import GRID, MAX_PATH_LENGTH, MAX_SIGHT_RANGE, MAX_STEPS, SIGHT_SHAPES
from kakurega.envs.hidden_rooms.rules import (
    COLOURS,
    ESCAPES_TO_WIN,
    FAILS_TO_LOSE,
    MEMORY_CAPACITY,
    MOVE,
    NUM_CELLS,
    NUM_TILES,
    NUMBERS,
    PLACING,
    SEARCH,
    START_TILE,
    HiddenRoomsGame,
    tile_colour,
    tile_number,
)

NC, NN = len(COLOURS), len(NUMBERS)


class HiddenRoomsObserver:
    """Layout and encoder of the child's view (picklable: plain attributes only)."""

    def __init__(self, game: HiddenRoomsGame):
        self.game = game
        n_monsters = len(game.monsters)
        g = (GRID, GRID)
        self.layout = ObservationLayout(
            [
                ("explored", g, "1 where a tile lies (the start tile included)"),
                ("tile_colour", g + (NC,), "colour one-hot of the tile on each cell (red, blue, green, yellow); start tile: none"),
                ("tile_number", g + (NN,), "number one-hot (1..6) of the tile on each cell; start tile (number 0): none"),
                ("child", g, "one-hot: the child's cell"),
                ("monster", g, "one-hot: the monster's cell"),
                ("monster_sight", g, "1 on the cells the monster sees from where it stands"),
                ("path_ahead", g, "1 on cells the monster's path still visits after its progress"),
                ("path_eta", g, f"path steps until the path first reaches the cell (after its progress) / {MAX_PATH_LENGTH}; 0 if never"),
                ("path_next", g, "one-hot: the path cell the monster walks toward when not chasing"),
                ("path_end", g, "one-hot: the last cell of the path (reaching it at the end of a monster phase = fail)"),
                ("monster_id", (n_monsters,), "one-hot: which booklet monster this round's monster is"),
                ("monster_steps", (1,), f"steps per monster phase / {MAX_STEPS}"),
                ("sight_shape", (len(SIGHT_SHAPES),), "one-hot sight shape: radius, line"),
                ("sight_range", (1,), f"sight range / {MAX_SIGHT_RANGE}"),
                ("path_progress", (1,), "progress along the path: index of the last path cell reached / (path length - 1)"),
                ("path_remaining", (1,), f"path cells still to walk / {MAX_PATH_LENGTH}"),
                ("chasing", (1,), "1 when the monster's latest step was a chase"),
                ("in_sight", (1,), "1 when the monster sees the child now"),
                ("memory", (MEMORY_CAPACITY, NC + NN), "memory slots in action order (sorted by tile id): colour one-hot, number one-hot; empty slot all 0"),
                ("memory_count", (1,), f"tiles in memory / {MEMORY_CAPACITY}"),
                ("pile_tiles", (NC, NN), "1 for each tile in the pile (composition only; the order is hidden)"),
                ("pile_size", (1,), f"tiles in the pile / {NUM_TILES}"),
                ("drawn", (NC + NN,), "the tile in hand while placing: colour one-hot, number one-hot"),
                ("drawn_from", (2,), "one-hot source of the tile in hand: pile, memory"),
                ("phase", (3,), "one-hot decision phase: move, search, place (all 0 when the episode is over)"),
                ("steps_taken", (1,), "child steps taken this turn / 2"),
                ("turn", (1,), "turn number in this round / max_turns"),
                ("escapes", (1,), f"escapes in this match / {ESCAPES_TO_WIN}"),
                ("fails", (1,), f"fails in this match / {FAILS_TO_LOSE}"),
            ]
        )
        L = self.layout
        st = {name: L.pieces[name].start for name in L.pieces}
        self._start = st
        # Static per-monster vectors, precomputed once: identity and traits.
        self._monster_static = []
        for m, monster in enumerate(game.monsters):
            static = L.zeros()
            L.view(static, "monster_id")[m] = 1.0
            L.view(static, "monster_steps")[0] = monster.steps / MAX_STEPS
            L.view(static, "sight_shape")[SIGHT_SHAPES.index(monster.sight_shape)] = 1.0
            L.view(static, "sight_range")[0] = monster.sight_range / MAX_SIGHT_RANGE
            self._monster_static.append(static)
        # Encoding writes ones at precomputed flat indices (one numpy call per
        # observation) instead of filling pieces one by one: this keeps
        # observe() cheap, which dominates random-play speed.
        self._tile_ones = [
            [
                (st["explored"] + cell,)
                if tile == START_TILE
                else (
                    st["explored"] + cell,
                    st["tile_colour"] + cell * NC + tile_colour(tile),
                    st["tile_number"] + cell * NN + tile_number(tile) - 1,
                )
                for tile in range(NUM_TILES + 1)
            ]
            for cell in range(NUM_CELLS)
        ]
        self._memory_ones = [
            [(st["memory"] + slot * (NC + NN) + tile_colour(t), st["memory"] + slot * (NC + NN) + NC + tile_number(t) - 1)
             for t in range(NUM_TILES)]
            for slot in range(MEMORY_CAPACITY)
        ]
        self._drawn_ones = [(st["drawn"] + tile_colour(t), st["drawn"] + NC + tile_number(t) - 1) for t in range(NUM_TILES)]
        self._sight_ones = [
            [[st["monster_sight"] + c for c in range(NUM_CELLS) if mask >> c & 1] for mask in masks]
            for masks in game.sight_masks
        ]
        self._path_ones = []
        for path in game.paths:
            last = len(path) - 1
            per_progress = []
            for p in range(len(path)):
                ones = sorted({st["path_ahead"] + c for c in path[p + 1 :]})
                ones.append(st["path_next"] + path[min(p + 1, last)])
                ones.append(st["path_end"] + path[last])
                per_progress.append(ones)
            self._path_ones.append(per_progress)
        # path_eta vectors per (monster, progress)
        self._path_eta = []
        for path in game.paths:
            per_progress = []
            for p in range(len(path)):
                eta = np.zeros(NUM_CELLS, dtype=np.float32)
                for k in range(len(path) - 1, p, -1):  # backwards, so the first visit wins
                    eta[path[k]] = (k - p) / MAX_PATH_LENGTH
                per_progress.append(eta)
            self._path_eta.append(per_progress)
        self._eta_slice = L.slice("path_eta")
        self._scalars = np.array(
            [st[name] for name in ("path_progress", "path_remaining", "memory_count", "pile_size", "steps_taken", "turn", "escapes", "fails")]
        )

    def encode(self, state, seat: int = 0) -> np.ndarray:
        """The child's observation vector of ``state``."""
        game, st = self.game, self._start
        m = state.monster
        last = len(game.paths[m]) - 1
        obs = self._monster_static[m].copy()
        ones = [st["child"] + state.child, st["monster"] + state.monster_cell]
        tile_ones = self._tile_ones
        for cell, tile in enumerate(state.board):
            if tile >= 0:
                ones.extend(tile_ones[cell][tile])
        ones.extend(self._sight_ones[m][state.monster_cell])
        ones.extend(self._path_ones[m][state.progress])
        if state.chasing:
            ones.append(st["chasing"])
        if game.sight_masks[m][state.monster_cell] >> state.child & 1:
            ones.append(st["in_sight"])
        memory_ones = self._memory_ones
        for slot, tile in enumerate(state.memory):
            ones.extend(memory_ones[slot][tile])
        # The pile's composition (a set: its order never reaches the vector).
        pile_start = st["pile_tiles"]
        ones.extend([pile_start + t for t in state.pile])
        if state.drawn >= 0:
            ones.extend(self._drawn_ones[state.drawn])
            ones.append(st["drawn_from"] + state.drawn_from_memory)
        if state.phase in (MOVE, SEARCH, PLACING):
            ones.append(st["phase"] + state.phase)
        obs[ones] = 1.0
        obs[self._eta_slice] = self._path_eta[m][state.progress]
        obs[self._scalars] = (
            state.progress / last,
            (last - state.progress) / MAX_PATH_LENGTH,
            len(state.memory) / MEMORY_CAPACITY,
            len(state.pile) / NUM_TILES,
            state.steps_taken / 2,
            min(state.turn / game.max_turns, 1.0),
            min(state.escapes / ESCAPES_TO_WIN, 1.0),
            min(state.fails / FAILS_TO_LOSE, 1.0),
        )
        return obs
