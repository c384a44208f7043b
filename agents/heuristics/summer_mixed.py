"""Summer Hide-and-Seek: the child's turns as a mixed strategy, for bots a best response would otherwise read.

A network played greedily is a fixed function of what it sees, and Summer
has no chance: the child's every stroke then follows from the public moves,
and a seeker that has learnt it places its piece on the child at once (the
approximate best response to the greedy 2-player bot wins every game; see
docs/strength.md, "Mixed play"). A bot whose policy file says ``mix: true``
(or the spec option ``mix=true``) plays its child turns with this class
instead, and its seekers' turns with its network.

At the start of each child turn (the first one with its start square) every
way to finish the turn is enumerated under the exact rules
(:class:`~kakurega.agents.heuristics.summer_hide_and_seek.TurnPlans`; with
the start square, from every start, or from 48 spread over a map of more
path squares: ``summer_plans.searched_starts``, as the heuristic). The
plans are grouped by the announcement they make (cost, icon multiset); an
announcement is worth the mean, over the distinct squares its plans can end
on (the best plan to each), of

    VP reached this turn + MOBILITY * min(exits, 4) + (1 - P(found)) * FUTURE_VALUE

with ``P(found) = min(1, seekers / ends)``, ``ends`` the number of those
squares: seekers who know this strategy, but not where the child is, find it
with probability ``1 / ends`` each at best. The child makes the best
announcement (ties broken at random) and ends on one of its squares drawn
uniformly, by the best plan there. Squares with fewer than ``MIN_EXITS`` lines
open from them (where the stuck rule is near) are left out while another
square is not; a plan that ends stuck is played only when no other is left.
The constants are the heuristic's (``FUTURE_VALUE``, ``MOBILITY``).

It reads the seat's observation only (its own stroke, the pieces, its
budget) and draws from the generator it is handed at each decision.
"""

from __future__ import annotations

import numpy as np

from kakurega.agents.base import AgentContext
from kakurega.agents.heuristics.summer_hide_and_seek import (
    FUTURE_VALUE,
    MOBILITY,
    TurnPlans,
    read_stroke,
    shared_tables,
    turn_actions,
)
from kakurega.agents.heuristics.summer_plans import searched_starts
from kakurega.envs.core.cache import remember
from kakurega.envs.summer_hide_and_seek.rules import BUDGET

#: an end square needs this many open lines to be drawn among its announcement's squares (when one has them)
MIN_EXITS = 2
#: first-turn plan groups kept, by legal start squares (the same every round), shared by every mixed child of a
#: configuration (public facts: every start square's plans)
START_GROUPS_SIZE = 8
#: later turns' plan groups kept per agent, by the child's position (the first met; its own secret, never shared):
#: evaluation replays positions, 29 % of the turns of 800 games of 2 players against the heuristic
TURN_GROUPS_SIZE = 1024
PHASE_START, PHASE_CHILD = 0, 1  #: the observation's ``phase`` one-hot: start square, child's turn


class SummerMixedChild:
    """The child's decisions of one seat, drawn as described in the module docstring.

    :meth:`act` returns the action for a child decision and None for every other (a seeker's, which the
    network takes); :meth:`reset` forgets the turn's plan (a new game).
    """

    def __init__(self, context: AgentContext):
        game = context.new_rules()
        if game is None:
            from kakurega.envs.registry import make

            game = make(context.env_name, wrapped=False, **context.env_kwargs).game
        self.game = game
        self.context = context
        self.seekers = game.num_players - 1
        squares = game.map.squares
        self._rows = np.array([r for r, _c in squares], dtype=np.intp)
        self._cols = np.array([c for _r, c in squares], dtype=np.intp)
        #: legal start squares -> the groups of the first turn's plans from them (the same every round; shared)
        self._start_groups: dict = shared_tables(game).setdefault("start_groups", {})
        #: the child's position -> the groups of its turn's plans, None when it has none (at most TURN_GROUPS_SIZE)
        self._turn_groups: dict = {}
        self.reset()

    def reset(self) -> None:
        self._plan: list[int] = []  # the rest of this turn's actions

    def _piece(self, observation: dict, name: str) -> np.ndarray:
        return self.context.layout.view(observation["observation"], name)

    def act(self, observation: dict, rng: np.random.Generator) -> int | None:
        """The child's action here, or None when the seat is not the child choosing (the network's decision);
        draws from ``rng`` (the agent's generator of the moment)."""
        if self._piece(observation, "child")[0] != 1:
            return None
        phase = int(np.argmax(self._piece(observation, "phase")))
        mask = observation["action_mask"]
        if phase == PHASE_START:
            starts = tuple(int(s) for s in np.flatnonzero(mask))
            groups = self._start_groups.get(starts)
            if groups is None:  # the same in every round's start: one enumeration per agent
                groups = remember(self._start_groups, starts,
                                  self._groups([(self._first_turn(s), s) for s in searched_starts(self.game, starts)]),
                                  START_GROUPS_SIZE)
            start, path = self._draw(groups, rng)
            self._plan = turn_actions(self.game, start, path, BUDGET)
            return start
        if phase != PHASE_CHILD:
            return None
        budget = int(round(float(self._piece(observation, "budget_left")[0])))
        if self._plan and budget < BUDGET and mask[self._plan[0]]:
            return self._plan.pop(0)  # the turn's plan goes on
        legal = np.flatnonzero(mask)
        stroke, visited, drawn = read_stroke(self.game, self._piece(observation, "stroke")[self._rows, self._cols])
        if self._plan and len(stroke) == 1 and budget == BUDGET and self._plan[0] in legal:
            return self._plan.pop(0)  # the first line of the plan chosen with the start square
        pieces = self._piece(observation, "pieces").sum(axis=0)[self._rows, self._cols]
        blocked = 0
        for s in np.flatnonzero(pieces > 0):
            blocked |= 1 << int(s)
        counts = self._piece(observation, "turn_icons")
        icons = tuple(i for i, k in enumerate(counts) for _ in range(int(round(float(k)))))
        key = (stroke[-1], visited, drawn, blocked, budget, icons)
        groups = self._turn_groups.get(key, False)
        if groups is False:  # a position not met: its plans (None: there are none)
            plans = TurnPlans(self.game, stroke[-1], visited, drawn, blocked, budget, icons, BUDGET - budget)
            groups = remember(self._turn_groups, key, self._groups([(plans, stroke[-1])]) if plans.paths else None,
                              TURN_GROUPS_SIZE)
        if groups is None:
            return int(rng.choice(legal))
        _start, path = self._draw(groups, rng)
        actions = turn_actions(self.game, stroke[-1], path, budget)
        # no budget left (a shortcut's "continue", met without this turn's plan: after a reset or out of order),
        # or a move the rules TurnPlans enumerates would not allow: a legal move, never an illegal one
        if not actions or actions[0] not in legal:
            self._plan = []
            return int(rng.choice(legal))
        self._plan = actions[1:]
        return actions[0]

    def _first_turn(self, start: int) -> TurnPlans:
        return TurnPlans(self.game, start, 1 << start, 0, 0, BUDGET, (), 0)

    def _groups(self, options: list[tuple[TurnPlans, int]]):
        """The plans of ``options`` (each: the plans from one start square) as ``(best, stuck)``: the squares of
        the best announcements, ``[{end square: (value, start, path)}]`` (several when tied), or the best stuck
        plan ``(start, path)`` when every plan ends stuck."""
        ends: dict[tuple, dict[int, tuple[float, int, tuple]]] = {}  # announcement -> end -> best plan there
        cramped: dict[tuple, dict[int, tuple[float, int, tuple]]] = {}
        stuck: list[tuple[float, int, tuple]] = []
        roomy = MOBILITY * MIN_EXITS - 1e-9
        for plans, start in options:
            # (from the plans' lists: a value is the same float as from their arrays, gain + mobility)
            paths = plans.paths
            for i, (q, exits, gain, announcement) in enumerate(zip(
                    plans.square_list, plans.exits, plans.gain_list, plans.plan_announcements)):
                if not exits:
                    stuck.append((gain, start, paths[i]))
                    continue
                mobility = MOBILITY * min(exits, 4)
                value = gain + mobility
                squares = (ends if mobility >= roomy else cramped).setdefault(announcement, {})
                known = squares.get(q)
                if known is None or value > known[0]:
                    squares[q] = (value, start, paths[i])
        groups = ends or cramped
        if not groups:
            best = max(stuck, key=lambda plan: plan[0])
            return [], (best[1], list(best[2]))
        scored = []
        for announcement, squares in groups.items():
            found = min(1.0, self.seekers / len(squares))
            values = np.array([plan[0] for plan in squares.values()])
            value = float(np.add.reduce(values) / len(values)) + (1.0 - found) * FUTURE_VALUE  # np.mean's arithmetic
            scored.append((value, announcement))
        top = max(value for value, _ in scored)
        return [groups[a] for value, a in scored if value >= top - 1e-9], None

    @staticmethod
    def _draw(groups, rng: np.random.Generator) -> tuple[int, list[int]]:
        """(start, path): a best announcement, then its end square, drawn uniformly (see :meth:`_groups`)."""
        best, stuck = groups
        if not best:
            return stuck
        squares = best[int(rng.integers(len(best)))]
        end = list(squares)[int(rng.integers(len(squares)))]
        _value, start, path = squares[end]
        return start, list(path)
