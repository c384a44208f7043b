"""A rule-based child for Hidden Rooms.

Strategy (all from the child's own observation; the monster is deterministic
and its booklet page is public, so the child may foresee its moves):

1. **Plan toward the exit.** For every cell the child computes ``need`` = the
   fewest unexplored cells (tiles still to place) on any route from that cell
   to (0, 0). A cell is on a *best route* when its need is minimal.
2. **Move** (choose the cell to end the move phase on, then step toward it):
   step onto (0, 0) whenever it can be reached. Otherwise score every cell
   reachable with the steps left: a cell where the next monster phase would
   catch the child is ruled out; so is, nearly, a cell from which no move
   survives the monster phase after that (two-phase lookahead); ending in the
   monster's sight (it would chase) or close to it costs points. Among safe
   cells it prefers a low ``need``, standing next to an unexplored cell of a
   best route, and a tile that many remaining tiles connect to (a low number).
3. **Search**: take a memory tile that connects and can be placed on a best
   route or nearer the exit, choosing the one that most remaining tiles could
   follow (keeping numbers low); otherwise search the pile; with an empty
   pile, any placeable memory tile; otherwise don't search.
4. **Place** the tile on the adjacent cell that lies on a best route or nearer
   the exit (ties: lower need, nearer the exit, farther from the monster).
   A tile that few remaining tiles could follow (under ``MIN_FOLLOW``, i.e. a
   high number of a scarce colour) is kept in memory rather than placed
   mid-route, except on the exit itself. A tile that would only go backward is
   declined into memory while memory has room (a sixth tile would spill it);
   with memory full it is placed anyway, since more floor means more room to
   dodge.

:class:`HiddenRoomsMoveFeatures` (below) hands these measurements, per
action, to a network (``network.move_features``), which learns their weights.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from kakurega.agents.base import Agent, AgentContext
from kakurega.envs.hidden_rooms.rules import (
    CAUGHT,
    COLOURS,
    DECLINE,
    EMPTY,
    EXIT_CELL,
    MEMORY_CAPACITY,
    MONSTER_EXITED,
    NEIGHBOURS,
    NO_SEARCH,
    NUM_ACTIONS,
    NUM_CELLS,
    NUMBERS,
    PLACE,
    SEARCH_MEMORY,
    SEARCH_PILE,
    START_TILE,
    STEP,
    STOP_MOVING,
    HiddenRoomsGame,
    connects,
    coords,
    tile_number,
)

NC, NN = len(COLOURS), len(NUMBERS)
_UNREACHABLE = 99
#: monster phases an agent remembers at most (then it forgets them all): a few thousand occur in hundreds of rounds
MAX_MONSTER_PHASES = 1 << 16


def _tile_ids(colours: np.ndarray, numbers: np.ndarray) -> np.ndarray:
    """Tile ids of rows of (colour one-hot, number one-hot); -1 where a row has no colour."""
    ids = colours.argmax(axis=1) * NN + numbers.argmax(axis=1)
    return np.where(colours.any(axis=1), ids, -1)


def _distance(a: int, b: int) -> int:
    (ra, ca), (rb, cb) = coords(a), coords(b)
    return abs(ra - rb) + abs(ca - cb)


_DISTANCES = [[_distance(a, b) for b in range(NUM_CELLS)] for a in range(NUM_CELLS)]


#: bitmask over tile ids of the tiles that connect to each tile (the start tile's included): ``connects(t, u)``
_CONNECTING = [sum(1 << t for t in range(NC * NN) if connects(t, u)) for u in range(NC * NN + 1)]


def _bits(tiles) -> int:
    """Bitmask of tile ids."""
    bits = 0
    for t in tiles:
        bits |= 1 << t
    return bits


def _manhattan(a: int, b: int) -> int:
    """Grid distance between two cells (a table lookup)."""
    return _DISTANCES[a][b]


class HiddenRoomsHeuristic(Agent):
    """Exit-seeking, monster-dodging child (see the module docstring for the strategy)."""

    #: a tile that fewer than this share of the remaining tiles can follow is not placed mid-route
    MIN_FOLLOW = 0.22

    def __init__(self, context: AgentContext, seed: int | None = None):
        super().__init__(context, seed)
        game = context.new_rules()
        if game is None:
            from kakurega.envs.hidden_rooms.booklet import load_booklet

            game = HiddenRoomsGame(load_booklet(context.env_kwargs.get("booklet")))
        self.game: HiddenRoomsGame = game
        layout = context.layout
        pieces = layout.pieces
        board_pieces = [pieces[name] for name in ("explored", "tile_colour", "tile_number")]
        self._board_span = slice(min(p.start for p in board_pieces), max(p.stop for p in board_pieces))
        #: the slice of each one-hot piece whose index _decode reads
        self._one_hot = {name: slice(pieces[name].start, pieces[name].stop) for name in ("child", "monster", "monster_id")}
        self._phase = slice(pieces["phase"].start, pieces["phase"].stop)
        #: the pieces from ``path_progress`` to ``steps_taken`` are read as one list; offsets of each in it
        self._tail = slice(pieces["path_progress"].start, pieces["steps_taken"].stop)
        self._at = {name: pieces[name].start - pieces["path_progress"].start
                    for name in ("path_progress", "chasing", "memory", "pile_tiles", "drawn", "steps_taken")}
        #: (board part of the observation, board) and (board, its need): the board changes only when a tile is placed
        self._last_board: tuple = (None, None)
        self._last_need: tuple = (None, None)
        #: (the table around the child, its cells' measurements by cell) of the last move decision
        self._last_parts: tuple = (None, None)
        #: ``(monster, cell, progress, child)`` -> the monster phase's ``(cell, progress, outcome)``: a pure
        #: function of public values (``game.monster_phase``), asked about ten times per move decision
        self._monster_phases: dict = {}

    # ------------------------------------------------------------- decoding
    def _decode(self, observation: dict) -> dict:
        """The table as plain Python values, read from the observation pieces (the board: read-only).

        The board is decoded only when its part of the observation changed; the
        values after it are read from one list (a numpy call per value costs more).
        """
        obs, one_hot, at = observation["observation"], self._one_hot, self._at
        board_span = obs[self._board_span].tobytes()  # explored, tile colours and numbers
        if self._last_board[0] == board_span:
            board = self._last_board[1]
        else:
            layout = self.context.layout
            board = _tile_ids(layout.view(obs, "tile_colour").reshape(NUM_CELLS, NC),
                              layout.view(obs, "tile_number").reshape(NUM_CELLS, NN))
            explored = layout.view(obs, "explored").ravel() > 0
            board = np.where(explored, np.where(board < 0, START_TILE, board), EMPTY).tolist()
            self._last_board = (board_span, board)
        monster = int(obs[one_hot["monster_id"]].argmax())
        last = len(self.game.paths[monster]) - 1
        tail = obs[self._tail].tolist()
        memory = []
        for slot in range(at["memory"], at["memory"] + MEMORY_CAPACITY * (NC + NN), NC + NN):
            row = tail[slot : slot + NC + NN]
            if 1.0 in row:  # a filled slot: one colour, one number (slots fill in order; an empty one is all 0)
                memory.append(row.index(1.0) * NN + row.index(1.0, NC) - NC)
        pile_at = at["pile_tiles"]
        pile = [t for t in range(NC * NN) if tail[pile_at + t]]
        drawn_row = tail[at["drawn"] : at["drawn"] + NC + NN]
        drawn = drawn_row.index(1.0) * NN + drawn_row.index(1.0, NC) - NC if 1.0 in drawn_row[:NC] else -1
        return {
            "board": board,
            "board_bytes": board_span,
            "memory_bits": _bits(memory),
            "pile_bits": _bits(pile),
            "child": int(obs[one_hot["child"]].argmax()),
            "monster": monster,
            "monster_cell": int(obs[one_hot["monster"]].argmax()),
            "progress": int(round(tail[at["path_progress"]] * last)),
            "chasing": bool(tail[at["chasing"]]),
            "memory": memory,
            "pile": pile,
            "drawn": drawn,
            "steps_left": 2 - int(round(tail[at["steps_taken"]] * 2)),
        }

    # ------------------------------------------------------------- planning
    def _need(self, board: list[int]) -> list[int]:
        """Fewest unexplored cells on a route from each cell to the exit (0-1 BFS from the exit); read-only."""
        key = tuple(board)
        if self._last_need[0] == key:
            return self._last_need[1]
        need = self._route_need(board)
        self._last_need = (key, need)
        return need

    @staticmethod
    def _route_need(board: list[int]) -> list[int]:
        need = [_UNREACHABLE] * NUM_CELLS
        need[EXIT_CELL] = int(board[EXIT_CELL] == EMPTY)
        queue = deque([EXIT_CELL])
        while queue:
            cell = queue.popleft()
            base = need[cell]
            for nb in NEIGHBOURS[cell]:
                if nb >= 0:
                    dark = board[nb] == EMPTY
                    if base + dark < need[nb]:
                        need[nb] = base + dark
                        # 0-1 BFS: free moves go to the front, costly ones to the back
                        if dark:
                            queue.append(nb)
                        else:
                            queue.appendleft(nb)
        return need

    def _connect_chance(self, view: dict, under: int) -> float:
        """Chance that the next search finds a tile connecting to ``under`` (1 if memory holds one)."""
        chances = view.setdefault("connect_chances", {})  # the same tiles: the same chance
        chance = chances.get(under)
        if chance is None:
            chance = chances[under] = self._connect_chance_now(view, under)
        return chance

    @staticmethod
    def _connect_chance_now(view: dict, under: int) -> float:
        connecting = _CONNECTING[under]
        if view["memory_bits"] & connecting:
            return 1.0
        pile = view["pile_bits"]
        if not pile:
            return 0.0
        return (pile & connecting).bit_count() / pile.bit_count()

    def _reachable(self, board, start: int, monster_cell: int, steps: int) -> dict[int, int]:
        """Cells reachable over explored cells in <= ``steps`` steps: cell -> first step (-1 = stay)."""
        first = {start: -1}
        frontier = [start]
        for _ in range(steps):
            nxt = []
            for cell in frontier:
                for d, nb in enumerate(NEIGHBOURS[cell]):
                    if nb >= 0 and board[nb] != EMPTY and nb != monster_cell and nb not in first:
                        first[nb] = d if cell == start else first[cell]
                        if nb != EXIT_CELL:  # stepping on the exit ends the round
                            nxt.append(nb)
            frontier = nxt
        return first

    def _monster_phase(self, monster: int, cell: int, progress: int, child: int) -> tuple[int, int, int]:
        """``game.monster_phase``'s ``(cell, progress, outcome)``, remembered (at most MAX_MONSTER_PHASES).

        Its ``chasing`` argument is not an input: every step of the phase sets it.
        """
        key = (monster, cell, progress, child)
        phase = self._monster_phases.get(key)
        if phase is None:
            if len(self._monster_phases) >= MAX_MONSTER_PHASES:
                self._monster_phases.clear()
            m_cell, m_progress, _, outcome, _ = self.game.monster_phase(monster, cell, progress, child)
            phase = self._monster_phases[key] = (m_cell, m_progress, outcome)
        return phase

    def _survives_next(self, view, cell: int) -> tuple[bool, int, int, bool]:
        """Monster phase with the child on ``cell``: (not caught, monster cell, progress, monster exits)."""
        m_cell, progress, outcome = self._monster_phase(view["monster"], view["monster_cell"], view["progress"], cell)
        return outcome != CAUGHT, m_cell, progress, outcome == MONSTER_EXITED

    def _cell_parts(self, view, cell: int, need: list[int]) -> dict:
        """What ending the move phase on ``cell`` leads to: the measurements :meth:`_cell_score` weighs (read-only).

        Remembered while the table around the child stays the same (the move
        phase's second step asks again about cells the first one measured).
        """
        key = (view["board_bytes"], view["monster"], view["monster_cell"], view["progress"], view["memory_bits"],
               view["pile_bits"])
        if self._last_parts[0] != key:
            self._last_parts = (key, {})
        remembered = self._last_parts[1]
        parts = remembered.get(cell)
        if parts is None:
            parts = remembered[cell] = self._measure_cell(view, cell, need)
        return parts

    def _measure_cell(self, view, cell: int, need: list[int]) -> dict:
        game, board, monster = self.game, view["board"], view["monster"]
        alive, m_cell, progress, exits = self._survives_next(view, cell)
        parts = {"alive": alive, "exits": exits, "escape_routes": 0, "seen": False, "near": 0, "need": need[cell],
                 "opens_best": 0.0, "opens_forward": 0.0, "to_exit": _manhattan(cell, EXIT_CELL)}
        if not alive:
            return parts
        # Two-phase lookahead: some move after the next monster phase must survive the one after.
        for nxt in self._reachable(board, cell, m_cell, 2):
            if nxt == EXIT_CELL:
                parts["escape_routes"] += 3
                continue
            outcome = self._monster_phase(monster, m_cell, progress, nxt)[2]
            if outcome != CAUGHT:
                parts["escape_routes"] += 1
        parts["seen"] = game.sees(monster, m_cell, cell)
        parts["near"] = max(0, 4 - _manhattan(m_cell, cell))
        dark = [nb for nb in NEIGHBOURS[cell] if nb >= 0 and board[nb] == EMPTY]
        if any(need[nb] == need[cell] for nb in dark):  # a placement here shortens the way out
            parts["opens_best"] = self._connect_chance(view, board[cell])
        elif any(self._forward(nb, cell) for nb in dark):  # or at least opens a cell nearer the exit
            parts["opens_forward"] = self._connect_chance(view, board[cell])
        return parts

    def _cell_score(self, view, cell: int, need: list[int]) -> float:
        """How good it is to end the move phase on ``cell``."""
        return self._score_parts(self._cell_parts(view, cell, need))

    @staticmethod
    def _score_parts(parts: dict) -> float:
        """The heuristic's weighing of :meth:`_cell_parts`."""
        if not parts["alive"]:
            return -1e6
        score = -1e5 if parts["exits"] else 0.0  # lost whatever happens; still prefer cells that are otherwise good
        if parts["escape_routes"] == 0:
            score -= 1e4
        elif parts["escape_routes"] == 1:
            score -= 30
        score -= 20 * parts["seen"] + 5 * parts["near"]
        score -= 100 * parts["need"]  # progress toward the exit
        score += 40 * parts["opens_best"] + 15 * parts["opens_forward"]
        score -= 2 * parts["to_exit"]
        return score

    # -------------------------------------------------------------- choices
    def act(self, observation: dict, sampler=None) -> int:
        """The child's action for this decision point."""
        if not np.any(observation["action_mask"]):
            raise ValueError("HiddenRoomsHeuristic.act: the action mask has no legal action")
        phase = int(self.piece(observation, "phase").argmax())
        view = self._decode(observation)
        if phase == 0:
            return self._move(view)
        if phase == 1:
            return self._search(view)
        return self._place(view)

    def _move(self, view) -> int:
        board, child = view["board"], view["child"]
        reach = self._reachable(board, child, view["monster_cell"], view["steps_left"])
        if EXIT_CELL in reach:
            return STEP + reach[EXIT_CELL]
        need = self._need(board)
        best_cell, best_score = child, None
        for cell in sorted(reach):
            score = self._cell_score(view, cell, need)
            if best_score is None or score > best_score or (score == best_score and cell == child):
                best_cell, best_score = cell, score
        return STOP_MOVING if best_cell == child else STEP + reach[best_cell]

    @staticmethod
    def _forward(cell: int, origin: int) -> bool:
        """True when ``cell`` is nearer the exit than ``origin``."""
        return _manhattan(cell, EXIT_CELL) < _manhattan(origin, EXIT_CELL)

    def _route_cells(self, view, need) -> list[int]:
        """Unexplored neighbours of the child on a best route to the exit, or nearer the exit."""
        board, child = view["board"], view["child"]
        return [
            nb
            for nb in NEIGHBOURS[child]
            if nb >= 0 and board[nb] == EMPTY and (need[nb] == need[child] or self._forward(nb, child))
        ]

    def _follow_chance(self, view, tile: int) -> float:
        """Share of the other unplaced tiles that could later connect onto ``tile`` (low numbers score high)."""
        others = (view["pile_bits"] | view["memory_bits"]) & ~(1 << tile)
        return (others & _CONNECTING[tile]).bit_count() / others.bit_count() if others else 0.0

    def _search(self, view) -> int:
        board, child, memory = view["board"], view["child"], view["memory"]
        under = board[child]
        need = self._need(board)
        fitting = [k for k, t in enumerate(memory) if connects(t, under)]
        route = self._route_cells(view, need)
        if fitting and route:
            # keep numbers low: the tile most others can follow (unless it is the last tile needed)
            best = max(fitting, key=lambda k: (self._follow_chance(view, memory[k]), -memory[k]))
            if EXIT_CELL in route or self._follow_chance(view, memory[best]) >= self.MIN_FOLLOW or not view["pile"]:
                return SEARCH_MEMORY + best
        if view["pile"]:
            return SEARCH_PILE
        has_room = any(nb >= 0 and board[nb] == EMPTY for nb in NEIGHBOURS[child])
        if fitting and has_room:
            return SEARCH_MEMORY + max(fitting, key=lambda k: (self._follow_chance(view, memory[k]), -memory[k]))
        return NO_SEARCH

    def _place(self, view) -> int:
        board, child, tile = view["board"], view["child"], view["drawn"]
        need = self._need(board)
        options = [(d, nb) for d, nb in enumerate(NEIGHBOURS[child]) if nb >= 0 and board[nb] == EMPTY]
        on_route = [(d, nb) for d, nb in options if need[nb] == need[child] or self._forward(nb, child)]
        memory_full = len(view["memory"]) >= MEMORY_CAPACITY
        if on_route:
            d, nb = min(on_route, key=lambda o: (need[o[1]], _manhattan(o[1], EXIT_CELL), -_manhattan(o[1], view["monster_cell"])))
            # A high tile mid-route is a bottleneck (few tiles can follow it): keep it in memory instead.
            if nb == EXIT_CELL or memory_full or self._follow_chance(view, tile) >= self.MIN_FOLLOW:
                return PLACE + d
        if not memory_full or not options:
            return DECLINE
        d, _ = min(options, key=lambda o: (_manhattan(o[1], EXIT_CELL), -_manhattan(o[1], view["monster_cell"])))
        return PLACE + d


class HiddenRoomsMoveFeatures:
    """The heuristic's measurements of every action, as numbers a network can weigh (``move_features``).

    A network on the raw observation copies the heuristic's moves on its own
    rounds but not on the states it reaches itself, and is caught (it would
    have to learn the monster's deterministic phase and the routes through
    the darkness from the grid). These features hand it what the heuristic
    computes for each action, read from the child's own observation (so they
    hold nothing the observation does not) and left to the network to weigh:
    ``features(observation)`` is ``NUM_ACTIONS`` rows of ``PER_ACTION``
    numbers in [0, 1], flattened; the rows of actions that are not legal in
    the phase are zeros. Column 0 is 1 for every legal action.

    * move phase, ``STEP + d`` and ``STOP_MOVING``: of the cells the move can
      end on through that first step (the child's own cell for a stop), the
      one the heuristic scores best: it survives the next monster phase; the
      monster then walks off its path's end (the round is lost); escape
      routes after it (two-phase look-ahead, 3 per way to the exit, capped at
      10, /10); ending in the monster's sight; closeness to the monster
      (``4 - distance``, /4); ``need`` there (fewest unexplored cells to the
      exit, capped at 10, /10); the chance to place a tile on a best route
      from there, or only nearer the exit; its distance to the exit /8. A
      move onto the exit is (1, 1, 0, 1, 0, 0, 0, 0, 0, 0).
    * search phase: for the pile, the share of its tiles that connect to the
      tile under the child; for each memory slot, whether its tile connects,
      the share of the other unplaced tiles that could follow it and its
      number /6; for every search action, whether a best-route (or forward)
      cell is open next to the child and whether the exit is one of them.
    * place phase: for each direction, whether the cell is on a best route or
      nearer the exit, its ``need``, its distance to the exit and to the
      monster (/8), the drawn tile's follow share, whether memory is full and
      whether the cell is the exit; declining keeps the follow share and the
      memory flag.
    """

    PER_ACTION = 10

    def __init__(self, context: AgentContext):
        self._heuristic = HiddenRoomsHeuristic(context)
        self.size = NUM_ACTIONS * self.PER_ACTION

    def __call__(self, observation: dict) -> np.ndarray:
        mask = observation["action_mask"]
        flat = [0.0] * self.size
        rows = self._rows(observation) if np.asarray(mask).any() else {}
        for action, row in rows.items():
            if mask[action]:  # legal actions only
                flat[action * self.PER_ACTION : (action + 1) * self.PER_ACTION] = row
        return np.array(flat, dtype=np.float32)

    def _rows(self, observation: dict) -> dict[int, list]:
        """The rows of the actions of this decision's phase, by action (some may be illegal)."""
        h = self._heuristic
        phase = int(observation["observation"][h._phase].argmax())
        view = h._decode(observation)
        board, child = view["board"], view["child"]
        need = h._need(board)
        rows: dict[int, list] = {}
        if phase == 0:
            best: dict[int, tuple[float, list]] = {}
            for cell, first in h._reachable(board, child, view["monster_cell"], view["steps_left"]).items():
                action = STOP_MOVING if first == -1 else STEP + first
                if cell == EXIT_CELL:
                    best[action] = (float("inf"), [1, 1, 0, 1, 0, 0, 0, 0, 0, 0])
                    continue
                p = h._cell_parts(view, cell, need)
                score = h._score_parts(p)
                if action not in best or score > best[action][0]:
                    best[action] = (score, [1, p["alive"], p["exits"], min(p["escape_routes"], 10) / 10, p["seen"],
                                            p["near"] / 4, min(p["need"], 10) / 10, p["opens_best"],
                                            p["opens_forward"], p["to_exit"] / 8])
            for action, (_, row) in best.items():
                rows[action] = row
        elif phase == 1:
            under = board[child]
            route = h._route_cells(view, need)
            open_, exit_ = float(bool(route)), float(EXIT_CELL in route)
            if view["pile"]:
                pile_chance = h._connect_chance_now({"memory_bits": 0, "pile_bits": view["pile_bits"]}, under)
                rows[SEARCH_PILE] = [1, pile_chance, open_, exit_, 0, 0, 1, 0, 0, 0]
            for k, tile in enumerate(view["memory"]):
                rows[SEARCH_MEMORY + k] = [1, connects(tile, under), open_, exit_, h._follow_chance(view, tile),
                                           tile_number(tile) / NN, 0, 0, 0, 0]
            rows[NO_SEARCH] = [1, 0, open_, exit_, 0, 0, 0, 0, 0, 0]
        else:
            follow = h._follow_chance(view, view["drawn"])
            full = float(len(view["memory"]) >= MEMORY_CAPACITY)
            for d, nb in enumerate(NEIGHBOURS[child]):
                if nb >= 0 and board[nb] == EMPTY:
                    on_route = need[nb] == need[child] or h._forward(nb, child)
                    rows[PLACE + d] = [1, on_route, min(need[nb], 10) / 10, _manhattan(nb, EXIT_CELL) / 8,
                                       _manhattan(nb, view["monster_cell"]) / 8, follow, full, nb == EXIT_CELL, 0, 0]
            rows[DECLINE] = [1, 0, 0, 0, 0, follow, full, 0, 0, 0]
        return rows
