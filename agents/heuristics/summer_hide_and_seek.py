"""Rule-based player of Summer Hide-and-Seek, for both roles, from its own observation only.

Both roles keep the **public weights**: over the squares where the child can
be, how many walks (sequences of lines under the static rules) explain every
announcement so far, starting from a uniform weight on the path squares.
After each announcement (cost, icon multiset) the weights are carried
through every walk that costs exactly that and reaches exactly those icons,
never ending a line on a square that held a piece (the pieces during that
turn), and then multiplied by the public belief plane of the observation
(which removes wrong guesses). This is the public belief with a count of how
many ways lead to each square; the cost bounds how far the child can be from
every square it could have been on, and squares reached by many walks weigh
more. A player updates them once per announcement; one that missed an
announcement (it joined mid-round), or past the observation's child-turn
counter cap, falls back to uniform weights on the belief.

**Seeker.** Places its piece, uniformly at random, on a *plausible* square
that no other seeker covers this turn: one whose weight is at least a fifth of
the average weight over the belief. Pruning the implausible squares uses the
weights; not aiming at the heaviest square keeps the seeker from being
predictable: a child that knows the weights (this one) ends its turns on
light squares, and heaviest-first seekers then find it less than half as often
as uniform ones do, although they find a random child more often.

**Child.** At each turn it enumerates every legal sequence of lines it could
still draw this turn (exact rules: crossing, revisits, pieces, budget; at
least one line when the rules say the child must move) and scores each ending
``q`` by

    VP reached this turn
    + (1 - P(found)) * FUTURE_VALUE + MOBILITY * min(exits, 4)

where ``P(found) = min(1, seekers * w'(q) / sum(w'))`` with ``w'`` the public
weights the seekers will hold after hearing this turn's cost and icon
multiset, and ``exits`` counts the lines still open from ``q`` (few exits:
the stuck rule ends the round). An ending that is stuck loses the future
value. The best plan is followed for the rest of the turn (with the forced
continue after each shortcut under ``paced_turns``). The start square is the
path square whose best first turn scores highest (ties and near-ties broken at
random).

**Work per decision.** A turn's search enumerates at most
``summer_plans.MAX_PLANS`` (22,409) plans on any map, and carries the
weights through the announcements they make (one walk programme). The start
square's choice searches one first turn per start: on a map of more than
``summer_plans.START_SEARCHES`` (48) path squares it searches 48 of them,
spread over the map (``summer_plans.searched_starts``), and on a map of many
icon types no more once its searches have made
``summer_plans.START_ANNOUNCEMENTS`` (10,000) announcements; the child
starts on a searched square. So a decision makes at most 48 searches on any
map (pure Python, measured: an open 32 x 32 map of a thousand path squares
took 91-105 s to search them all, 1-2 s now; 32 x 32 maps of 26 icon types
2-3 s; the default map, 34 path squares, all searched, 0.05 s). On maps of
more than ``SPARSE_SQUARES`` (128) squares the walks go through the lines
into each square (at most 8) instead of a product with an S x S matrix.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from kakurega.agents.base import Agent, AgentContext, legal_ids
from kakurega.agents.heuristics.summer_plans import START_ANNOUNCEMENTS, enumerate_plans, searched_starts
from kakurega.envs.core.cache import remember
from kakurega.envs.summer_hide_and_seek.observation import CHILD_TURNS_CAP
from kakurega.envs.summer_hide_and_seek.rules import BUDGET, MOVE_COST, SHORTCUT_COST

FUTURE_VALUE = 8.0  #: VP a child still hidden is worth (later turns), in the plan score
MOBILITY = 0.4  #: bonus per open exit (up to 4) of the plan's end square
START_SHORTLIST = 4  #: the start is drawn among this many best-scoring path squares
#: a seeker considers the squares whose weight is at least this fraction of the average weight
PLAUSIBLE = 0.2
#: start-square scores kept per agent, by (public weights, legal starts): every round starts from the same weights
START_CACHE_SIZE = 8
#: Walks kept per agent, by (weights, blocked squares): those of a round's first turn recur in every round
WALKS_CACHE_SIZE = 8
#: turn plans kept per agent, of positions with no line drawn yet (a round's first turn), by position
PLANS_CACHE_SIZE = 64
#: and at most this many plans in all (about 14 MiB): a first turn on a 32 x 32 map has up to MAX_PLANS (22,409),
#: about 5 MiB of lists, and the start scores search 48; the shipped map's first turns, every start, 11,079 plans
PLANS_CACHE_PLANS = 1 << 16
#: best plans kept per agent, by (position, walks): evaluation replays the same positions with the same weights
DECISIONS_CACHE_SIZE = 1024
#: public weights after an announcement kept per agent, by (weights, blocked squares, announcement)
UPDATES_CACHE_SIZE = 1024
#: walk programmes kept per PublicWeights, by their list of announcements (evaluation asks the same lists again:
#: 139 distinct among 2,483 of 526 games of 4 players)
PROGRAMMES_SIZE = 128
#: and at most this many bytes of programmes per PublicWeights: a programme's offsets take 8 bytes per node and square
#: (the shipped map's largest first turn: 51 KiB, PROGRAMMES_SIZE of them fit; a first turn on a 32 x 32 map of 26
#: icon types: megabytes)
PROGRAMMES_BYTES = 8 << 20
#: numbers each of a Walks' two tables (ends, heard: a row of S numbers per announcement) keeps, 1 MiB: a map of S
#: squares keeps WALK_VALUES // S rows (2,340 on the shipped map, where a Walks met 107 at most; 128 on a 32 x 32
#: map, where a first turn of 26 icon types makes thousands); the rows computed together are kept only if they all
#: fit (one row kept holds the array of them all)
WALK_VALUES = 1 << 17
SOURCES_SIZE = 1024  #: icon multisets whose sources PublicWeights keeps (at most 5 icons: 462 of 6 icon types)
#: configurations whose public tables (:func:`shared_tables`) are kept at module level
SHARED_CONFIGS_SIZE = 8
#: maps of more squares carry the walks through the lines into each square (at most 8) instead of a product with
#: an S x S matrix per node and line cost (a million multiplications on a 32 x 32 map, where a first turn on a
#: map of many icon types asks for a thousand nodes or more: seconds); the shipped maps (56 squares) use the product
SPARSE_SQUARES = 128
_SHARED: dict[tuple, dict[str, dict]] = {}


def shared_tables(game) -> dict[str, dict]:
    """Tables of public facts shared by every agent of ``game``'s configuration in this process (module level).

    Every Summer agent of a configuration computes the same start-square scores and the same public weights
    after each announcement, so one computes them for all. Only what is a function of public facts is kept
    here (the weights, the belief, the legal starts, the announcements and the pieces, which every seat
    sees), never what a seat asks about its own secret: the child's plans from its square stay in its own
    caches. At most SHARED_CONFIGS_SIZE configurations; an agent of another gets tables of its own.
    """
    key = (game.map, game.strict_moves, game.must_move, game.paced_turns, game.num_players)
    tables = _SHARED.get(key)
    if tables is None:
        tables = remember(_SHARED, key, {}, SHARED_CONFIGS_SIZE)
    return tables


class PublicWeights:
    """Walk counts over the squares (see the module docstring): the public belief, weighted."""

    def __init__(self, game):
        S = game.num_squares
        self._game = game
        into: dict = {MOVE_COST: [[] for _ in range(S)], SHORTCUT_COST: [[] for _ in range(S)]}
        for p in range(S):
            for q, _bit, _lid, cost in game.out_lines[p]:
                into[cost][q].append(p)
        #: on a map of more than SPARSE_SQUARES squares, per line cost: row k holds, for each square, the k-th
        #: square with a line of that cost into it (at most one per direction: 8 rows), S (a zero column) where
        #: none; None on smaller maps (their images are the products with ``step``)
        self.into = None
        if S > SPARSE_SQUARES:
            self.into = {cost: np.array([[sources[k] if k < len(sources) else S for sources in lists]
                                         for k in range(max(1, max(map(len, lists))))], dtype=np.intp)
                         for cost, lists in into.items()}
        else:
            self.step  # noqa: B018 (the products read it at every image)
        icon_of = np.asarray(game.icon_of)
        self.path = (icon_of < 0).astype(float)
        self.icon = [(icon_of == i).astype(float) for i in range(len(game.map.icons))]
        self.prior = self.path / self.path.sum()
        #: each square's landing, 0 for a path square, 1 + i for a square of icon i (the ``landing + 1`` of
        #: :meth:`sources`), the number of landings, and what :class:`Walks` reads the squares' images with
        self.landing_of = np.where(icon_of < 0, 0, icon_of + 1).astype(np.intp)
        self.landings = 1 + len(self.icon)
        self.columns = np.arange(S)
        self.zero = np.zeros(S)
        self._sources: dict = {}  # icons reached -> [(icons reached before the last line, its landing)]
        self._programmes: dict = {}  # announcements -> WalkProgramme
        self._programme_bytes = 0  # the bytes of the programmes kept

    @cached_property
    def step(self) -> dict[int, np.ndarray]:
        """Per line cost, the S x S matrix of the lines of that cost (1.0 from p to q): the images of the maps of
        at most SPARSE_SQUARES squares are products with it (built when first asked: on a larger map nothing
        reads it, and two such matrices take 16 MiB on a 32 x 32 map)."""
        game, S = self._game, self._game.num_squares
        step = {cost: np.zeros((S, S)) for cost in (MOVE_COST, SHORTCUT_COST)}
        for p in range(S):
            for q, _bit, _lid, cost in game.out_lines[p]:
                step[cost][p, q] = 1.0
        return step

    def image(self, rows: np.ndarray, cost: int, out: np.ndarray) -> None:
        """``rows @ step[cost]`` into ``out`` on a map of more than SPARSE_SQUARES squares, as the sum over the
        (at most 8) lines of that cost into each square: the same sums as the product's, added in another order."""
        padded = np.concatenate((rows, np.zeros((len(rows), 1))), axis=1)
        into = self.into[cost]
        np.take(padded, into[0], axis=1, out=out)
        for sources in into[1:]:
            out += padded[:, sources]

    def sources(self, reached: tuple[int, ...]) -> list:
        """Where the walks reaching ``reached`` came from before their last line: ``(icons reached then,
        landing)``, landing -1 for a path square, else the icon of the square the last line ended on."""
        sources = self._sources.get(reached)
        if sources is None:
            sources = [(reached, -1)] + [(_without(reached, i), i) for i in sorted(set(reached))]
            sources = remember(self._sources, reached, sources, SOURCES_SIZE)
        return sources

    def programme(self, announcements: tuple) -> WalkProgramme:
        """The :class:`WalkProgramme` of ``announcements`` (kept: at most PROGRAMMES_SIZE lists and
        PROGRAMMES_BYTES bytes)."""
        programme = self._programmes.get(announcements)
        if programme is None:
            programme = WalkProgramme(self, announcements)
            if len(self._programmes) < PROGRAMMES_SIZE and self._programme_bytes + programme.nbytes <= PROGRAMMES_BYTES:
                self._programmes[announcements] = programme
                self._programme_bytes += programme.nbytes
        return programme

    def propagate(self, weights: np.ndarray, cost: int, icons: tuple[int, ...], blocked: np.ndarray) -> np.ndarray:
        """Weights at the end of every walk from ``weights`` costing ``cost`` and reaching exactly ``icons``.

        ``blocked``: 1.0 on squares where no line may end (a piece), else 0.0.
        """
        if cost == 0:
            return weights.copy()
        return Walks(self, weights, blocked).end(cost, tuple(sorted(icons)))


class WalkProgramme:
    """The dynamic programme of :class:`Walks` for a list of announcements: which nodes (cost spent, icons
    reached) each level (cost spent) computes, from which images. A function of the map and the
    announcements only, not of the weights: :meth:`PublicWeights.programme` keeps them.

    Rows of the node table: 0 is zero (no walk reaches the node), 1 the weights, then the nodes, a level
    after the other. The image tables (one per line cost) have the same rows: ``node @ step[cost]``. A
    level computes its nodes, then the images that the levels one and two above it read: each square of a
    node is the image of the cost-1 line plus that of the cost-2 line from the node its landing comes from
    (a path square: the same icons; a square of icon ``i``: the icons without one ``i``), times 1 if a
    line may end there.
    """

    def __init__(self, model: PublicWeights, announcements: tuple):
        sources = model.sources
        need: dict = {}  # node -> whether a walk may reach it
        stack = [(cost, icons) for cost, icons in announcements if cost > 0]
        while stack:
            node = stack.pop()
            if node == (0, ()) or node in need:
                continue
            spent, reached = node
            need[node] = possible = 0 < spent and len(reached) <= spent
            if possible:
                for before, _landing in sources(reached):
                    stack.append((spent - MOVE_COST, before))
                    if spent >= SHORTCUT_COST:
                        stack.append((spent - SHORTCUT_COST, before))
        rows: dict = {(0, ()): 1}  # node -> its row (a node no walk reaches: none, it reads row 0)
        by_level: dict = {0: [(0, ())]}
        for node, possible in need.items():
            if possible:
                by_level.setdefault(node[0], []).append(node)
        self.rows = 2
        for spent in sorted(by_level)[1:]:
            for node in by_level[spent]:
                rows[node], self.rows = self.rows, self.rows + 1
        S = len(model.columns)
        #: per level: its rows (first, end), the flat offset of the cost-1 and of the cost-2 image each square of
        #: its nodes reads (None for the weights), and the line costs whose images the levels above read
        self.levels = []
        for spent in sorted(by_level):
            nodes = by_level[spent]
            images = tuple(cost for cost in (MOVE_COST, SHORTCUT_COST) if spent + cost in by_level)
            if spent == 0:
                self.levels.append((1, 2, None, None, images))
                continue
            index = np.zeros((2, len(nodes), model.landings), dtype=np.int32)
            for n, (_spent, reached) in enumerate(nodes):
                for before, landing in sources(reached):
                    for c, cost in enumerate((MOVE_COST, SHORTCUT_COST)):
                        if spent >= cost:
                            index[c, n, landing + 1] = rows.get((spent - cost, before), 0)
            flat = index[:, :, model.landing_of] * np.int32(S) + model.columns.astype(np.int32)
            first = rows[nodes[0]]
            self.levels.append((first, first + len(nodes), flat[0], flat[1], images))
        #: each announcement's row (cost 0: the weights, whatever the icons)
        self.ends = np.array([1 if cost == 0 else rows.get((cost, icons), 0) for cost, icons in announcements],
                             dtype=np.intp)
        #: the bytes of its arrays (what PublicWeights counts against PROGRAMMES_BYTES)
        self.nbytes = self.ends.nbytes + sum(level[2].nbytes + level[3].nbytes for level in self.levels if level[2] is not None)

    def run(self, model: PublicWeights, weights: np.ndarray, open_squares: np.ndarray) -> np.ndarray:
        """The end weights of each announcement (one row each) from ``weights``; ``open_squares``: 1.0 where
        a line may end."""
        shape = (self.rows, len(weights))
        values, move, shortcut = np.zeros(shape), np.zeros(shape), np.zeros(shape)
        values[1] = weights
        images = {MOVE_COST: move, SHORTCUT_COST: shortcut}
        move_flat, shortcut_flat = move.reshape(-1), shortcut.reshape(-1)
        for first, end, move_index, shortcut_index, costs in self.levels:
            if move_index is not None:
                np.multiply(move_flat.take(move_index) + shortcut_flat.take(shortcut_index), open_squares,
                            out=values[first:end])
            for cost in costs:
                if model.into is None:
                    np.matmul(values[first:end, None, :], model.step[cost], out=images[cost][first:end, None, :])
                else:
                    model.image(values[first:end], cost, images[cost][first:end])
        return values[self.ends]


class Walks:
    """The walks from one set of weights with one blocked set, for any announcement: a dynamic programme
    over (cost spent, icons reached), whose nodes every announcement asked about shares
    (:class:`WalkProgramme`).

    A node's weight on a path square adds the images of two nodes (the lines of cost 1 and of cost 2
    landing there), on an icon square likewise: every square of a node is the sum of at most two
    non-zero terms, so the weights do not depend on the order in which the nodes are added. The images
    of a level are one stacked ``vector @ step`` product: numpy makes one matrix-vector product per row,
    the product of that row alone.
    """

    def __init__(self, model: PublicWeights, weights: np.ndarray, blocked: np.ndarray, key=None):
        self.model = model
        #: (weights bytes, blocked bytes): what the walks are a function of
        self.key = key if key is not None else (weights.tobytes(), blocked.tobytes())
        self.weights = weights
        self._open = 1.0 - blocked  # 1.0 on the squares a line may end on
        self._ends: dict = {}  # (cost, icons) -> end weights (at most ``rows``)
        self._heard: dict = {}  # (cost, icons) -> normalised end weights (at most ``rows``)
        self.rows = max(1, WALK_VALUES // len(weights))  #: the rows each table keeps at most

    def heard(self, cost: int, icons: tuple[int, ...]) -> np.ndarray:
        """:meth:`end`, normalised: what the seekers believe after hearing the announcement ``(cost, icons)``."""
        key = (cost, icons)
        heard = self._heard.get(key)
        if heard is None:
            heard = self.heard_all([key])[0]
        return heard

    def heard_all(self, announcements: list) -> np.ndarray:
        """:meth:`heard` of each announcement ``(cost, icons)``, one row each (those not asked before at once)."""
        heard = self._heard
        missing = tuple(dict.fromkeys(a for a in announcements if a not in heard))
        if missing:
            ends = self._run(missing)
            new = dict(zip(missing, ends / np.maximum(ends.sum(axis=1), 1e-300)[:, None]))
            self._keep(heard, new)
            return np.stack([new[a] if a in new else heard[a] for a in announcements])
        return np.stack([heard[a] for a in announcements])

    def end(self, cost: int, icons: tuple[int, ...]) -> np.ndarray:
        """Weights at the end of the walks costing ``cost`` that reach exactly ``icons`` (sorted; read-only)."""
        if cost == 0:
            return self.weights.copy()
        end = self._ends.get((cost, icons))
        if end is None:
            end = self._run(((cost, icons),))[0]
        return end

    def _run(self, announcements: tuple) -> np.ndarray:
        ends = self.model.programme(announcements).run(self.model, self.weights, self._open)
        self._keep(self._ends, dict(zip(announcements, ends)))
        return ends

    def _keep(self, table: dict, rows: dict) -> None:
        """Add ``rows`` (views of one array) to ``table`` if they all fit in ``self.rows``: one row kept keeps
        the whole array."""
        if len(table) + len(rows) <= self.rows:
            table.update(rows)


def read_stroke(game, order: np.ndarray) -> tuple[list[int], int, int]:
    """The stroke from the observation's stroke plane (``order``: each square's place on it, 0 when off it):
    its squares in drawing order, the mask of the squares it visited and the mask of the lines it drew."""
    on = (order > 0).nonzero()[0]
    stroke = on[order[on].argsort()].tolist()
    visited = drawn = 0
    for s in stroke:
        visited |= 1 << s
    line_between = game.line_between
    for p, q in zip(stroke, stroke[1:]):
        drawn |= 1 << line_between(p, q)[0]
    return stroke, visited, drawn


def turn_actions(game, start: int, path: list[int], budget: int) -> list[int]:
    """The actions that draw ``path`` (target squares) from ``start`` with ``budget`` left this turn, with the
    forced continue after each shortcut under ``paced_turns``, then the stop (none when a paced turn ends spent)."""
    actions, p, spent = [], start, BUDGET - budget
    for q in path:
        actions.append(game.line_base + q)
        cost = game.line_between(p, q)[1]
        spent += cost
        if game.paced_turns and cost == SHORTCUT_COST:
            actions.append(game.continue_action)
        p = q
    if not (game.paced_turns and spent == BUDGET):
        actions.append(game.stop_action)
    return actions


def _without(icons: tuple[int, ...], icon: int) -> tuple[int, ...]:
    i = icons.index(icon)
    return icons[:i] + icons[i + 1 :]


class SummerHideAndSeekHeuristic(Agent):
    """Heuristic child and seeker (see module docstring)."""

    def __init__(self, context: AgentContext, seed: int | None = None):
        super().__init__(context, seed)
        game, layout = context.new_rules(), context.layout
        if game is None or layout is None:
            from kakurega.envs.registry import make

            env = make(context.env_name, wrapped=False, **context.env_kwargs)
            game = env.game if game is None else game
            layout = env.layout if layout is None else layout
        self.game = game
        self.n = game.num_players
        m = game.map
        self._rows = np.array([r for r, _c in m.squares], dtype=np.intp)
        self._cols = np.array([c for _r, c in m.squares], dtype=np.intp)
        #: where the pieces read lie in the flat observation vector: each decision reads the vector itself
        cells = self._rows * m.width + self._cols
        self._at = {name: layout.slice(name) for name in ("phase", "round", "last_cost", "last_icons", "turn_icons")}
        self._child_at, self._turns_at, self._budget_at = (layout.index(name, 0) for name in ("child", "child_turns", "budget_left"))
        #: the cells of the squares in the belief, past guesses and stroke planes, and in each plane of the pieces
        self._cells = {name: layout.pieces[name].start + cells for name in ("belief", "past_guesses", "stroke")}
        planes = layout.pieces["pieces"]
        self._piece_cells = planes.start + np.arange(planes.shape[0])[:, None] * (m.height * m.width) + cells
        self.public_weights = PublicWeights(game)
        shared = shared_tables(game)
        #: (weights bytes, legal starts) -> the best first turn's score from each start (at most START_CACHE_SIZE;
        #: shared by the configuration's heuristics)
        self._start_cache: dict[tuple[bytes, tuple[int, ...]], list[float]] = shared.setdefault("start_values", {})
        #: (weights bytes, blocked bytes) -> Walks (the first WALKS_CACHE_SIZE asked about)
        self._walks_cache: dict[tuple[bytes, bytes], Walks] = {}
        self._last_walks: tuple = (None, None)  # (key, Walks) of the last walks asked for
        #: (weights bytes, blocked bytes, cost, icons) -> public weights after it (the first UPDATES_CACHE_SIZE;
        #: shared by the configuration's heuristics)
        self._updates_cache: dict[tuple, np.ndarray] = shared.setdefault("updates", {})
        #: (position, walks key) -> (score, plan) of the best plan (the first DECISIONS_CACHE_SIZE)
        self._decisions_cache: dict[tuple, tuple[float, list[int]]] = {}
        #: position -> TurnPlans, of positions with no line drawn (the first PLANS_CACHE_SIZE met, and
        #: PLANS_CACHE_PLANS plans in all: _plans_held)
        self._plans_cache: dict[tuple, TurnPlans] = {}
        self._plans_held = 0
        self.reset()

    def reset(self) -> None:
        self._plan: list[int] = []  # the rest of this child turn's plan
        self._weights = None  # public weights, normalised, for (round, child turns announced) = _weights_key
        self._weights_key = None
        self._guessed = None  # past guesses at the last update (a seeker's estimate of the blocking pieces)
        self._blockers = None  # the pieces during my last child turn (the child knows them exactly)

    # ------------------------------------------------------------- decoding
    def _squares(self, vector: np.ndarray, name: str) -> np.ndarray:
        """A map plane of the observation vector as a 0/1 float vector over the squares."""
        return (vector[self._cells[name]] > 0).astype(float)

    def _pieces(self, vector: np.ndarray) -> np.ndarray:
        """The squares of this turn's pieces (the sum of the pieces' planes > 0), as a 0/1 float vector."""
        return (vector[self._piece_cells].sum(axis=0) > 0).astype(float)

    def act(self, observation: dict, sampler=None) -> int:
        legal = legal_ids(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("SummerHideAndSeekHeuristic.act: no legal action (is it this agent's turn?)")
        if legal.size == 1:
            self._update_weights(observation)  # (keeps the weights in step; e.g. the forced continue)
            return int(legal[0])
        vector = observation["observation"]
        phase = int(vector[self._at["phase"]].argmax())
        i_am_child = vector[self._child_at] == 1
        if not i_am_child or phase == 2:
            return self._seek(observation, legal)
        if phase == 0:
            return self._start(observation, legal)
        # a plan made this turn goes on after its first line (budget left < 5: the turn cannot be a new one)
        if self._plan and vector[self._budget_at] < BUDGET and observation["action_mask"][self._plan[0]]:
            return self._plan.pop(0)
        return self._child_turn(observation, legal)

    # -------------------------------------------------------- public weights
    def _update_weights(self, observation: dict) -> np.ndarray:
        """The public weights now, carried through the announcements since the last call."""
        vector = observation["observation"]
        key = (int(vector[self._at["round"]].argmax()), int(round(float(vector[self._turns_at]))))
        if key == self._weights_key:
            return self._weights
        rnd, turns = key
        if turns >= CHILD_TURNS_CAP:
            key = None  # the counter saturates: announcements can no longer be told apart (uniform below)
        belief = self._squares(vector, "belief")
        guessed = self._squares(vector, "past_guesses")
        i_am_child = vector[self._child_at] == 1
        model = self.public_weights
        if turns == 0:
            weights = model.prior
        else:
            if key is not None and self._weights_key == (rnd, turns - 1):
                base = self._weights
            elif key is not None and turns == 1:
                base = model.prior
            else:
                base = None  # an announcement was missed: uniform on the belief below
            if base is not None:
                cost = int(vector[self._at["last_cost"]].argmax())
                counts = vector[self._at["last_icons"]].tolist()
                icons = tuple(i for i, k in enumerate(counts) for _ in range(int(round(k))))
                if turns == 1:
                    blocked = np.zeros_like(belief)  # no piece stands during a round's first child turn
                elif i_am_child and self._blockers is not None:
                    blocked = self._blockers
                elif self._guessed is not None:
                    blocked = guessed * (1.0 - self._guessed)  # the new wrong guesses: the last turn's pieces
                else:
                    blocked = np.zeros_like(belief)
                weights = self._after_announcement(base, blocked, cost, icons)
            else:
                weights = belief
        weights = weights * belief
        total = weights.sum()
        if total <= 0:
            weights, total = belief, belief.sum()
        self._weights = weights / max(total, 1e-300)
        self._weights_key = key
        self._guessed = guessed
        if i_am_child:
            self._blockers = self._pieces(vector)
        return self._weights

    def _after_announcement(self, weights: np.ndarray, blocked: np.ndarray, cost: int, icons: tuple[int, ...]) -> np.ndarray:
        """``weights`` carried through the announcement ``(cost, icons)`` (cached; read-only)."""
        if cost == 0:
            return weights.copy()
        key = (weights.tobytes(), blocked.tobytes(), cost, icons)
        after = self._updates_cache.get(key)
        if after is None:
            # (a copy: the row is a view of the array of every announcement its walks computed with it)
            after = remember(self._updates_cache, key, self._walks(weights, blocked).end(cost, icons).copy(),
                             UPDATES_CACHE_SIZE)
        return after

    def _walks(self, weights: np.ndarray, blocked: np.ndarray) -> Walks:
        """The walks from ``weights`` with ``blocked`` (cached: a round's first turn starts from the same)."""
        key = (weights.tobytes(), blocked.tobytes())
        if self._last_walks[0] == key:  # the child's update after its turn: the walks of its search
            return self._last_walks[1]
        walks = self._walks_cache.get(key)
        if walks is None:
            walks = remember(self._walks_cache, key, Walks(self.public_weights, weights, blocked, key), WALKS_CACHE_SIZE)
        self._last_walks = (key, walks)
        return walks

    # --------------------------------------------------------------- seeker
    def _seek(self, observation: dict, legal: np.ndarray) -> int:
        game = self.game
        weights = self._update_weights(observation)
        covered = self._pieces(observation["observation"])
        free = weights * (1.0 - covered)
        if free.max() <= 0:
            free = weights
        if free.max() <= 0:
            return int(legal[self.rng.integers(len(legal))])  # (the draw of rng.choice(legal))
        plausible = (free >= PLAUSIBLE * free.sum() / np.count_nonzero(free)).nonzero()[0]
        return game.place_base + int(plausible[self.rng.integers(len(plausible))])

    # ---------------------------------------------------------------- child
    def _start(self, observation: dict, legal: np.ndarray) -> int:
        weights = self._update_weights(observation)
        values = self._start_values(weights, tuple(int(a) for a in legal))
        scored = [(value + 1e-6 * self.rng.random(), square) for value, square in zip(values, legal.tolist())]
        scored.sort(reverse=True)
        # the scored starts only (those not searched, or cut short by should_stop, rank last at -inf)
        shortlist = [entry for entry in scored[:START_SHORTLIST] if entry[0] > -math.inf]
        return int(shortlist[int(self.rng.integers(len(shortlist)))][1])

    def _start_values(self, weights: np.ndarray, starts: tuple[int, ...]) -> list[float]:
        """The score of the best first turn from each start square (cached: the same in every round's start).

        Each start costs a search of its first turn's plans (about 90 ms on an open 32 x 32 map, pure Python: a
        minute and a half for its thousand path squares), so at most START_SEARCHES starts are searched, spread
        over the map (:func:`searched_starts`), and no more once the searches have made START_ANNOUNCEMENTS
        announcements (each search counts its own); the others rank last (-inf). The runner's ``should_stop`` (the web app's
        time per move) is asked between searches: once it says stop, the starts not yet scored rank last too and
        nothing is cached.
        """
        key = (weights.tobytes(), starts)
        values = self._start_cache.get(key)
        if values is None:
            walks = self._walks(weights, np.zeros_like(weights))  # every start shares them
            stop = self.should_stop
            at = {s: i for i, s in enumerate(starts)}
            values, heard = [-math.inf] * len(starts), 0
            for n, s in enumerate(searched_starts(self.game, starts)):
                if heard >= START_ANNOUNCEMENTS:
                    break
                if stop is not None and n and stop():
                    return values
                value, _plan, announcements = self._decision((s, 1 << s, 0, 0, BUDGET, (), 0), walks)
                values[at[s]] = value
                heard += announcements
            remember(self._start_cache, key, values, START_CACHE_SIZE)
        return values

    def _child_turn(self, observation: dict, legal: np.ndarray) -> int:
        game = self.game
        weights = self._update_weights(observation)
        vector = observation["observation"]
        stroke, visited, drawn = read_stroke(game, vector[self._cells["stroke"]])
        pieces = self._pieces(vector)
        blocked = sum(1 << s for s in pieces.nonzero()[0].tolist())
        budget = int(round(float(vector[self._budget_at])))
        counts = vector[self._at["turn_icons"]].tolist()
        icons = tuple(sorted(i for i, k in enumerate(counts) for _ in range(int(round(k)))))
        walks = self._walks(weights, pieces)
        _value, plan = self._best_plan(stroke[-1], visited, drawn, blocked, walks, budget, icons, BUDGET - budget)
        actions = turn_actions(game, stroke[-1], plan, budget)
        self._plan = actions[1:]
        first = actions[0]
        return first if observation["action_mask"][first] else int(legal[self.rng.integers(len(legal))])

    def _best_plan(self, start, visited, drawn, blocked, walks, budget, icons, spent):
        """(score, list of target squares) of the best way to finish this turn from ``start``.

        ``walks``: the public weights at the turn's start carried through each
        announcement (with the pieces of this turn blocked). The first best
        plan in the search's order wins.
        """
        decision = self._decision((start, visited, drawn, blocked, budget, icons, spent), walks)
        return decision[0], list(decision[1])

    def _decision(self, key: tuple, walks: Walks) -> tuple[float, list[int], int]:
        """:meth:`_best_of` of the position ``key`` (cached)."""
        decision = self._decisions_cache.get((key, walks.key))
        if decision is None:
            decision = remember(self._decisions_cache, (key, walks.key), self._best_of(key, walks), DECISIONS_CACHE_SIZE)
        return decision

    def _best_of(self, key: tuple, walks: Walks) -> tuple[float, list[int], int]:
        """:meth:`_best_plan` of the position ``key``, and the number of announcements its plans make."""
        start, visited, drawn, blocked, budget, icons, spent = key
        plans = self._plans_cache.get(key)
        if plans is None:
            plans = TurnPlans(self.game, start, visited, drawn, blocked, budget, icons, spent)
            # a round's first turn (and the start scores): they recur in every round
            held = self._plans_held + len(plans.paths)
            if drawn == 0 and len(self._plans_cache) < PLANS_CACHE_SIZE and held <= PLANS_CACHE_PLANS:
                self._plans_cache[key] = plans
                self._plans_held = held
        if not plans.squares.size:
            return -1e9, [], 0
        heard = walks.heard_all(plans.announcements)
        found = np.minimum(1.0, (self.n - 1) * heard[plans.announcement, plans.squares])
        values = np.where(plans.stuck, plans.gains, plans.gains + (1.0 - found) * FUTURE_VALUE + plans.mobility)
        best = int(np.argmax(values))
        return float(values[best]), list(plans.paths[best]), len(plans.announcements)


class TurnPlans:
    """Every way to finish a child turn from one position, in the search's order (depth first, the
    lines in the rules' order): for each, its end square, the turn's announcement, whether the
    child is stuck there, the VP it reaches and the mobility bonus of its end square.

    The score of each plan is then a few array operations, the same arithmetic, plan by plan,
    as the search's: ``gain + (1 - found) * FUTURE_VALUE + MOBILITY * min(exits, 4)``. The plans
    through a plan (its subtree) follow it, so the plans from a later position of the turn are a
    slice (see ``ends``).
    """

    def __init__(self, game, start, visited, drawn, blocked, budget, icons, spent):
        closed = game.closed_lines_at(visited, drawn, blocked)
        squares, paths, announcements, exits, gains, ends = enumerate_plans(
            game, start, closed, budget, spent, tuple(sorted(icons)), game.must_move and spent == 0)
        #: per plan, as lists: its end square, its path (the squares after the start), the lines open from its
        #: end, the VP it reaches and its announcement (cost, sorted icons); the arrays below are built from them
        self.square_list, self.paths, self.exits, self.gain_list = squares, paths, exits, gains
        self.plan_announcements = announcements
        #: the plans through plan i (its path a prefix of theirs) are plans i to ends[i] - 1
        self.ends = ends
        self._nodes: dict | None = None  # path -> plan, built when first asked

    @cached_property
    def squares(self) -> np.ndarray:
        """Each plan's end square."""
        return np.array(self.square_list, dtype=np.intp)

    @cached_property
    def stuck(self) -> np.ndarray:
        """Whether the child is stuck at each plan's end (no line open)."""
        return np.array([e == 0 for e in self.exits], dtype=bool)

    @cached_property
    def gains(self) -> np.ndarray:
        """The VP each plan reaches."""
        return np.array(self.gain_list, dtype=float)

    @cached_property
    def mobility(self) -> np.ndarray:
        """The mobility bonus of each plan's end, ``MOBILITY * min(exits, 4)``."""
        return np.array([MOBILITY * min(e, 4) for e in self.exits], dtype=float)

    @cached_property
    def announcements(self) -> list:
        """The announcements of the plans not stuck, each once (a stuck plan's is never heard: see
        :attr:`announcement`)."""
        rows: dict = {}
        for announcement, exits in zip(self.plan_announcements, self.exits):
            if exits and announcement not in rows:
                rows[announcement] = len(rows)
        if not rows and self.plan_announcements:
            rows[self.plan_announcements[0]] = 0
        return list(rows)

    @cached_property
    def announcement(self) -> np.ndarray:
        """Each plan's row in :attr:`announcements` (a stuck plan's may be row 0)."""
        rows = {a: i for i, a in enumerate(self.announcements)}
        return np.array([rows.get(a, 0) for a in self.plan_announcements], dtype=np.intp)

    def node_of(self, path: tuple[int, ...]) -> int:
        """The plan that draws ``path`` (from the start), -1 when there is none."""
        if self._nodes is None:
            self._nodes = {p: i for i, p in enumerate(self.paths)}
        return self._nodes.get(path, -1)
