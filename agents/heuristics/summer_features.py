"""Move features of Summer Hide-and-Seek: what the heuristic measures about each action, as network inputs.

:class:`SummerMoveFeatures` is the game's ``move_features`` class (see
:mod:`kakurega.agents.move_features`): it reads the acting seat's observation
dict only, and what it caches (the start squares' scores, shared by every
instance of the configuration; the seekers' weights and the plans of the
child's turn, the walks of each announcement, the rows of the child positions
met and their dominated lines, the last stroke read; each with a size cap) is a function of that
dict, so the same observation always gives the same features (in training, in
a search's simulations, in play).
"""

from __future__ import annotations

import numpy as np

from kakurega.agents.base import AgentContext, legal_ids
from kakurega.agents.heuristics.summer_dominance import proves, stuck_lines, sure_find
from kakurega.agents.heuristics.summer_hide_and_seek import (
    FUTURE_VALUE,
    MOBILITY,
    PublicWeights,
    TurnPlans,
    Walks,
    read_stroke,
    shared_tables,
)
from kakurega.agents.heuristics.summer_plans import START_ANNOUNCEMENTS, searched_starts
from kakurega.envs.core.cache import remember
from kakurega.envs.summer_hide_and_seek.rules import BUDGET

#: the observation pieces the child's rows are a function of (with the legal actions)
CHILD_PIECES = ("stroke", "pieces", "budget_left", "turn_icons", "belief", "last_cost", "last_icons")
#: child positions whose rows are kept (the first met; evaluation replays the same positions: 646 distinct
#: among 4,487 child decisions of 264 games of 2 players)
CHILD_CACHE_SIZE = 1024
#: child positions whose dominated lines are kept (every child decision of every Summer bot asks; evaluation
#: replays the same positions: 98% of the child decisions of a 2-player bot against the heuristic are met again,
#: 45% at 3 players, 19% at 4)
STUCK_CACHE_SIZE = 1024
#: announcements whose walks (from every square, nothing blocked) are kept: (cost, icons) pairs, a few dozen occur
ANNOUNCEMENTS_CACHE_SIZE = 256
#: start positions (belief, legal starts) whose rows are kept, shared by every instance of a configuration
START_ROWS_SIZE = 16


class SummerMoveFeatures:
    """Per action, ``PER_ACTION`` numbers in [0, 1] (flattened rows, one per action; illegal actions' rows are 0).

    Column 0 is 1 for every legal action. The public weights below are walk
    counts as the heuristic's (:class:`PublicWeights`), but rebuilt from the
    observation alone: the walks of the last announcement from every square,
    times the public belief (the heuristic carries them through every
    announcement of the round instead).

    * seeker, place on ``s``: 1 if ``s`` is in the public belief; ``1/size``
      of the belief if it is (1: the belief is that one square, a sure find);
      ``s``'s public weight / the largest; 1 if another seeker's piece already
      stands on ``s`` this turn.
    * child, a line to ``q`` (or stop, at the current square): ``q``'s VP / the
      map's largest; 1 if the child is stuck there (found at once); the lines
      still open from there, up to 4, /4; the chance a seeker finds it there if
      the turn ends there (seekers x ``q``'s share of the public weights after
      the announcement, capped at 1); then, of the best way to finish the turn
      through this action, scored as the heuristic scores a plan (VP +
      (1 - P(found)) x FUTURE_VALUE + MOBILITY x open lines): its P(found)
      (1 when stuck), its score / the best action's, and 1 on the best
      action(s).
    * child, start on ``s``: the lines open from ``s``, up to 4, /4; the best
      first turn's score from ``s`` / the best start's, and 1 on the best
      start(s). On a map of more than ``START_SEARCHES`` (48) path squares
      only 48 starts spread over the map have these last two
      (``summer_plans.searched_starts``), and no more once their plans have
      made ``START_ANNOUNCEMENTS`` announcements (maps of many icon types);
      the others' are 0.
    * the forced continue after a shortcut: column 0 only.

    :meth:`dominated` gives the moves another move beats whatever happens
    (:mod:`~kakurega.agents.heuristics.summer_dominance`); it reads the same
    observation and builds nothing the features need (the public weights are
    made at the first features asked), so a bot that reads no features pays
    only for the proofs.
    """

    PER_ACTION = 8

    def __init__(self, context: AgentContext):
        game = context.new_rules()
        if game is None:
            from kakurega.envs.registry import make

            game = make(context.env_name, wrapped=False, **context.env_kwargs).game
        self.game = game
        self.layout = context.layout
        self.size = game.num_actions * self.PER_ACTION
        self._rows = np.array([r for r, _c in game.map.squares], dtype=np.intp)
        self._cols = np.array([c for _r, c in game.map.squares], dtype=np.intp)
        #: the flat cell of each square in a map plane, and the square of each cell (-1: terrain)
        self._cells = self._rows * game.map.width + self._cols
        self._square_of_cell = np.full(game.map.height * game.map.width, -1, dtype=np.intp)
        self._square_of_cell[self._cells] = np.arange(game.num_squares)
        #: the flat slices of the observation pieces :meth:`dominated` reads
        self._phase_at, self._belief_at, self._pieces_at, self._stroke_at = (
            self.layout.slice(name) for name in ("phase", "belief", "pieces", "stroke"))
        #: the flat slices of the pieces the features read (each decision reads the vector itself), of
        #: CHILD_PIECES, the cells of the squares in the belief plane and in each plane of the pieces
        self._at = {name: self.layout.slice(name) for name in ("last_cost", "last_icons", "turn_icons", "budget_left")}
        self._child_at = [self.layout.slice(name) for name in CHILD_PIECES]
        self._belief_cells = self.layout.pieces["belief"].start + self._cells
        planes = self.layout.pieces["pieces"]
        self._piece_cells = planes.start + np.arange(planes.shape[0])[:, None] * self._square_of_cell.size + self._cells
        #: (stroke, pieces, legal actions) -> the dominated lines there: at most STUCK_CACHE_SIZE child positions
        self._stuck_cache: dict[tuple, tuple[int, ...]] = {}
        self._public_weights_model = None
        self._max_vp = max(1, max(game.square_vp))
        self._seekers = game.num_players - 1
        #: (belief bytes, legal starts bytes) -> the start rows (at most START_ROWS_SIZE; shared by the
        #: configuration's features: a function of public facts, the same for every seat)
        self._start_cache: dict[tuple[bytes, bytes], np.ndarray] = shared_tables(game).setdefault("start_rows", {})
        self._turn_walks = None  # the walks of the seekers' weights of the last child turn (see _child_rows)
        #: the plans of the last child turn: ((blocked, walks key), the stroke they start from, its announcement,
        #: TurnPlans, P(found) at each plan's end)
        self._kept_turn = None
        self._last_stroke: tuple = (None, None)  # (stroke plane bytes, read_stroke of it): the last stroke read
        #: (legal actions, CHILD_PIECES) -> (legal actions, their rows): at most CHILD_CACHE_SIZE child positions
        self._child_cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        #: (cost, icons) -> the walks of that announcement from every square (at most ANNOUNCEMENTS_CACHE_SIZE)
        self._announcement_walks: dict[tuple, np.ndarray] = {}

    @property
    def _weights(self) -> PublicWeights:
        """The heuristic's walk counts (built at first use: :meth:`dominated` never needs them)."""
        if self._public_weights_model is None:
            self._public_weights_model = PublicWeights(self.game)
        return self._public_weights_model

    # ------------------------------------------------------------- decoding
    def _pieces(self, vector: np.ndarray) -> np.ndarray:
        """The squares of this turn's pieces (the sum of the pieces' planes > 0), as a 0/1 float vector."""
        return (vector[self._piece_cells].sum(axis=0) > 0).astype(float)

    def _bits(self, planes: np.ndarray) -> int:
        """The squares where any of the flat map planes ``planes`` is non-zero, as a bitmask (terrain cells are 0
        in every plane). A square set in several planes (two seekers' pieces on one square) counts once."""
        cells = planes.nonzero()[0]
        return sum(1 << s for s in set(self._square_of_cell[cells % self._square_of_cell.size].tolist()))

    def _read_stroke(self, plane: np.ndarray) -> tuple[list[int], int, int]:
        """:func:`read_stroke` of the flat stroke plane ``plane`` (the features and then :meth:`dominated` read
        the same observation: the last one is kept)."""
        key = plane.tobytes()
        if self._last_stroke[0] != key:
            self._last_stroke = (key, read_stroke(self.game, plane[self._cells]))
        stroke, visited, drawn = self._last_stroke[1]
        return list(stroke), visited, drawn

    def _belief(self, observation: dict) -> np.ndarray:
        """The public belief: 1.0 on the squares where the child may be."""
        return (observation["observation"][self._belief_cells] > 0).astype(float)

    def _walks_of(self, cost: int, icons: tuple[int, ...], like: np.ndarray) -> np.ndarray:
        """The walks of the announcement ``(cost, icons)`` from every square (read-only: remembered)."""
        walks = self._announcement_walks.get((cost, icons))
        if walks is None:
            walks = self._weights.propagate(np.ones_like(like), cost, icons, np.zeros_like(like))
            walks = remember(self._announcement_walks, (cost, icons), walks, ANNOUNCEMENTS_CACHE_SIZE)
        return walks

    def _counts(self, observation: dict, name: str) -> tuple[int, ...]:
        """An icon-count piece as a sorted tuple of icon types."""
        counts = observation["observation"][self._at[name]].tolist()
        return tuple(i for i, k in enumerate(counts) for _ in range(int(round(k))))

    def _public_weights(self, observation: dict, belief: np.ndarray) -> np.ndarray:
        """Walks of the last announcement from every square, times the belief, summing to 1."""
        cost_plane = observation["observation"][self._at["last_cost"]]
        weights = belief
        if cost_plane.any():
            weights = self._walks_of(int(cost_plane.argmax()), self._counts(observation, "last_icons"), belief) * belief
            if weights.sum() <= 0:
                weights = belief
        total = weights.sum()
        return weights / total if total > 0 else weights

    # ------------------------------------------------------------- dominance
    @staticmethod
    def proves_dominance(game) -> bool:
        """Whether :meth:`dominated` can prove anything under ``game``'s options (a cut-off game must be scored:
        v0's defaults prove nothing, see :mod:`~kakurega.agents.heuristics.summer_dominance`)."""
        return proves(game)

    def dominated(self, observation: dict) -> np.ndarray | None:
        """The actions another legal action beats whatever happens (a mask, never every legal action), or None:
        beside a sure find, every other placement; a stuck line beside a free choice with as many VP."""
        vector, mask = observation["observation"], observation["action_mask"]
        if not mask.any():  # a seat that does not act (its stroke is not its own to read): nothing to prove
            return None
        phase = vector[self._phase_at]
        if phase[2] > 0:  # the seekers' turn: a one-square belief first (cheap), then the pieces of the turn
            belief = vector[self._belief_at]
            if np.count_nonzero(belief) != 1:
                return None
            action = sure_find(self.game, self._bits(belief), self._bits(vector[self._pieces_at]))
            if action is None or not mask[action]:
                return None
            beaten = np.asarray(mask, dtype=bool).copy()
            beaten[action] = False
            return beaten
        if phase[1] <= 0 or (self.game.continue_action >= 0 and mask[self.game.continue_action]):
            return None
        stroke, pieces = vector[self._stroke_at], vector[self._pieces_at]
        key = (stroke.tobytes(), pieces.tobytes(), np.asarray(mask).tobytes())
        bad = self._stuck_cache.get(key)
        if bad is None:
            path, visited, drawn = self._read_stroke(stroke)
            bad, _best = stuck_lines(self.game, path[-1], visited, drawn, self._bits(pieces), legal_ids(mask))
            bad = remember(self._stuck_cache, key, bad, STUCK_CACHE_SIZE)
        if not bad:
            return None
        beaten = np.zeros(len(mask), dtype=bool)
        beaten[list(bad)] = True
        return beaten

    # ------------------------------------------------------------- features
    def __call__(self, observation: dict) -> np.ndarray:
        game = self.game
        rows = np.zeros((game.num_actions, self.PER_ACTION), dtype=np.float32)
        mask = np.asarray(observation["action_mask"], dtype=bool)
        legal = mask.nonzero()[0]
        if legal.size == 0:
            return rows.ravel()
        rows[legal, 0] = 1
        phase = int(observation["observation"][self._phase_at].argmax())
        if phase == 2:
            self._seeker_rows(observation, self._belief(observation), rows)
        elif phase == 1:
            if not (legal.size == 1 and legal[0] == game.continue_action):
                self._child_rows(observation, mask, rows)
        else:
            self._start_rows(self._belief(observation), legal, rows)
        return rows.ravel()

    def _seeker_rows(self, observation: dict, belief: np.ndarray, rows: np.ndarray) -> None:
        game = self.game
        size = belief.sum()
        weights = self._public_weights(observation, belief)
        covered = self._pieces(observation["observation"])
        place = slice(game.place_base, game.place_base + game.num_squares)
        rows[place, 1] = belief
        rows[place, 2] = belief / size if size else 0.0
        rows[place, 3] = weights / weights.max() if weights.max() > 0 else 0.0
        rows[place, 4] = covered

    def _child_rows(self, observation: dict, mask: np.ndarray, rows: np.ndarray) -> None:
        """The child's rows (see the class docstring), remembered by the pieces of the observation they read."""
        vector = observation["observation"]
        key = (mask.tobytes(),) + tuple(vector[at].tobytes() for at in self._child_at)
        known = self._child_cache.get(key)
        if known is None:
            self._measure_child(observation, self._belief(observation), mask, rows)
            legal = mask.nonzero()[0]
            known = remember(self._child_cache, key, (legal, rows[legal]), CHILD_CACHE_SIZE)
        rows[known[0]] = known[1]

    def _measure_child(self, observation: dict, belief: np.ndarray, mask: np.ndarray, rows: np.ndarray) -> None:
        """Fill the rows of the child's legal actions."""
        game = self.game
        vector = observation["observation"]
        stroke, visited, drawn = self._read_stroke(vector[self._stroke_at])
        pieces = self._pieces(vector)
        blocked = sum(1 << s for s in pieces.nonzero()[0].tolist())
        budget = int(round(float(vector[self._at["budget_left"]][0])))
        icons = tuple(sorted(self._counts(observation, "turn_icons")))
        base = self._public_weights(observation, belief)
        # the seekers' weights after each announcement: one walk programme shared by every announcement and
        # every decision of the turn (same base, pieces), whose weights are those of one programme per announcement
        turn = (base.tobytes(), pieces.tobytes())
        if self._turn_walks is None or self._turn_walks.key != turn:
            self._turn_walks = Walks(self._weights, base, pieces, key=turn)
        plans, node, found = self._turn_plans(stroke, visited, drawn, blocked, budget, icons)
        # the plans from here: this position's plan and those through it, or every plan when this position is
        # their start and not a plan itself (a first line is required)
        lo, hi = (node, plans.ends[node]) if node >= 0 else (0, len(plans.paths))
        gains = plans.gains[lo:hi] - (plans.gains[node] if node >= 0 else 0.0)  # VP from here (whole numbers)
        stuck = plans.stuck[lo:hi]
        # each plan's score from here, the search's arithmetic
        values = np.where(stuck, gains, gains + (1.0 - found[lo:hi]) * FUTURE_VALUE + plans.mobility[lo:hi])
        best: dict[int, tuple[float, float]] = {}  # action -> (its best plan's score, P(found) at that plan's end)
        if mask[game.stop_action] and node >= 0:
            best[game.stop_action] = (float(values[0]), float(found[node]))
            rows[game.stop_action, 3] = min(plans.exits[node], 4) / 4
            rows[game.stop_action, 4] = found[node]
        ends, squares, all_exits, square_vp = plans.ends, plans.square_list, plans.exits, game.square_vp
        lines, columns = [], []  # the legal lines' actions and their columns 1-4, written at once
        j = node + 1 if node >= 0 else 0
        while j < hi:  # the first line of each plan from here, in the search's order
            q = squares[j]
            action = game.line_base + q
            if mask[action]:
                exits = all_exits[j]
                lines.append(action)
                columns.append((square_vp[q] / self._max_vp, float(exits == 0), min(exits, 4) / 4, found[j]))
                top = j + int(values[j - lo:ends[j] - lo].argmax())  # the first best plan through this line
                best[action] = (float(values[top - lo]), float(found[top]))
            j = ends[j]
        if lines:
            rows[lines, 1:5] = columns
        self._plan_columns(best, rows)

    def _turn_plans(self, stroke: list[int], visited: int, drawn: int, blocked: int, budget: int, icons: tuple):
        """(TurnPlans, this position's plan in them or -1 for their start when it is none, P(found) at each
        plan's end, by the turn's walks).

        The plans of the first decision of a turn met serve its later decisions: the plans from a later position
        are those through it (:class:`TurnPlans` keeps them together), scored from there."""
        walks, spent = self._turn_walks, BUDGET - budget
        kept = self._kept_turn
        if kept is not None and kept[0] == (blocked, walks.key) and stroke[:len(kept[1])] == kept[1]:
            _key, start, start_announcement, plans, found = kept
            path = tuple(stroke[len(start):])
            if not path and start_announcement == (spent, icons):
                return plans, plans.node_of(()), found
            node = plans.node_of(path) if path else -1
            if node >= 0 and plans.plan_announcements[node] == (spent, icons):
                return plans, node, found
        plans = TurnPlans(self.game, stroke[-1], visited, drawn, blocked, budget, icons, spent)
        found = np.ones(len(plans.paths))
        if plans.announcements:
            heard = walks.heard_all(plans.announcements)
            found = np.where(plans.stuck, 1.0, np.minimum(1.0, self._seekers * heard[plans.announcement, plans.squares]))
        self._kept_turn = ((blocked, walks.key), list(stroke), (spent, icons), plans, found)
        return plans, plans.node_of(()), found

    def _start_rows(self, belief: np.ndarray, legal: np.ndarray, rows: np.ndarray) -> None:
        key = (belief.tobytes(), legal.tobytes())
        start_rows = self._start_cache.get(key)
        if start_rows is None:  # (a pure function of public facts that repeat every round: kept)
            game = self.game
            start_rows = np.zeros_like(rows)
            weights = belief / belief.sum() if belief.sum() > 0 else belief
            walks = Walks(self._weights, weights, np.zeros_like(weights))  # every start's first turn reads them
            best: dict[int, tuple[float, float]] = {}
            for action in legal:
                square = int(action)
                start_rows[action, 3] = min(len(game.open_lines(square, 1 << square, 0, 0, BUDGET)), 4) / 4
            heard = 0
            for square in searched_starts(game, tuple(int(action) for action in legal)):
                if heard >= START_ANNOUNCEMENTS:
                    break
                value, announcements = self._best_first_turn(square, walks)
                best[square] = (value, 0.0)
                heard += announcements
            self._plan_columns(best, start_rows)
            start_rows.flags.writeable = False
            remember(self._start_cache, key, start_rows, START_ROWS_SIZE)
        rows[:, 1:] = start_rows[:, 1:]

    def _best_first_turn(self, start: int, walks: Walks) -> tuple[float, int]:
        """The heuristic's score of the best first turn from ``start`` (no piece stands in a round's first turn),
        and the number of announcements its plans make. ``walks``: the seekers' weights after each (read once
        for all of them, in one walk programme)."""
        game = self.game
        best = [0.0]
        ends = []  # (announcement, end square, VP, lines open) of each plan not stuck

        def search(p, vis, drw, left, cost, reached, gain, first):
            options = game.open_lines(p, vis, drw, 0, BUDGET)
            if not (first and options and game.must_move):
                if not options:
                    best[0] = max(best[0], gain)
                else:
                    ends.append(((cost, tuple(sorted(reached))), p, gain, len(options)))
            for q, bit, lid, k in options:
                if k <= left:
                    icon = game.icon_of[q]
                    search(q, vis | bit, drw | (1 << lid), left - k, cost + k,
                           reached + (icon,) if icon >= 0 else reached, gain + game.square_vp[q], False)

        search(start, 1 << start, 0, BUDGET, 0, (), 0.0, True)
        announcements = list(dict.fromkeys(announcement for announcement, *_rest in ends))
        if announcements:
            heard = dict(zip(announcements, walks.heard_all(announcements)))
            for announcement, p, gain, exits in ends:
                found = min(1.0, self._seekers * float(heard[announcement][p]))
                best[0] = max(best[0], gain + (1.0 - found) * FUTURE_VALUE + MOBILITY * min(exits, 4))
        return best[0], len(announcements)

    @staticmethod
    def _plan_columns(best: dict[int, tuple[float, float]], rows: np.ndarray) -> None:
        """Columns 5-7 from each action's best plan: its P(found), its score / the best, the best action(s)."""
        if not best:
            return
        top = max(value for value, _found in best.values())
        rows[list(best), 5:8] = [(found, value / top if top > 0 else 0.0, float(value >= top - 1e-9))
                                 for value, found in best.values()]
