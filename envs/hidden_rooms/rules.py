"""Hidden Rooms (かくされた部屋) rules engine: a child escapes a dark 5x5 room from a monster.

Cells are numbered ``row * 5 + column`` (row 0 at the top): the child starts on
cell 24 = (4, 4) and escapes on cell 0 = (0, 0). Tiles are ids ``0..23`` =
``colour * 6 + (number - 1)`` and the start tile is id 24 (no colour, number 0).

A turn is three phases: the monster moves (automatic, inside
:meth:`HiddenRoomsGame.apply_action`), the child moves (up to 2 steps over
explored cells), the child searches (pile top or one memory tile) and may place
the tile. The child is asked only where it has a real choice: a phase whose
only legal action is "do nothing" is skipped.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from kakurega.envs.core.game import TERMINAL, Game
from kakurega.envs.core.options import Option
from kakurega.envs.hidden_rooms.booklet import GRID, Monster, load_booklet

# ----------------------------------------------------------------- the room
NUM_CELLS = GRID * GRID
START_CELL = NUM_CELLS - 1  #: (4, 4)
EXIT_CELL = 0  #: (0, 0)
EMPTY = -1  #: an unexplored cell on the board

COLOURS = ("red", "blue", "green", "yellow")
NUMBERS = (1, 2, 3, 4, 5, 6)
NUM_TILES = len(COLOURS) * len(NUMBERS)  #: 24 room tiles
START_TILE = NUM_TILES  #: id 24: the start tile
MEMORY_CAPACITY = 5
MAX_TURNS = 10_000  #: bound of the max_turns option (the observer keeps a table of max_turns + 1 entries)

DIRECTIONS = ("north", "east", "south", "west")
_DELTAS = ((-1, 0), (0, 1), (1, 0), (0, -1))

# --------------------------------------------------------------- action ids
STEP = 0  #: 0..3: step north / east / south / west
STOP_MOVING = 4
SEARCH_PILE = 5
SEARCH_MEMORY = 6  #: 6..10: take memory slot 0..4 (memory is kept sorted by tile id)
NO_SEARCH = 11
PLACE = 12  #: 12..15: place the drawn tile north / east / south / west of the child
DECLINE = 16
NUM_ACTIONS = 17

# ------------------------------------------------------------------- phases
MOVE, SEARCH, PLACING = 0, 1, 2  #: the child's decision phases
MONSTER, TURN_END, ROUND_START, OVER = 3, 4, 5, 6  #: internal, never a decision point
PHASE_NAMES = ("child moves", "child searches", "child places", "monster moves", "turn end", "round start", "over")

# ----------------------------------------------------------- round outcomes
ESCAPED, CAUGHT, MONSTER_EXITED, TURN_LIMIT = 1, 2, 3, 4
OUTCOME_NAMES = {ESCAPED: "escaped", CAUGHT: "caught", MONSTER_EXITED: "monster walked its whole path", TURN_LIMIT: "turn limit"}

EPISODES = ("match", "round")
REWARDS = ("match", "per_round")

# The options (envs/core/options.py): the env declares them, HiddenRoomsGame checks its arguments with them.
EPISODE_OPTION = Option("episode", str, "match", "an episode is one match (rounds until 2 escapes or 3 fails) or "
                        "one round", choices=EPISODES)
REWARD_OPTION = Option("reward", str, "match", "+1 / −1 when the match is won / lost, or at each escape / fail "
                       "(see Rewards)", choices=REWARDS)
MAX_TURNS_OPTION = Option("max_turns", int, 60, "turns per round; when turn ``max_turns`` ends without an escape "
                          "the round is a fail", low=1, high=MAX_TURNS)
ESCAPES_TO_WIN, FAILS_TO_LOSE = 2, 3
#: the first turn a round can be escaped in: a tile a turn on the 8 cells from (4, 4) to (0, 0), the last one
#: placed in turn 8, and the step onto (0, 0) in turn 9's move (after that turn's monster phase)
EARLIEST_ESCAPE_TURN = 2 * (GRID - 1) + 1
#: the most decisions of one turn: two steps (or a step and "stop"), a search, a placement
DECISIONS_PER_TURN = 4


def cell_of(row: int, column: int) -> int:
    """Cell id of ``(row, column)``: ``cell_of(4, 4) == 24``."""
    return row * GRID + column


def coords(cell: int) -> tuple[int, int]:
    """``(row, column)`` of a cell id: ``coords(7) == (1, 2)``."""
    return divmod(cell, GRID)


def tile_colour(tile: int) -> int:
    """Colour index of a tile (-1 for the start tile)."""
    return -1 if tile == START_TILE else tile // len(NUMBERS)


def tile_number(tile: int) -> int:
    """Number of a tile (0 for the start tile)."""
    return 0 if tile == START_TILE else tile % len(NUMBERS) + 1


def tile_id(colour: str | int, number: int) -> int:
    """Tile id of e.g. ``("red", 3)`` -> 2 or ``("blue", 1)`` -> 6."""
    c = COLOURS.index(colour) if isinstance(colour, str) else int(colour)
    return c * len(NUMBERS) + number - 1


def tile_name(tile: int) -> str:
    """E.g. ``"red 3"`` or ``"start tile"``."""
    return "start tile" if tile == START_TILE else f"{COLOURS[tile_colour(tile)]} {tile_number(tile)}"


def connects(tile: int, under: int) -> bool:
    """The connect rule: same colour as the tile the child stands on, or a greater number."""
    return _CONNECTS[tile][under]


_CONNECTS = [
    [
        (t < NUM_TILES and u < NUM_TILES and tile_colour(t) == tile_colour(u)) or tile_number(t) > tile_number(u)
        for u in range(NUM_TILES + 1)
    ]
    for t in range(NUM_TILES + 1)
]

#: NEIGHBOURS[cell][d]: the cell in direction d, or -1 off the grid
NEIGHBOURS = tuple(
    tuple(
        cell_of(r + dr, c + dc) if 0 <= r + dr < GRID and 0 <= c + dc < GRID else -1 for dr, dc in _DELTAS
    )
    for r, c in (coords(cell) for cell in range(NUM_CELLS))
)


def _step_toward(source: int, target: int) -> int:
    """One monster step from ``source`` toward ``target`` along a shortest orthogonal route.

    Tie-break (fixed, documented): move along the axis with the larger
    distance; when both distances are equal, move vertically (change row).
    """
    (r, c), (tr, tc) = coords(source), coords(target)
    dr, dc = tr - r, tc - c
    if dr == 0 and dc == 0:
        return source
    if abs(dr) >= abs(dc):
        return cell_of(r + (1 if dr > 0 else -1), c)
    return cell_of(r, c + (1 if dc > 0 else -1))


#: STEP_TOWARD[a][b]: the monster's next cell when walking from a toward b
STEP_TOWARD = tuple(tuple(_step_toward(a, b) for b in range(NUM_CELLS)) for a in range(NUM_CELLS))


@dataclass
class HiddenRoomsState:
    """Everything on the table. Only ``pile``'s order is hidden from the child."""

    board: list[int]  #: tile id per cell, EMPTY when unexplored
    pile: list[int]  #: face-down tiles; the top is ``pile[-1]``
    memory: list[int]  #: face-up memory tiles, sorted by id
    child: int  #: the child's cell
    monster: int  #: booklet index of this round's monster
    monster_cell: int
    progress: int  #: index of the last path cell the monster reached along its path
    chasing: bool  #: the monster's latest step was a chase
    phase: int  #: MOVE, SEARCH, PLACING (decisions) or OVER
    steps_taken: int = 0  #: child steps taken this turn
    drawn: int = -1  #: tile in the child's hand while placing
    drawn_from_memory: bool = False
    turn: int = 0  #: turn number within the round (1-based once started)
    rounds: int = 0  #: rounds started in this episode
    escapes: int = 0
    fails: int = 0
    results: list[int] = field(default_factory=list)  #: outcome of every finished round
    total_return: float = 0.0

    def copy(self) -> HiddenRoomsState:
        """An independent copy (faster than deepcopy)."""
        new = object.__new__(HiddenRoomsState)
        new.__dict__.update(self.__dict__)
        new.board = self.board[:]
        new.pile = self.pile[:]
        new.memory = self.memory[:]
        new.results = self.results[:]
        return new


class HiddenRoomsGame(Game):
    """Hidden Rooms rules for one booklet, episode kind, reward kind and turn limit."""

    name = "hidden_rooms"
    num_players = 1
    num_actions = NUM_ACTIONS

    def __init__(
        self,
        monsters: tuple[Monster, ...] | None = None,
        episode: str = EPISODE_OPTION.default,
        reward: str = REWARD_OPTION.default,
        max_turns: int = MAX_TURNS_OPTION.default,
    ):
        """The rules for these options, each checked by its :class:`Option` (as the env checks them)."""
        self.episode = EPISODE_OPTION.check(episode)
        self.reward = REWARD_OPTION.check(reward)
        self.max_turns = MAX_TURNS_OPTION.check(max_turns)
        self.monsters = tuple(load_booklet() if monsters is None else monsters)
        if not self.monsters or not all(isinstance(m, Monster) for m in self.monsters):
            raise TypeError("monsters must be a non-empty tuple of Monster (use booklet.load_booklet)")
        # Static per-monster tables: path as cell ids and, for every monster
        # cell, a bitmask of the cells it sees.
        self.paths = tuple(tuple(cell_of(r, c) for r, c in m.path) for m in self.monsters)
        self.sight_masks = tuple(
            tuple(
                sum(1 << child for child in range(NUM_CELLS) if m.sees(coords(cell), coords(child)))
                for cell in range(NUM_CELLS)
            )
            for m in self.monsters
        )
        self.options = {"monsters": self.monsters, "episode": episode, "reward": reward, "max_turns": self.max_turns}

    # -------------------------------------------------------------- monster
    def sees(self, monster: int, monster_cell: int, child: int) -> bool:
        """True when ``monster`` (booklet index) on ``monster_cell`` sees a child on ``child``."""
        return bool(self.sight_masks[monster][monster_cell] >> child & 1)

    def first_phase_outcome(self, monster: int) -> int:
        """How ``monster``'s first monster phase of a round ends: 0 when the child then gets its first move, else
        CAUGHT or MONSTER_EXITED (the round is decided before the child acts)."""
        return self.monster_phase(monster, self.paths[monster][0], 0, START_CELL)[3]

    def exit_turn(self, monster: int) -> int:
        """The turn at whose monster phase ``monster`` has walked its whole path if it never chases."""
        return -(-(len(self.paths[monster]) - 1) // self.monsters[monster].steps)

    def unwinnable(self) -> list[str]:
        """Why rounds of these options can never be escaped (turn limit), or only if the monster chases (a path
        walked before :data:`EARLIEST_ESCAPE_TURN`): an empty list when every round can be."""
        notes = []
        if self.max_turns < EARLIEST_ESCAPE_TURN:
            notes.append(f"max_turns = {self.max_turns}: no round can be escaped (the earliest escape is in turn "
                         f"{EARLIEST_ESCAPE_TURN}: a tile a turn on the way to (0, 0), then the step onto it)")
        for index, monster in enumerate(self.monsters):
            turn = self.exit_turn(index)
            if turn <= EARLIEST_ESCAPE_TURN:
                notes.append(
                    f"monster {index} ({monster.name[:40]!r}) walks its whole path of {len(monster.path)} cells at "
                    f"{monster.steps} step(s) a turn by turn {turn}, before the earliest escape (turn "
                    f"{EARLIEST_ESCAPE_TURN}): its rounds can be escaped only while a chase holds it back "
                    f"(a path of at least {EARLIEST_ESCAPE_TURN * monster.steps + 2} cells gives the child a chance)")
        return notes

    def monster_phase(self, monster: int, cell: int, progress: int, child: int, chasing: bool = False):
        """The monster's whole phase: ``(cell, progress, chasing, outcome, trail)``.

        Pure and deterministic (public information only), so agents may use it
        to look ahead. Each step: chase the child if it is in sight, else walk
        toward the next cell of the path (after a chase this walks back and
        resumes the path where it was left). ``outcome`` is CAUGHT, MONSTER_EXITED
        or 0; ``trail`` lists the cells entered.
        """
        path = self.paths[monster]
        last = len(path) - 1
        sight = self.sight_masks[monster]
        trail = []
        for _ in range(self.monsters[monster].steps):
            if sight[cell] >> child & 1:
                cell = STEP_TOWARD[cell][child]
                chasing = True
            else:
                chasing = False
                cell = STEP_TOWARD[cell][path[progress + 1 if progress < last else last]]
            if progress < last and cell == path[progress + 1]:
                progress += 1
            trail.append(cell)
            if cell == child:
                return cell, progress, chasing, CAUGHT, trail
        outcome = MONSTER_EXITED if progress == last and cell == path[last] else 0
        return cell, progress, chasing, outcome, trail

    # ---------------------------------------------------------------- rounds
    def initial_state(self, rng: np.random.Generator) -> HiddenRoomsState:
        """A new episode: the first round's monster and pile are drawn from ``rng``."""
        state = HiddenRoomsState(
            board=[], pile=[], memory=[], child=START_CELL, monster=0, monster_cell=0, progress=0,
            chasing=False, phase=ROUND_START,
        )
        self._run_until_decision(state, rng)
        return state

    def _start_round(self, state: HiddenRoomsState, rng: np.random.Generator) -> None:
        state.monster = int(rng.integers(len(self.monsters)))
        state.monster_cell = self.paths[state.monster][0]
        state.progress = 0
        state.chasing = False
        state.board = [EMPTY] * NUM_CELLS
        state.board[START_CELL] = START_TILE
        state.pile = rng.permutation(NUM_TILES).tolist()
        state.memory = []
        state.child = START_CELL
        state.drawn = -1
        state.drawn_from_memory = False
        state.turn = 0
        state.rounds += 1
        state.phase = MONSTER

    def _end_round(self, state: HiddenRoomsState, outcome: int) -> None:
        state.results.append(outcome)
        escaped = outcome == ESCAPED
        if escaped:
            state.escapes += 1
        else:
            state.fails += 1
        if self.episode == "round":
            over = True
            won = escaped
        else:
            over = state.escapes >= ESCAPES_TO_WIN or state.fails >= FAILS_TO_LOSE
            won = state.escapes >= ESCAPES_TO_WIN
        if self.reward == "per_round":
            state.total_return += 1.0 if escaped else -1.0
        elif over:
            state.total_return += 1.0 if won else -1.0
        state.drawn = -1
        state.phase = OVER if over else ROUND_START

    def _can_step(self, state: HiddenRoomsState) -> bool:
        board, monster_cell = state.board, state.monster_cell
        for nb in NEIGHBOURS[state.child]:
            if nb >= 0 and board[nb] != EMPTY and nb != monster_cell:
                return True
        return False

    def _run_until_decision(self, state: HiddenRoomsState, rng: np.random.Generator) -> None:
        """Play the automatic parts (round start, monster phase, forced skips) up to the next choice."""
        while True:
            phase = state.phase
            if phase == TURN_END:
                if state.turn >= self.max_turns:
                    self._end_round(state, TURN_LIMIT)
                else:
                    state.phase = MONSTER
            elif phase == ROUND_START:
                self._start_round(state, rng)
            elif phase == MONSTER:
                state.turn += 1
                cell, progress, chasing, outcome, _ = self.monster_phase(
                    state.monster, state.monster_cell, state.progress, state.child, state.chasing
                )
                state.monster_cell, state.progress, state.chasing = cell, progress, chasing
                if outcome:
                    self._end_round(state, outcome)
                else:
                    state.steps_taken = 0
                    state.phase = MOVE
            elif phase == MOVE:
                if self._can_step(state):
                    return
                state.phase = SEARCH
            elif phase == SEARCH:
                if state.pile or state.memory:
                    return
                state.phase = TURN_END
            else:  # PLACING, OVER
                return

    def _to_memory(self, state: HiddenRoomsState, tile: int, rng: np.random.Generator) -> None:
        """A tile enters the memory area; a sixth tile spills all of them into the pile, reshuffled."""
        if len(state.memory) >= MEMORY_CAPACITY:
            state.pile.extend(state.memory)
            state.pile.append(tile)
            state.memory = []
            rng.shuffle(state.pile)
        else:
            bisect.insort(state.memory, tile)

    def _placeable(self, state: HiddenRoomsState, tile: int) -> bool:
        if not _CONNECTS[tile][state.board[state.child]]:
            return False
        board = state.board
        for nb in NEIGHBOURS[state.child]:
            if nb >= 0 and board[nb] == EMPTY:
                return True
        return False

    # ------------------------------------------------------------- protocol
    def current_player(self, state: HiddenRoomsState) -> int:
        """0 while the episode runs, TERMINAL when it is over."""
        return TERMINAL if state.phase == OVER else 0

    def legal_actions(self, state: HiddenRoomsState) -> list[int]:
        """Sorted legal action ids of the child in the current phase."""
        phase = state.phase
        if phase == MOVE:
            board, monster_cell = state.board, state.monster_cell
            legal = [
                d for d, nb in enumerate(NEIGHBOURS[state.child]) if nb >= 0 and board[nb] != EMPTY and nb != monster_cell
            ]
            legal.append(STOP_MOVING)
            return legal
        if phase == SEARCH:
            legal = [SEARCH_PILE] if state.pile else []
            legal.extend(range(SEARCH_MEMORY, SEARCH_MEMORY + len(state.memory)))
            legal.append(NO_SEARCH)
            return legal
        if phase == PLACING:
            board = state.board
            legal = [PLACE + d for d, nb in enumerate(NEIGHBOURS[state.child]) if nb >= 0 and board[nb] == EMPTY]
            legal.append(DECLINE)
            return legal
        return []

    def apply_action(self, state: HiddenRoomsState, action: int, rng: np.random.Generator) -> None:
        """Apply the child's ``action``; then the automatic phases run up to the next decision."""
        phase = state.phase
        if phase == MOVE:
            if action == STOP_MOVING:
                state.phase = SEARCH
            else:
                state.child = NEIGHBOURS[state.child][action - STEP]
                state.steps_taken += 1
                if state.child == EXIT_CELL:
                    self._end_round(state, ESCAPED)
                elif state.steps_taken >= 2:
                    state.phase = SEARCH
        elif phase == SEARCH:
            if action == NO_SEARCH:
                state.phase = TURN_END
            elif action == SEARCH_PILE:
                tile = state.pile.pop()
                if self._placeable(state, tile):
                    state.drawn, state.drawn_from_memory, state.phase = tile, False, PLACING
                else:
                    self._to_memory(state, tile, rng)
                    state.phase = TURN_END
            else:
                slot = action - SEARCH_MEMORY
                tile = state.memory[slot]
                if self._placeable(state, tile):
                    del state.memory[slot]
                    state.drawn, state.drawn_from_memory, state.phase = tile, True, PLACING
                else:
                    state.phase = TURN_END  # an unplaceable memory tile simply stays there
        elif phase == PLACING:
            tile = state.drawn
            if action == DECLINE:
                if state.drawn_from_memory:
                    bisect.insort(state.memory, tile)
                else:
                    self._to_memory(state, tile, rng)
            else:
                state.board[NEIGHBOURS[state.child][action - PLACE]] = tile
            state.drawn, state.drawn_from_memory = -1, False
            state.phase = TURN_END
        else:
            raise ValueError("the episode is over; no action can be applied")
        self._run_until_decision(state, rng)

    def is_terminal(self, state: HiddenRoomsState) -> bool:
        """True once the match (or, with episode='round', the round) is decided."""
        return state.phase == OVER

    def winners(self, state: HiddenRoomsState) -> list[int]:
        """``[0]`` when the child has won: the match by two escapes (before three fails), or with
        ``episode="round"`` the round escaped; else ``[]``. What the rewards pay does not matter
        (``reward="per_round"`` pays 0 for a match won 2-2)."""
        if self.episode == "round":
            return [0] if state.phase == OVER and state.escapes > 0 else []
        return [0] if state.escapes >= ESCAPES_TO_WIN else []

    def returns(self, state: HiddenRoomsState) -> np.ndarray:
        """Cumulative reward of the child so far."""
        return np.array([state.total_return])

    def result_words(self, state, viewer: int | None = None) -> list[str]:
        """How the finished game ended, in words (:mod:`kakurega.envs.hidden_rooms.results`)."""
        from kakurega.envs.hidden_rooms import results

        return results.result_words(self, state, viewer)

    def round_words(self, state, viewer: int | None = None) -> list[str]:
        """One line per finished round (:mod:`kakurega.envs.hidden_rooms.results`)."""
        from kakurega.envs.hidden_rooms import results

        return results.round_words(self, state, viewer)

    def return_bounds(self) -> tuple[float, float]:
        """-1 to +1; ``reward="per_round"`` over a match: -3 (three fails) to +2 (two escapes)."""
        if self.reward == "per_round" and self.episode == "match":
            return -float(FAILS_TO_LOSE), float(ESCAPES_TO_WIN)
        return -1.0, 1.0

    def pays_only_at_end(self) -> bool:
        """True but for a match with ``reward="per_round"``, which pays each round as it ends."""
        return self.episode == "round" or self.reward == "match"

    def max_decisions(self) -> int:
        """Four decisions per turn (two steps, a search, a placement), ``max_turns`` turns per round, and a match
        has at most four rounds (two escapes or three fails end it)."""
        rounds = 1 if self.episode == "round" else ESCAPES_TO_WIN + FAILS_TO_LOSE - 1
        return rounds * self.max_turns * DECISIONS_PER_TURN

    def clone(self, state: HiddenRoomsState) -> HiddenRoomsState:
        """An independent copy of ``state``."""
        return state.copy()

    def resample_hidden(self, state: HiddenRoomsState, player: int, rng: np.random.Generator) -> HiddenRoomsState:
        """The same table with the face-down pile in a fresh uniformly random order.

        The pile is sorted before shuffling, so the result depends only on the
        pile's (public) composition and ``rng``. Monsters of later rounds are
        drawn when those rounds start, so no monster order is hidden in the state.
        """
        new = state.copy()
        pile = sorted(new.pile)
        new.pile = [pile[i] for i in rng.permutation(len(pile))]
        return new

    # ---------------------------------------------------------------- words
    def action_to_string(self, state: HiddenRoomsState, action: int) -> str:
        """E.g. ``"step north to (3, 4)"``, ``"search memory slot 1 (blue 2)"``, ``"place east at (2, 3)"``."""
        action = int(action)
        if STEP <= action < STEP + 4:
            nb = NEIGHBOURS[state.child][action - STEP] if state.board else -1
            where = f" to {coords(nb)}" if nb >= 0 else " (off the room)"
            return f"step {DIRECTIONS[action - STEP]}{where}"
        if action == STOP_MOVING:
            return "stop moving"
        if action == SEARCH_PILE:
            return "search the pile"
        if SEARCH_MEMORY <= action < SEARCH_MEMORY + MEMORY_CAPACITY:
            slot = action - SEARCH_MEMORY
            what = f" ({tile_name(state.memory[slot])})" if slot < len(state.memory) else " (empty)"
            return f"search memory slot {slot}{what}"
        if action == NO_SEARCH:
            return "don't search"
        if PLACE <= action < PLACE + 4:
            nb = NEIGHBOURS[state.child][action - PLACE] if state.board else -1
            where = f" at {coords(nb)}" if nb >= 0 else " (off the room)"
            return f"place {DIRECTIONS[action - PLACE]}{where}"
        if action == DECLINE:
            return "decline to place"
        return f"action {action} (no such action; expected 0..{NUM_ACTIONS - 1})"

    def winning_note(self, state: HiddenRoomsState, action: int) -> str:
        """``"escapes at once"`` for a step onto the exit (0, 0) (the whole table is public)."""
        action = int(action)
        if state.phase == MOVE and STEP <= action < STEP + 4 and NEIGHBOURS[state.child][action - STEP] == EXIT_CELL:
            return "escapes at once"
        return ""

    def public_action_string(self, before: HiddenRoomsState, action: int, after: HiddenRoomsState,
                             viewer: int | None) -> str:
        """The move in words, then the monster's phase it set off (:mod:`~kakurega.envs.hidden_rooms.moves`).

        E.g. ``"you step to (3, 4); the monster Wanderer moves (0, 4) -> (1, 4) -> (2, 4)"``.
        """
        from kakurega.envs.hidden_rooms.moves import public_action_string

        return public_action_string(self, before, action, after, viewer)

    def opening_words(self, state: HiddenRoomsState, viewer: int | None = None) -> list[str]:
        """The first round's monster appears and takes its first phase before any decision
        (:func:`~kakurega.envs.hidden_rooms.moves.opening_words`)."""
        from kakurega.envs.hidden_rooms.moves import opening_words

        return opening_words(self, state, viewer)

    def illegal_reason(self, state: HiddenRoomsState, action: int) -> str:
        """Why ``action`` is illegal now, in the rules' words."""
        phase = state.phase
        if phase == OVER:
            return "the episode is over"
        phase_name = PHASE_NAMES[phase]
        if STEP <= action <= STOP_MOVING:
            if phase != MOVE:
                return f"the child can move only in the move phase, and the phase now is '{phase_name}'"
            nb = NEIGHBOURS[state.child][action - STEP]
            if nb < 0:
                return f"{coords(state.child)} is on the edge of the room"
            if state.board[nb] == EMPTY:
                return f"{coords(nb)} is unexplored; the child steps only onto placed tiles"
            if nb == state.monster_cell:
                return f"the monster stands on {coords(nb)}; the child may not step onto it"
        elif SEARCH_PILE <= action <= NO_SEARCH:
            if phase != SEARCH:
                return f"the child can search only in the search phase, and the phase now is '{phase_name}'"
            if action == SEARCH_PILE and not state.pile:
                return "the pile is empty; only the memory area can be searched"
            if SEARCH_MEMORY <= action < NO_SEARCH and action - SEARCH_MEMORY >= len(state.memory):
                return f"memory slot {action - SEARCH_MEMORY} is empty (memory holds {len(state.memory)} tiles)"
        elif PLACE <= action <= DECLINE:
            if phase != PLACING:
                return f"there is no drawn tile to place, and the phase now is '{phase_name}'"
            nb = NEIGHBOURS[state.child][action - PLACE]
            if nb < 0:
                return f"{coords(state.child)} is on the edge of the room"
            if state.board[nb] != EMPTY:
                return f"{coords(nb)} is already explored"
        return super().illegal_reason(state, action)
