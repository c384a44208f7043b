"""The child's observation: everything on the table except the pile's order.

``HiddenRoomsObserver(game)`` declares the layout (``observer.layout``) and
encodes a state (``observer.encode(state, seat)``). The pile appears only as
its composition (every tile neither placed, in memory nor in hand), which the
child can work out from the face-up tiles; its order appears nowhere.
"""

from __future__ import annotations

from array import array

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
    OVER,
    PLACING,
    SEARCH,
    START_TILE,
    HiddenRoomsGame,
    tile_colour,
    tile_number,
)

NC, NN = len(COLOURS), len(NUMBERS)
#: bit of each tile id in a composition bitmask
TILE_BITS = tuple(1 << tile for tile in range(NUM_TILES))
#: passed positionally to np.frombuffer (a keyword or a type costs more than the encoding)
FLOAT32 = np.dtype(np.float32)


def make_layout(game: HiddenRoomsGame) -> ObservationLayout:
    """The observation layout of ``game`` (sizes depend on the booklet)."""
    n_monsters = len(game.monsters)
    g = (GRID, GRID)
    return ObservationLayout(
        [
            ("explored", g, "1 where a tile lies (the start tile included)"),
            ("tile_colour", g + (NC,), "colour one-hot of the tile on each cell (red, blue, green, yellow); start tile: none"),
            ("tile_number", g + (NN,), "number one-hot (1..6) of the tile on each cell; start tile (number 0): none"),
            ("child", g, "one-hot: the child's cell"),
            ("monster", g, "one-hot: the monster's cell"),
            ("monster_sight", g, "1 on the cells the monster sees from where it stands"),
            ("path_ahead", g, "1 on cells the monster's path still visits after its progress"),
            ("path_eta", g, f"path steps until the path first reaches the cell (after its progress) / {MAX_PATH_LENGTH}; 0 if never"),
            ("path_next", g, "one-hot: the path cell the monster walks toward when not chasing (the last path cell once it is walked)"),
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


class HiddenRoomsObserver:
    """Layout and encoder of the child's view (picklable: plain attributes only)."""

    def __init__(self, game: HiddenRoomsGame):
        self.game = game
        self.layout = make_layout(game)
        L = self.layout
        # Encoding joins precomputed bytes: every group of consecutive pieces
        # below is a function of one or two small state fields, so its float32
        # bytes are looked up (or built once per new board) and the groups are
        # concatenated into the vector (only the memory slots and the pile's
        # tiles take a short loop). The tables are built with the layout's
        # views, so the values are exactly those the pieces' descriptions define.
        groups = (
            ("explored", "tile_number"),  # board
            ("child", "child"),
            ("monster", "monster"),
            ("monster_sight", "monster_sight"),  # (monster, monster cell)
            ("path_ahead", "path_end"),  # (monster, progress)
            ("monster_id", "sight_range"),  # monster
            ("path_progress", "path_remaining"),  # (monster, progress)
            ("chasing", "in_sight"),
            ("memory", "memory"),  # one slot at a time
            ("memory_count", "memory_count"),
            ("pile_tiles", "pile_tiles"),  # 8 tiles at a time
            ("pile_size", "pile_size"),
            ("drawn", "drawn_from"),
            ("phase", "phase"),
            ("steps_taken", "steps_taken"),
            ("turn", "turn"),
            ("escapes", "fails"),
        )
        names = list(L.pieces)
        covered = [n for first, last in groups for n in names[names.index(first) : names.index(last) + 1]]
        assert covered == names, "the byte groups must cover the layout in order"

        def group_bytes(first: str, last: str, fill) -> bytes:
            """Bytes of pieces ``first..last`` of a zero vector after ``fill(vector)``."""
            vector = L.zeros()
            fill(vector)
            return vector[L.pieces[first].start : L.pieces[last].stop].tobytes()

        def one_hot(piece: str, index: int) -> bytes:
            return group_bytes(piece, piece, lambda v: L.view(v, piece).reshape(-1).__setitem__(index, 1.0))

        self._child_bytes = [one_hot("child", c) for c in range(NUM_CELLS)]
        self._monster_cell_bytes = [one_hot("monster", c) for c in range(NUM_CELLS)]
        self._sight_bytes = [
            [group_bytes("monster_sight", "monster_sight", lambda v, mask=mask: self._fill_sight(v, mask)) for mask in masks]
            for masks in game.sight_masks
        ]
        self._path_bytes = []
        self._progress_bytes = []
        for path in game.paths:
            self._path_bytes.append([group_bytes("path_ahead", "path_end", lambda v, path=path, p=p: self._fill_path(v, path, p)) for p in range(len(path))])
            self._progress_bytes.append(
                [group_bytes("path_progress", "path_remaining", lambda v, path=path, p=p: self._fill_progress(v, path, p)) for p in range(len(path))]
            )
        self._monster_bytes = [
            group_bytes("monster_id", "sight_range", lambda v, m=m, monster=monster: self._fill_monster(v, m, monster))
            for m, monster in enumerate(game.monsters)
        ]

        def flags(v, chasing, in_sight):
            L.view(v, "chasing")[0] = chasing
            L.view(v, "in_sight")[0] = in_sight

        self._flag_bytes = [[group_bytes("chasing", "in_sight", lambda v, c=c, i=i: flags(v, c, i)) for i in (0, 1)] for c in (0, 1)]
        slot_size = NC + NN
        self._memory_slot_bytes = [
            group_bytes("memory", "memory", lambda v, t=t: self._fill_tile(L.view(v, "memory")[0], t))[: 4 * slot_size]
            for t in range(NUM_TILES)
        ]
        self._empty_slot = bytes(4 * slot_size)
        self._memory_count_bytes = [
            group_bytes("memory_count", "memory_count", lambda v, k=k: L.view(v, "memory_count").__setitem__(0, k / MEMORY_CAPACITY))
            for k in range(MEMORY_CAPACITY + 1)
        ]

        def drawn(v, tile, from_memory):
            self._fill_tile(L.view(v, "drawn"), tile)
            L.view(v, "drawn_from")[int(from_memory)] = 1.0

        #: ``_drawn_bytes[tile][from_memory]``; index -1 (no tile in hand) is all zero
        self._drawn_bytes = [[group_bytes("drawn", "drawn_from", lambda v, t=t, f=f: drawn(v, t, f)) for f in (0, 1)] for t in range(NUM_TILES)]
        self._drawn_bytes.append([group_bytes("drawn", "drawn_from", lambda v: None)] * 2)
        self._phase_bytes = [
            one_hot("phase", phase) if phase in (MOVE, SEARCH, PLACING) else group_bytes("phase", "phase", lambda v: None)
            for phase in range(max(MOVE, SEARCH, PLACING, OVER) + 1)
        ]
        # The pile's composition is read as a bitmask of tile ids; each of its
        # three bytes (8 tiles) maps to the bytes of 8 float32 entries.
        assert NUM_TILES == 3 * 8
        self._eight_flags_bytes = [array("f", [float(bits >> i & 1) for i in range(8)]).tobytes() for bits in range(256)]
        self._pile_size_bytes = [
            group_bytes("pile_size", "pile_size", lambda v, k=k: L.view(v, "pile_size").__setitem__(0, k / NUM_TILES))
            for k in range(NUM_TILES + 1)
        ]

        def scalar_table(piece: str, values) -> list[bytes]:
            return [group_bytes(piece, piece, lambda v, x=x: L.view(v, piece).__setitem__(0, x)) for x in values]

        # Indexed by the count (the turn clamped where its value saturates at 1).
        self._steps_taken_bytes = scalar_table("steps_taken", [k / 2 for k in range(3)])
        self._turn_bytes = scalar_table("turn", [min(k / game.max_turns, 1.0) for k in range(game.max_turns + 1)])

        def score(v, escapes, fails):
            L.view(v, "escapes")[0] = escapes / ESCAPES_TO_WIN
            L.view(v, "fails")[0] = fails / FAILS_TO_LOSE

        #: ``_score_bytes[escapes][fails]`` (a match ends at ESCAPES_TO_WIN escapes or FAILS_TO_LOSE fails)
        self._score_bytes = [
            [group_bytes("escapes", "fails", lambda v, e=e, f=f: score(v, e, f)) for f in range(FAILS_TO_LOSE + 1)]
            for e in range(ESCAPES_TO_WIN + 1)
        ]
        self._board_cache = (None, b"")  # (board, bytes of explored..tile_number): boards change rarely
        board_size = L.pieces["tile_number"].stop
        self._board_zeros = array("f", bytes(4 * board_size))
        #: ``_tile_ones[cell][tile]``: indices (from the start of the vector) set to 1 by ``tile`` on ``cell``
        self._tile_ones = [
            [
                (L.pieces["explored"].start + cell,)
                if tile == START_TILE
                else (
                    L.pieces["explored"].start + cell,
                    L.pieces["tile_colour"].start + cell * NC + tile_colour(tile),
                    L.pieces["tile_number"].start + cell * NN + tile_number(tile) - 1,
                )
                for tile in range(NUM_TILES + 1)
            ]
            for cell in range(NUM_CELLS)
        ]

    # -------------------------------------------------- table construction
    def _fill_sight(self, vector: np.ndarray, mask: int) -> None:
        """``monster_sight``: 1 on the cells in the bitmask ``mask``."""
        sight = self.layout.view(vector, "monster_sight").reshape(-1)
        for cell in range(NUM_CELLS):
            if mask >> cell & 1:
                sight[cell] = 1.0

    def _fill_path(self, vector: np.ndarray, path: tuple[int, ...], progress: int) -> None:
        """``path_ahead``, ``path_eta``, ``path_next`` and ``path_end`` at ``progress``."""
        L = self.layout
        last = len(path) - 1
        ahead = L.view(vector, "path_ahead").reshape(-1)
        eta = L.view(vector, "path_eta").reshape(-1)
        for k in range(last, progress, -1):  # backwards, so the first visit wins
            ahead[path[k]] = 1.0
            eta[path[k]] = (k - progress) / MAX_PATH_LENGTH
        L.view(vector, "path_next").reshape(-1)[path[min(progress + 1, last)]] = 1.0
        L.view(vector, "path_end").reshape(-1)[path[last]] = 1.0

    def _fill_progress(self, vector: np.ndarray, path: tuple[int, ...], progress: int) -> None:
        """``path_progress`` and ``path_remaining`` at ``progress``."""
        last = len(path) - 1
        self.layout.view(vector, "path_progress")[0] = progress / last
        self.layout.view(vector, "path_remaining")[0] = (last - progress) / MAX_PATH_LENGTH

    def _fill_monster(self, vector: np.ndarray, index: int, monster) -> None:
        """``monster_id``, ``monster_steps``, ``sight_shape`` and ``sight_range`` of booklet monster ``index``."""
        L = self.layout
        L.view(vector, "monster_id")[index] = 1.0
        L.view(vector, "monster_steps")[0] = monster.steps / MAX_STEPS
        L.view(vector, "sight_shape")[SIGHT_SHAPES.index(monster.sight_shape)] = 1.0
        L.view(vector, "sight_range")[0] = monster.sight_range / MAX_SIGHT_RANGE

    @staticmethod
    def _fill_tile(colour_then_number: np.ndarray, tile: int) -> None:
        """Colour one-hot then number one-hot of ``tile`` (a memory slot or the drawn tile)."""
        colour_then_number[tile_colour(tile)] = 1.0
        colour_then_number[NC + tile_number(tile) - 1] = 1.0

    def _board_bytes(self, board: list[int]) -> bytes:
        """Bytes of ``explored``, ``tile_colour`` and ``tile_number`` (cached for the last board seen)."""
        cached_board, cached = self._board_cache
        if board == cached_board:
            return cached
        vector = self._board_zeros[:]
        for cell, tile in enumerate(board):
            if tile >= 0:
                for index in self._tile_ones[cell][tile]:
                    vector[index] = 1.0
        result = vector.tobytes()
        self._board_cache = (board[:], result)
        return result

    # -------------------------------------------------------------- encode
    def encode(self, state, seat: int = 0) -> np.ndarray:
        """The child's observation vector of ``state``."""
        game = self.game
        m = state.monster
        cell = state.monster_cell
        progress = state.progress
        memory = state.memory
        parts = [
            self._board_bytes(state.board),
            self._child_bytes[state.child],
            self._monster_cell_bytes[cell],
            self._sight_bytes[m][cell],
            self._path_bytes[m][progress],
            self._monster_bytes[m],
            self._progress_bytes[m][progress],
            self._flag_bytes[1 if state.chasing else 0][game.sight_masks[m][cell] >> state.child & 1],
        ]
        slots = self._memory_slot_bytes
        parts.extend([slots[tile] for tile in memory])
        parts.extend([self._empty_slot] * (MEMORY_CAPACITY - len(memory)))
        parts.append(self._memory_count_bytes[len(memory)])
        # The pile's composition (a set: its order never reaches the vector).
        pile = state.pile
        in_pile = sum([TILE_BITS[tile] for tile in pile])
        eight = self._eight_flags_bytes
        parts += (eight[in_pile & 255], eight[in_pile >> 8 & 255], eight[in_pile >> 16], self._pile_size_bytes[len(pile)])
        parts += (
            self._drawn_bytes[state.drawn][1 if state.drawn_from_memory else 0],
            self._phase_bytes[state.phase],
            self._steps_taken_bytes[state.steps_taken],
            self._turn_bytes[min(state.turn, game.max_turns)],
            self._score_bytes[state.escapes][state.fails],
        )
        return np.frombuffer(b"".join(parts), FLOAT32)
