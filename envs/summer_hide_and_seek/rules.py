"""Summer Diary Day 3: Hide-and-Seek (常夏日記「かくれんぼ」) — the rules engine.

Implements ../shared/rules/summer_hide_and_seek.md. One round per player; in
each the child draws a secret stroke of straight lines on the map while the
seekers guess its square from the announcements. The state is plain data
(:class:`SummerState`); :class:`SummerHideAndSeekGame` holds the map and the
static line tables and applies the rules.

Action ids (``S`` = number of squares on the map, squares numbered row by row):

====================  ==========================  ===============================
id                    meaning                     who
====================  ==========================  ===============================
``s``                 start at square ``s``       child, first action of a round
``S + s``             draw a line to square ``s`` child (move or shortcut, by geometry)
``2S``                stop (end the turn)         child
``2S + 1 + s``        place the piece on ``s``    the seeker whose turn it is
``3S + 1``            continue (after a shortcut) child; only with ``paced_turns``
====================  ==========================  ===============================

Rule options (all off by default: version 0's rules; ``summer_hide_and_seek_v1``
turns all three on):

- ``must_move``: the child's first decision of a turn must be a line when any
  line is legal (stop is refused then);
- ``score_truncation``: a game cut off by the step limit pays the standings
  (highest VP wins, ties share) in "win" mode, as if it had ended;
- ``paced_turns``: one child decision per unit of cost, so the number of its
  decisions depends only on the announced cost: a shortcut (cost 2) is followed
  by a forced *continue* decision, and the turn ends by itself once all 5 are
  spent (cost + 1 decisions with a stop, cost decisions when all 5 are spent or
  the child is stuck). The stuck rule is judged after the continue.

Caches (``_actions_of_open``, ``_analysis_cache`` and the belief model's) belong
to one rules object: ``_actions_of_open`` is filled from the child's private
states, so a rules object must never be shared between seats (``Game.new_rules``
makes a fresh one with the same options).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from kakurega.envs.core.cache import remember
from kakurega.envs.core.game import TERMINAL, Game
from kakurega.envs.core.options import Option
from kakurega.envs.core.rewards import SHARED_WIN, ZERO_SUM, win_return_bounds, win_returns
from kakurega.envs.summer_hide_and_seek.belief import BeliefModel, iter_bits, mask_of
from kakurega.envs.summer_hide_and_seek.geometry import (
    first_squares,
    is_adjacent,
    is_straight,
    points_between,
    segments_conflict,
)
from kakurega.envs.summer_hide_and_seek.map_data import KIND_NAMES, KIND_PATH, KIND_WHITE, SummerMap, load_map

BUDGET = 5  #: cost a child may spend per turn
MOVE_COST, SHORTCUT_COST = 1, 2
START, CHILD, SEEK, OVER = 0, 1, 2, 3
PHASE_NAMES = ("start", "child's turn", "seekers' turn", "over")
FOUND_BY_GUESS, FOUND_STUCK = 0, 1
REWARD_MODES = ("win", "vp")
MAX_STEPS = 1_000_000  #: bound of the max_steps option
ACTIONS_OF_OPEN_SIZE = 1024  #: legal line actions kept per rules object, by open-line mask
#: public analyses kept per rules object (determinization samplers); keyed by whole public histories, so a
#: full cache is emptied rather than kept
ANALYSIS_CACHE_SIZE = 256
#: maps whose static line tables are kept, shared by every rules object of the map (module level; a rules object of
#: another map builds its own): one entry per (map, strict_moves)
STATIC_TABLES_SIZE = 8
_STATIC_TABLES: dict[tuple, tuple] = {}

# The options (envs/core/options.py): the env declares them, SummerHideAndSeekGame checks its arguments with them.
NUM_PLAYERS_OPTION = Option("num_players", int, 2, "players; each is the child in one round", low=2, high=4)
MAP_OPTION = Option("map", (str, os.PathLike, SummerMap, type(None)), None, "None (the shipped "
                    "``envs/data/summer_map.yaml``), a YAML file path, or a ``SummerMap``; a malformed map raises "
                    "``MapError`` naming the row, column or field",
                    expected="None (default map), a YAML file path or a SummerMap", loader=load_map)
STRICT_MOVES_OPTION = Option("strict_moves", bool, False, "also apply the white-end rule to moves (the seed's most "
                             "literal reading)")
#: versions 0 and 1 ("win" is the shared-win scheme of :mod:`kakurega.envs.core.rewards`)
REWARD_OPTION = Option("reward", str, "win", "``\"win\"``: +1 each winner, −1 each other player at the end; "
                       "``\"vp\"``: VP as they are scored", choices=REWARD_MODES)
#: version 2: zero-sum by default, the old scheme kept as ``"shared_win"``
REWARD_OPTION_V2 = Option("reward", str, ZERO_SUM, "``\"zero_sum\"``: n/(n−1)·(1/k − 1/n) to each of k winners, "
                          "−1/(n−1) to every other player at the end (2 players: win +1, loss −1, tie 0); "
                          "``\"shared_win\"``: +1 each winner, −1 each other player; ``\"vp\"``: VP as they are "
                          "scored", choices=(ZERO_SUM, SHARED_WIN, "vp"))
#: what the rules accept: every version's modes ("win" and "shared_win" are one scheme)
GAME_REWARD_OPTION = Option("reward", str, "win", "the reward mode of any version",
                            choices=("win", ZERO_SUM, SHARED_WIN, "vp"))
MAX_STEPS_OPTION = Option("max_steps", int, 1000, "actions after which the game is truncated", low=1, high=MAX_STEPS)
# Rule settings each version fixes (not env options).
MUST_MOVE_OPTION = Option("must_move", bool, False, "the child must draw at least one line each turn")
SCORE_TRUNCATION_OPTION = Option("score_truncation", bool, False, "a game cut off by the step limit is scored "
                                 "from the standings")
PACED_TURNS_OPTION = Option("paced_turns", bool, False, "one child decision per unit of cost (the continue action)")


@dataclass
class SummerState:
    """Everything about one game. Fields marked *hidden* are private to the child."""

    num_players: int
    first_child: int  #: seat of the first round's child (drawn at random)
    round: int = 0  #: rounds finished; the child of this round is (first_child + round) % n
    phase: int = START
    vp: list = field(default_factory=list)  #: victory points per seat
    stroke: list = field(default_factory=list)  #: *hidden*: squares of this round's stroke, start first
    drawn: int = 0  #: *hidden*: bitmask of line ids drawn this round
    visited: int = 0  #: *hidden*: bitmask of squares on the stroke
    turn_cost: int = 0  #: *hidden*: cost spent in this child turn
    turn_icons: list = field(default_factory=list)  #: *hidden*: icon types reached this turn, in order
    #: this round's announcements: (total cost, sorted tuple of icon types) per child turn
    announcements: list = field(default_factory=list)
    #: this round's completed seekers' turns: the square of each seat's piece (-1 for the child)
    guesses: list = field(default_factory=list)
    pieces: list = field(default_factory=list)  #: pieces on the board per seat (-1: none)
    blocked: int = 0  #: bitmask of squares holding a piece during this child turn
    guessed: int = 0  #: bitmask of every square guessed (wrongly) this round
    belief: int = 0  #: public belief: bitmask of squares where the child can be
    seekers_placed: int = 0  #: pieces placed so far in this seekers' turn
    steps: int = 0  #: actions applied so far (step limit)
    #: *hidden*, derived from ``stroke`` and ``drawn``: bitmask of the directed line ids
    #: (``game.directed_lines``) closed for the rest of the round because they end on a
    #: visited square or overlap or cross a drawn line (kept up to date by the rules)
    closed_lines: int = 0
    #: derived from ``blocked``: bitmask of the directed line ids that end on a piece
    blocked_lines: int = 0
    #: finished rounds: (child, revealed stroke, VP gained, child turns, FOUND_BY_GUESS or FOUND_STUCK)
    history: list = field(default_factory=list)
    #: *hidden* (``paced_turns`` only): the child's last line was a shortcut, its next decision is continue
    continue_due: bool = False
    #: finished rounds: the seats whose piece stood on the child's square (empty when the child was stuck)
    found_by: list = field(default_factory=list)

    @property
    def child(self) -> int:
        """Seat of this round's child."""
        return (self.first_child + self.round) % self.num_players

    @property
    def square(self) -> int:
        """*Hidden*: the child's current square, -1 before the start is chosen."""
        return self.stroke[-1] if self.stroke else -1


class SummerHideAndSeekGame(Game):
    """Rules of Summer Hide-and-Seek for one map, player count and option set."""

    name = "summer_hide_and_seek"

    def __init__(
        self,
        num_players: int = NUM_PLAYERS_OPTION.default,
        summer_map: SummerMap | None = None,
        strict_moves: bool = STRICT_MOVES_OPTION.default,
        reward: str = GAME_REWARD_OPTION.default,
        max_steps: int = MAX_STEPS_OPTION.default,
        must_move: bool = MUST_MOVE_OPTION.default,
        score_truncation: bool = SCORE_TRUNCATION_OPTION.default,
        paced_turns: bool = PACED_TURNS_OPTION.default,
    ):
        """The rules for these options, each checked by its :class:`Option` (as the env checks them)."""
        self.num_players = num_players = NUM_PLAYERS_OPTION.check(num_players)
        self.map = summer_map if summer_map is not None else load_map()
        self.strict_moves = STRICT_MOVES_OPTION.check(strict_moves)
        self.reward = GAME_REWARD_OPTION.check(reward)
        #: how winning pays ("zero_sum" or "shared_win"; unused in vp mode)
        self.win_scheme = ZERO_SUM if reward == ZERO_SUM else SHARED_WIN
        self.max_steps = max_steps = MAX_STEPS_OPTION.check(max_steps)
        self.must_move = MUST_MOVE_OPTION.check(must_move)
        self.score_truncation = SCORE_TRUNCATION_OPTION.check(score_truncation)
        self.paced_turns = PACED_TURNS_OPTION.check(paced_turns)
        self.options = {
            "num_players": num_players, "summer_map": self.map, "strict_moves": self.strict_moves,
            "reward": reward, "max_steps": max_steps, "must_move": self.must_move,
            "score_truncation": self.score_truncation, "paced_turns": self.paced_turns,
        }
        m = self.map
        S = self.num_squares = m.num_squares
        self.num_actions = 3 * S + 2 if self.paced_turns else 3 * S + 1
        self.line_base, self.stop_action, self.place_base = S, 2 * S, 2 * S + 1
        #: continue after a shortcut (``paced_turns`` only; -1: no such action)
        self.continue_action = 3 * S + 1 if self.paced_turns else -1
        self.points = list(m.squares)
        self.kinds = list(m.kinds)
        self.icon_of = list(m.icon_of)
        self.square_vp = [m.icons[i].vp if i >= 0 else 0 for i in self.icon_of]
        self.path_mask = mask_of(s for s in range(S) if self.kinds[s] == KIND_PATH)
        self.all_squares_mask = (1 << S) - 1
        self._start_actions = [s for s in range(S) if self.kinds[s] == KIND_PATH]
        self._place_actions = [self.place_base + s for s in range(S)]
        self._build_lines()
        by_cost = {MOVE_COST: [[] for _ in range(S)], SHORTCUT_COST: [[] for _ in range(S)]}
        for p in range(S):
            for q, _bit, _lid, cost in self.out_lines[p]:
                by_cost[cost][p].append(q)
        self.belief_model = BeliefModel(by_cost, self.icon_of, len(m.icons))
        self._analysis_cache: dict = {}
        self._icon_vp = [icon.vp for icon in m.icons]
        # returns() in "win" mode before the end: one shared read-only array
        self._no_returns = np.zeros(num_players, dtype=np.float64)
        self._no_returns.flags.writeable = False

    def __getstate__(self):
        # the analysis and action caches are pure speed-ups: do not copy or pickle them
        return {**self.__dict__, "_analysis_cache": {}, "_actions_of_open": {0: (self.stop_action,)}}

    # ------------------------------------------------------------ static tables
    def _build_lines(self) -> None:
        """Lines the static rules allow, with ids and pairwise conflicts, and the directed-line tables: read-only
        tables of the map and ``strict_moves`` alone, built once per map (see :func:`_static_tables`)."""
        key = (self.map, self.strict_moves)
        tables = _STATIC_TABLES.get(key)
        if tables is None:
            tables = remember(_STATIC_TABLES, key, _static_tables(self.map, self.strict_moves), STATIC_TABLES_SIZE)
        #: reach[p]: geometric neighbours, (q, distance) for every direction that meets a square
        #: lines[lid]: the squares (low, high) of each line
        #: out_lines[p]: (target square, its bit, line id, cost) of every line the static rules allow
        #: conflicts[lid]: bitmask of line ids that overlap or cross line lid
        #: directed_lines[d] = (p, q): the directed lines, numbered by p then q (see _static_tables);
        #: lines_out[p]: the directed lines from p (a mask), shortcut_lines: those of cost 2 (a mask);
        #: directed_moves[d]: (target, cost, the directed lines that drawing d closes)
        (self.reach, self.lines, self.out_lines, self._line_of, self.conflicts, self.directed_lines, self._into,
         self.lines_out, self.shortcut_lines, self._lines_from, self.directed_moves, self._conflict_closes) = tables
        self._actions_of_open: dict[int, tuple[int, ...]] = {0: (self.stop_action,)}

    def closed_lines_at(self, visited: int, drawn: int, blocked: int) -> int:
        """The directed lines (a mask of ``directed_lines``) that :meth:`open_lines` refuses, whatever the budget,
        with the squares ``visited`` and ``blocked`` and the lines ``drawn`` (bitmasks): those ending on a visited
        or blocked square, and those overlapping or crossing a drawn line."""
        closed = 0
        for square in iter_bits(visited | blocked):
            closed |= self._into[square]
        for lid in iter_bits(drawn):
            closed |= self._conflict_closes[lid]
        return closed

    def closed_lines_of(self, stroke: list[int]) -> int:
        """The ``closed_lines`` mask of a stroke, computed from scratch."""
        closed = 0
        for i, q in enumerate(stroke):
            closed |= self._into[q] if i == 0 else self._lines_from[stroke[i - 1]][q][2]
        return closed

    def blocked_lines_of(self, blocked: int) -> int:
        """The ``blocked_lines`` mask of the piece squares ``blocked``."""
        lines = 0
        for square in iter_bits(blocked):
            lines |= self._into[square]
        return lines

    def _open_actions(self, open_lines: int) -> tuple[int, ...]:
        """Line actions (sorted by target) of the directed lines ``open_lines``, then stop (cached)."""
        actions = tuple(self.line_base + self.directed_lines[d][1] for d in iter_bits(open_lines)) + (self.stop_action,)
        remember(self._actions_of_open, open_lines, actions, ACTIONS_OF_OPEN_SIZE)
        return actions

    # --------------------------------------------------------------- the game
    def initial_state(self, rng: np.random.Generator) -> SummerState:
        n = self.num_players
        return SummerState(
            num_players=n,
            first_child=int(rng.integers(n)),
            vp=[0] * n,
            pieces=[-1] * n,
            belief=self.path_mask,
        )

    def current_player(self, state: SummerState) -> int:
        phase = state.phase
        if phase == OVER or state.steps >= self.max_steps:
            return TERMINAL
        if phase == SEEK:  # the seekers place clockwise from the child
            return (state.first_child + state.round + 1 + state.seekers_placed) % self.num_players
        return (state.first_child + state.round) % self.num_players  # the child (property inlined)

    def is_terminal(self, state: SummerState) -> bool:
        return state.phase == OVER

    def is_truncated(self, state: SummerState) -> bool:
        return state.steps >= self.max_steps and state.phase != OVER

    def open_lines(self, p: int, visited: int, drawn: int, blocked: int, budget: int):
        """Lines from p that are legal now: (target, bit, line id, cost)."""
        conflicts = self.conflicts
        taken = visited | blocked
        return [
            entry
            for entry in self.out_lines[p]
            if not (taken & entry[1]) and not (conflicts[entry[2]] & drawn) and entry[3] <= budget
        ]

    def is_stuck(self, p: int, visited: int, drawn: int, blocked: int) -> bool:
        """The stuck rule: no legal line at all from p, whatever budget remains."""
        conflicts = self.conflicts
        taken = visited | blocked
        for _q, bit, lid, _cost in self.out_lines[p]:
            if not (taken & bit) and not (conflicts[lid] & drawn):
                return False
        return True

    def line_between(self, p: int, q: int) -> tuple[int, int] | None:
        """(line id, cost) of the line p -> q if the static rules allow it, else None."""
        return self._line_of.get((p, q))

    def line_options(self, state: SummerState) -> list[tuple[int, int, int, int]]:
        """The child's legal lines now (target, bit, line id, cost); empty outside its turn."""
        if state.phase != CHILD:
            return []
        return self.open_lines(state.square, state.visited, state.drawn, state.blocked, BUDGET - state.turn_cost)

    def legal_actions(self, state: SummerState) -> list[int]:
        phase = state.phase
        if phase == OVER or state.steps >= self.max_steps:
            return []
        if phase == CHILD:  # the lines of line_options(state), then stop
            if state.continue_due:
                return [self.continue_action]
            open_lines = self.lines_out[state.stroke[-1]] & ~(state.closed_lines | state.blocked_lines)
            budget = BUDGET - state.turn_cost
            if budget < SHORTCUT_COST:
                open_lines = open_lines & ~self.shortcut_lines if budget >= MOVE_COST else 0
            actions = self._actions_of_open.get(open_lines) or self._open_actions(open_lines)
            if self.must_move and budget == BUDGET and open_lines:
                return list(actions[:-1])  # the turn's first decision: a line, not stop
            return list(actions)
        if phase == SEEK:
            return list(self._place_actions)
        return list(self._start_actions)

    def apply_action(self, state: SummerState, action: int, rng: np.random.Generator) -> None:
        state.steps += 1
        phase = state.phase
        if phase == CHILD:
            if action == self.stop_action:
                self._end_child_turn(state, stuck=False)
                return
            if action == self.continue_action:
                state.continue_due = False
                self._after_line(state)
                return
            q = action - self.line_base
            lid, cost, closes = self._lines_from[state.stroke[-1]][q]
            state.stroke.append(q)
            state.visited |= 1 << q
            state.drawn |= 1 << lid
            state.closed_lines = state.closed_lines | closes
            state.turn_cost += cost
            icon = self.icon_of[q]
            if icon >= 0:
                state.turn_icons.append(icon)
            if self.paced_turns and cost == SHORTCUT_COST:
                state.continue_due = True  # one decision per unit of cost: continue comes next
                return
            self._after_line(state)
        elif phase == SEEK:
            placed = state.seekers_placed
            seat = (state.first_child + state.round + 1 + placed) % self.num_players  # current_player
            state.pieces[seat] = action - self.place_base
            state.seekers_placed = placed + 1
            if placed + 2 == self.num_players:  # every seeker has placed
                self._resolve_guesses(state)
        elif phase == START:
            state.stroke = [action]
            state.visited = 1 << action
            state.closed_lines = self._into[action]
            state.blocked_lines = self.blocked_lines_of(state.blocked)  # (no piece stands at a round's start)
            state.phase = CHILD
            state.turn_cost = 0
            state.turn_icons = []
            if not self.lines_out[action] & ~(state.closed_lines | state.blocked_lines):  # stuck (is_stuck, by the masks)
                self._end_child_turn(state, stuck=True)
        else:
            raise ValueError("the game is over")

    def _after_line(self, state: SummerState) -> None:
        """After a line (and its continue): the stuck rule, then (``paced_turns``) the end of a spent budget."""
        if not self.lines_out[state.stroke[-1]] & ~(state.closed_lines | state.blocked_lines):  # stuck (is_stuck, by the masks)
            self._end_child_turn(state, stuck=True)
        elif self.paced_turns and state.turn_cost == BUDGET:
            self._end_child_turn(state, stuck=False)

    def _end_child_turn(self, state: SummerState, stuck: bool) -> None:
        """Scoring and announcement; then the seekers' turn, or the round ends if stuck."""
        icons = tuple(sorted(state.turn_icons))
        if icons:
            icon_vp = self._icon_vp
            state.vp[state.child] += sum([icon_vp[i] for i in icons])
        state.announcements.append((state.turn_cost, icons))
        if stuck:
            self._end_round(state, FOUND_STUCK)
            return
        state.belief = self.belief_model.propagate(state.belief, state.turn_cost, icons, state.blocked)
        state.phase = SEEK
        state.pieces = [-1] * self.num_players
        state.seekers_placed = 0

    def _resolve_guesses(self, state: SummerState) -> None:
        """All pieces placed: found ends the round; otherwise the child moves on, pieces blocking."""
        state.guesses.append(tuple(state.pieces))
        square = state.stroke[-1]
        if square in state.pieces:
            self._end_round(state, FOUND_BY_GUESS)
            return
        pieces = lines = 0
        into = self._into
        for piece in state.pieces:
            if piece >= 0:  # (the child has no piece)
                pieces |= 1 << piece
                lines |= into[piece]
        state.blocked = pieces
        state.blocked_lines = lines
        state.guessed |= pieces
        state.belief &= ~pieces
        state.phase = CHILD
        state.turn_cost = 0
        state.turn_icons = []
        if not self.lines_out[square] & ~(state.closed_lines | lines):  # stuck (is_stuck, by the masks)
            self._end_child_turn(state, stuck=True)

    def _end_round(self, state: SummerState, how: int) -> None:
        """The child is found: reveal the stroke, erase it, next child or game over."""
        icon_vp = self._icon_vp
        gained = sum([icon_vp[i] for _cost, icons in state.announcements for i in icons])
        state.history.append((state.child, tuple(state.stroke), gained, len(state.announcements), how))
        square = state.stroke[-1]
        state.found_by.append(tuple(seat for seat, piece in enumerate(state.pieces) if piece == square)
                              if how == FOUND_BY_GUESS else ())
        state.round += 1
        state.phase = OVER if state.round == self.num_players else START
        state.stroke = []
        state.drawn = state.visited = state.turn_cost = state.closed_lines = state.blocked_lines = 0
        state.turn_icons = []
        state.announcements = []
        state.guesses = []
        state.pieces = [-1] * self.num_players
        state.blocked = state.guessed = 0
        state.belief = self.path_mask
        state.seekers_placed = 0

    def winners(self, state: SummerState) -> list[int]:
        """Seats with the most VP (ties share the win)."""
        best = max(state.vp)
        return [seat for seat, vp in enumerate(state.vp) if vp == best]

    def returns(self, state: SummerState) -> np.ndarray:
        """Cumulative returns (in the win schemes, before the end: one shared read-only array of zeros).

        With ``score_truncation`` a game cut off by the step limit pays the
        standings, as if it had ended ("vp" mode pays VP as scored anyway).
        """
        if self.reward == "vp":
            return np.asarray(state.vp, dtype=np.float64)
        if state.phase != OVER and not (self.score_truncation and state.steps >= self.max_steps):
            return self._no_returns
        return win_returns(self.win_scheme, self.num_players, self.winners(state))

    def winning_note(self, state: SummerState, action: int) -> str:
        """``"finds the child for sure"`` for a piece placed on the one square the public belief leaves.

        The belief is public and holds the child's true square (a sound over-approximation), so with one
        square left the placement finds the child whatever the stroke; the note reads public facts only.
        """
        action = int(action)
        if state.phase != SEEK or not self.place_base <= action < self.place_base + self.num_squares:
            return ""
        return "finds the child for sure" if state.belief == 1 << (action - self.place_base) else ""

    def result_words(self, state, viewer: int | None = None) -> list[str]:
        """How the finished game ended, in words (:mod:`kakurega.envs.summer_hide_and_seek.results`)."""
        from kakurega.envs.summer_hide_and_seek import results

        return results.result_words(self, state, viewer)

    def round_words(self, state, viewer: int | None = None) -> list[str]:
        """One line per finished round (:mod:`kakurega.envs.summer_hide_and_seek.results`)."""
        from kakurega.envs.summer_hide_and_seek import results

        return results.round_words(self, state, viewer)

    def return_bounds(self) -> tuple[float, float]:
        """VP: 0 to every icon square's VP (a child enters each square at most once, in its one round); the win
        schemes: their range (:func:`~kakurega.envs.core.rewards.win_return_bounds`)."""
        if self.reward == "vp":
            return 0.0, float(sum(self.square_vp))
        return win_return_bounds(self.win_scheme, self.num_players)

    def max_decisions(self) -> int:
        """``max_steps``: every decision is one step."""
        return self.max_steps

    def is_zero_sum(self) -> bool:
        """True for ``reward="zero_sum"``."""
        return self.reward == ZERO_SUM

    def pays_only_at_end(self) -> bool:
        """True for the win schemes; ``reward="vp"`` pays VP as they are scored."""
        return self.reward != "vp"

    # ------------------------------------------------------------------ words
    def describe_action(self, action: int) -> tuple[str, int]:
        """(kind, square) of an action id: kind is "start", "line", "stop", "place" or "continue".

        >>> game = SummerHideAndSeekGame()   # default map: 56 squares
        >>> game.describe_action(3), game.describe_action(59), game.describe_action(112), game.describe_action(113)
        (('start', 3), ('line', 3), ('stop', -1), ('place', 0))
        """
        S = self.num_squares
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is out of range [0, {self.num_actions})")
        if action < S:
            return "start", action
        if action < 2 * S:
            return "line", action - S
        if action == 2 * S:
            return "stop", -1
        if action == self.continue_action:
            return "continue", -1
        return "place", action - self.place_base

    def action_to_string(self, state: SummerState, action: int) -> str:
        if not 0 <= action < self.num_actions:  # words for any id, as every game gives (an error names it so)
            return f"action {action} (out of range 0..{self.num_actions - 1})"
        kind, square = self.describe_action(action)
        if kind == "stop":
            return "stop (end the turn)"
        if kind == "continue":
            return "continue (the second decision of a shortcut)"
        name = self.map.describe_square(square)
        if kind == "start":
            return f"start at {name}"
        if kind == "place":
            return f"place piece on {name}"
        if state.phase == CHILD and state.stroke:
            entry = self._line_of.get((state.square, square))
            if entry is not None:
                word = "move" if entry[1] == MOVE_COST else "shortcut"
                return f"{word} {self.map.square_name(state.square)} -> {name}, cost {entry[1]}"
        return f"line to {name}"

    def public_action_string(self, before: SummerState, action: int, after: SummerState, viewer: int | None) -> str:
        """The move in ``viewer``'s words (:mod:`~kakurega.envs.summer_hide_and_seek.moves`): a seeker never reads the child's lines.

        E.g. to a seeker: ``"player_0 (the child) acts in secret; player_0 (the child) announces cost 3 and icons: ..."``.
        """
        from kakurega.envs.summer_hide_and_seek.moves import public_action_string

        return public_action_string(self, before, action, after, viewer)

    def illegal_reason(self, state: SummerState, action: int) -> str:
        kind, square = self.describe_action(action)
        m = self.map
        if state.phase == OVER or state.steps >= self.max_steps:
            return "the game is over"
        if kind == "place":
            return "pieces are placed only in the seekers' turn" if state.phase != SEEK else "legal"
        if state.phase == SEEK:
            return "it is the seekers' turn: the only actions are placing a piece"
        if kind == "start":
            if state.phase != START:
                return "the start square is chosen only once, at the beginning of the round"
            return f"the child starts on a path square (no icon); {m.describe_square(square)} is not one"
        if state.phase == START:
            return "the child must first choose a starting path square"
        if state.continue_due:
            if kind == "continue":
                return "legal"
            return "after a shortcut (cost 2) the child's next decision is continue (the turn order hides the lines)"
        if kind == "continue":
            return "continue is the decision that follows a shortcut, and the last line was not one"
        if kind == "stop":
            if self.must_move and state.turn_cost == 0 and self.line_options(state):
                return "the child must draw at least one line this turn (a legal line exists); stop only after it"
            return "legal"
        p = state.square
        a, b = self.points[p], self.points[square]
        if square == p:
            return "the line must go to another square"
        if not is_straight(a, b):
            return f"{m.square_name(p)} -> {m.square_name(square)} is not a horizontal, vertical or 45-degree line"
        over = [pt for pt in points_between(a, b) if m.square_at(*pt) >= 0]
        if over:
            return f"the line would jump over the square r{over[0][0]}c{over[0][1]}; only terrain may be jumped"
        adjacent = is_adjacent(a, b)
        if adjacent and self.kinds[square] == KIND_WHITE:
            return "a move (adjacent, cost 1) may only target a path or black-framed square"
        if not kind_allows(self.kinds, self.strict_moves, p, square, adjacent):
            what = "a move under strict_moves" if adjacent else "a shortcut"
            return (
                f"{what} needs a white-framed square at one end; {KIND_NAMES[self.kinds[p]]} -> "
                f"{KIND_NAMES[self.kinds[square]]} is not allowed"
            )
        lid, cost = self._line_of[(p, square)]
        if state.visited >> square & 1:
            return "the stroke may not return to a square it has visited"
        if state.blocked >> square & 1:
            return "a seeker's piece stands on that square"
        if self.conflicts[lid] & state.drawn:
            return "the line would overlap or cross a line already drawn this round"
        if cost > BUDGET - state.turn_cost:
            return f"it costs {cost} but only {BUDGET - state.turn_cost} of the turn's budget of {BUDGET} is left"
        return "legal"

    # ------------------------------------------------------------ hidden info
    def clone(self, state: SummerState) -> SummerState:
        return SummerState(
            num_players=state.num_players,
            first_child=state.first_child,
            round=state.round,
            phase=state.phase,
            vp=list(state.vp),
            stroke=list(state.stroke),
            drawn=state.drawn,
            visited=state.visited,
            turn_cost=state.turn_cost,
            turn_icons=list(state.turn_icons),
            announcements=list(state.announcements),
            guesses=list(state.guesses),
            pieces=list(state.pieces),
            blocked=state.blocked,
            guessed=state.guessed,
            belief=state.belief,
            seekers_placed=state.seekers_placed,
            steps=state.steps,
            history=list(state.history),
            closed_lines=state.closed_lines,
            blocked_lines=state.blocked_lines,
            continue_due=state.continue_due,
            found_by=list(state.found_by),
        )

    def resample_hidden(self, state: SummerState, player: int, rng: np.random.Generator) -> SummerState:
        """For a seeker: the child's stroke replaced by another one consistent with all public facts.

        The new stroke starts on a path square, matches every announcement of
        the round (cost and icon multiset), never ends a line on a square that
        held a piece, avoids every wrongly guessed square after each seekers'
        turn, is never stuck where the real child went on, and obeys the
        crossing and no-revisit rules. In the middle of a child turn the lines
        drawn so far this turn (unknown to seekers) are dropped: the sample's
        child is at the start of the turn. The child itself knows everything.

        Every field of a seeker's sample depends only on public facts and
        ``rng``: the stroke and what follows from it (``drawn``, ``visited``,
        ``closed_lines``) are drawn, the turn in progress is reset
        (``turn_cost``, ``turn_icons``, ``continue_due``, and its decisions
        taken off ``steps``) and ``steps`` is recounted without ``paced_turns``
        (:meth:`sample_steps`); every other field is public.
        """
        sample = self.clone(state)
        if player == state.child or state.phase in (START, OVER) or not state.stroke:
            return sample
        stroke = self.sample_stroke(state, rng)
        sample.stroke = stroke
        sample.visited = mask_of(stroke)
        drawn = 0
        for p, q in zip(stroke, stroke[1:]):
            drawn |= 1 << self._line_of[(p, q)][0]
        sample.drawn = drawn
        sample.closed_lines = self.closed_lines_of(stroke)
        if state.phase == CHILD and self.paced_turns and state.steps < self.max_steps:
            # the turn under way is dropped, and with it its decisions: one per unit of cost spent,
            # but for a continue still due after a shortcut
            sample.steps -= state.turn_cost - int(state.continue_due)
        sample.turn_cost = 0
        sample.turn_icons = []
        sample.continue_due = False
        sample.steps = self.sample_steps(sample)
        return sample

    def count_steps(self, state: SummerState) -> int:
        """The actions played to reach ``state`` (its ``steps``), recounted from the rounds' strokes (rules of v0).

        Without ``paced_turns`` the child acts once per line, so ``steps``
        counts the hidden lines: per finished round, the start, the lines of
        the revealed stroke and ``n`` actions (a stop and ``n - 1`` pieces)
        per turn that ended by a stop (every turn but a stuck last one); in the
        round under way, the start, the stroke's lines, a stop per announcement
        and the pieces placed since.
        """
        n = self.num_players
        steps = 0
        for _child, stroke, _gained, turns, how in state.history:
            steps += len(stroke) + n * (turns - (how == FOUND_STUCK))
        if state.stroke and state.phase != OVER:
            steps += len(state.stroke) + len(state.announcements) + (n - 1) * len(state.guesses)
            if state.phase == SEEK:
                steps += state.seekers_placed
        return steps

    def sample_steps(self, sample: SummerState) -> int:
        """``steps`` of a seeker's sample: public facts only (the true count is hidden without ``paced_turns``).

        With ``paced_turns`` the step count at the start of a child turn is a
        function of the announcements, hence public, and is kept (the
        decisions of a turn under way were taken off with its lines). Without it the count is recounted from the
        sampled stroke (:meth:`count_steps`), kept below the step limit unless
        the game was cut off (a public fact), so that the sample is live
        exactly when the game is.
        """
        if self.paced_turns:
            return sample.steps
        if sample.steps >= self.max_steps:
            return self.max_steps
        return min(self.count_steps(sample), self.max_steps - 1)

    def _public_analysis(self, state: SummerState):
        """Backward completion sets per announced turn (a function of public facts only)."""
        key = (tuple(state.announcements), tuple(state.guesses), state.phase)
        cached = self._analysis_cache.get(key)
        if cached is not None:
            return cached
        model = self.belief_model
        turns = len(state.announcements)
        blocked = [0] + [mask_of(g) for g in state.guesses]  # blocked[t]: pieces during child turn t
        target = self.all_squares_mask
        if len(state.guesses) == turns and turns:
            target &= ~blocked[turns]
        completions = [None] * turns
        for t in range(turns - 1, -1, -1):
            cost, icons = state.announcements[t]
            completions[t] = model.completion_sets(target, cost, icons, blocked[t])
            target = completions[t].get((0, icons), 0)
            if t:
                target &= ~blocked[t]  # not found by the guesses of seekers' turn t-1
        starts = self.path_mask & target
        result = (completions, blocked, starts)
        if len(self._analysis_cache) >= ANALYSIS_CACHE_SIZE:  # keyed by whole public histories: start afresh
            self._analysis_cache.clear()
        self._analysis_cache[key] = result
        return result

    def sample_stroke(self, state: SummerState, rng: np.random.Generator) -> list[int]:
        """A random stroke consistent with every public fact of the round (see resample_hidden).

        A randomized depth-first search over starts and lines, pruned by the
        backward completion sets; the real stroke exists, so a search given
        nodes enough finds one. Its time is heavy-tailed in the random order,
        so it restarts with fresh orders and bounded node budgets
        (``SAMPLE_BUDGETS``), and says so in a ``RuntimeError`` when all are
        spent (on the largest maps, late in a round) rather than run on.
        """
        completions, blocked, starts = self._public_analysis(state)
        announcements = state.announcements
        turns = len(announcements)
        check_final = state.phase == CHILD and turns > 0
        stroke: list[int] = []
        conflicts = self.conflicts
        icon_of = self.icon_of
        budget = [0]

        def finish_turn(t: int, p: int, visited: int, drawn: int) -> bool:
            # The start of child turn t (t >= 1): the child must not be stuck
            # against the new pieces. Turns without a line are walked in a loop,
            # not by recursion: a child may stop at once for hundreds of turns.
            while True:
                if t < turns or check_final:
                    if self.is_stuck(p, visited, drawn, blocked[t]):
                        return False
                if t == turns:
                    return True
                if announcements[t][0] != 0:
                    return extend(t, p, 0, announcements[t][1], visited, drawn)
                t += 1

        def extend(t: int, p: int, spent: int, rem: tuple, visited: int, drawn: int) -> bool:
            cost = announcements[t][0]
            if spent == cost:
                return finish_turn(t + 1, p, visited, drawn)
            budget[0] -= 1
            if budget[0] < 0:
                raise _OutOfBudget
            sets = completions[t]
            taken = visited | blocked[t]
            options = list(self.out_lines[p])
            rng.shuffle(options)
            for q, bit, lid, k in options:
                if spent + k > cost or taken & bit or conflicts[lid] & drawn:
                    continue
                icon = icon_of[q]
                if icon >= 0:
                    if icon not in rem:
                        continue
                    i = rem.index(icon)
                    after = rem[:i] + rem[i + 1 :]
                else:
                    after = rem
                if not (sets.get((spent + k, after), 0) >> q) & 1:
                    continue
                new_visited, new_drawn = visited | bit, drawn | (1 << lid)
                if self.is_stuck(q, new_visited, new_drawn, blocked[t]):
                    continue  # the real child was never stuck in a finished turn
                stroke.append(q)
                if extend(t, q, spent + k, after, new_visited, new_drawn):
                    return True
                stroke.pop()
            return False

        start_list = list(iter_bits(starts))
        # Restarts, never one unbounded attempt: the search's running time is heavy-tailed in the random
        # order (a 32 x 32 map, 36 turns: most orders take milliseconds, one ran > 600 s), and a fresh order
        # with a bounded budget escapes an unlucky one. SAMPLE_BUDGETS bounds the whole search.
        for limit in SAMPLE_BUDGETS:
            order = [start_list[i] for i in rng.permutation(len(start_list))]
            budget[0] = limit
            try:
                for s in order:
                    stroke[:] = [s]
                    if self.is_stuck(s, 1 << s, 0, 0):
                        continue
                    if turns == 0 or extend(0, s, 0, announcements[0][1], 1 << s, 0):
                        return list(stroke)
            except _OutOfBudget:
                continue
        raise RuntimeError(f"no stroke consistent with the public information found within {len(SAMPLE_BUDGETS)} "
                           f"bounded attempts ({sum(SAMPLE_BUDGETS):,} search nodes): the map is too large for "
                           "sampling the child's stroke this late in the round")


def kind_allows(kinds, strict_moves: bool, p: int, q: int, adjacent: bool) -> bool:
    """Square-kind rules of a line p -> q (move if adjacent, else shortcut), ``kinds`` the squares' kinds."""
    white_end = kinds[p] == KIND_WHITE or kinds[q] == KIND_WHITE
    if adjacent:
        # a move targets a path or black-framed square; strict_moves adds the white-end rule
        return kinds[q] != KIND_WHITE and (white_end or not strict_moves)
    return white_end


def _static_tables(m: SummerMap, strict_moves: bool) -> tuple:
    """The line tables of a map under the static rules, in the order ``SummerHideAndSeekGame._build_lines`` reads
    them (each documented there). Read-only: every rules object of the map shares them.

    The directed-line tables are the line rules as bitmasks of directed lines, for the incremental masks of the
    state: a directed line p -> q is open while q is not visited, holds no piece and the line neither overlaps
    nor crosses a drawn line (``open_lines`` says the same line by line). The state keeps the closed ones as
    bitmasks (``closed_lines``, ``blocked_lines``), so that the lines open from a square are one mask operation.
    """
    S = m.num_squares
    points = list(m.squares)

    def square_at(r, c):
        if not (0 <= r < m.height and 0 <= c < m.width):
            return None
        return m.square_at(r, c)

    reach = first_squares(points, square_at)
    line_id: dict[tuple[int, int], int] = {}
    lines: list[tuple[int, int]] = []
    out_lines = []
    for p in range(S):
        entries = []
        for q, distance in sorted(reach[p]):
            if not kind_allows(m.kinds, strict_moves, p, q, distance == 1):
                continue
            pair = (min(p, q), max(p, q))
            if pair not in line_id:
                line_id[pair] = len(lines)
                lines.append(pair)
            cost = MOVE_COST if distance == 1 else SHORTCUT_COST
            entries.append((q, 1 << q, line_id[pair], cost))
        out_lines.append(tuple(entries))
    line_of = {(p, q): (lid, cost) for p in range(S) for q, _b, lid, cost in out_lines[p]}
    conflicts = line_conflicts(points, lines)
    directed_lines = [(p, q) for p in range(S) for q, _b, _l, _c in out_lines[p]]
    directed_of = [0] * len(lines)  # undirected line id -> its directed ids
    into = [0] * S  # square -> directed lines ending there
    out = [0] * S  # square -> directed lines starting there
    shortcut_lines = 0  # directed lines of cost 2
    for d, (p, q) in enumerate(directed_lines):
        lid, cost = line_of[(p, q)]
        directed_of[lid] |= 1 << d
        into[q] |= 1 << d
        out[p] |= 1 << d
        if cost == SHORTCUT_COST:
            shortcut_lines |= 1 << d
    #: per line id: the directed lines that overlap or cross it (closed once it is drawn)
    conflict_closes = [0] * len(lines)
    for lid in range(len(lines)):
        for j in iter_bits(conflicts[lid]):
            conflict_closes[lid] |= directed_of[j]
    #: per square p: {target q: (line id, cost, directed lines that drawing p -> q closes)}
    lines_from = [{} for _ in range(S)]
    for p, q in directed_lines:
        lid, cost = line_of[(p, q)]
        lines_from[p][q] = (lid, cost, into[q] | conflict_closes[lid])
    #: per directed line d = (p, q): (q, cost, directed lines that drawing it closes)
    directed_moves = tuple((q, lines_from[p][q][1], lines_from[p][q][2]) for p, q in directed_lines)
    return (reach, lines, out_lines, line_of, conflicts, directed_lines, into, out, shortcut_lines, lines_from,
            directed_moves, conflict_closes)


def line_conflicts(points, lines) -> list[int]:
    """Per line, the bitmask of the lines it conflicts with (``segments_conflict``: crossing or overlapping).

    Two lines can conflict only where their bounding boxes meet, so the lines are swept in order of their
    lowest first coordinate and a pair is tested only when the boxes overlap: close to linear in the lines
    (a dense 32 x 32 map has about 4,000, nearly all of length 1; testing every pair took 7-11 s).
    """
    boxes = sorted(
        (min(points[a][0], points[b][0]), max(points[a][0], points[b][0]),
         min(points[a][1], points[b][1]), max(points[a][1], points[b][1]), i)
        for i, (a, b) in enumerate(lines)
    )
    conflicts = [0] * len(lines)
    for k, (_low0, high0, low1, high1, i) in enumerate(boxes):
        a, b = lines[i]
        for other_low0, _high0, other_low1, other_high1, j in boxes[k + 1:]:
            if other_low0 > high0:
                break  # sorted: no later box reaches back into this one
            if other_low1 > high1 or other_high1 < low1:
                continue
            c, d = lines[j]
            if segments_conflict(points[a], points[b], points[c], points[d]):
                conflicts[i] |= 1 << j
                conflicts[j] |= 1 << i
    return conflicts


#: sample_stroke's attempts, each a fresh random order with this many search nodes; then it gives up in words
#: (about 10 million nodes, 10-30 s at the worst; an unbounded last attempt once ran for over 600 s)
SAMPLE_BUDGETS = (2_000, 20_000) + (200_000,) * 50


class _OutOfBudget(Exception):
    """The randomized search ran out of nodes; the caller retries with a bigger budget."""


def summer_game(map, **options) -> SummerHideAndSeekGame:  # noqa: A002 - the env option's name
    """The rules for the env's options: ``map`` (None, a YAML file path or a ``SummerMap``) loaded, the rest as given."""
    summer_map = map if isinstance(map, SummerMap) else load_map(map)
    return SummerHideAndSeekGame(summer_map=summer_map, **options)
