"""Rule-based player of Summer Hide-and-Seek, for both roles, from its own observation only.

**Child.** At each turn it enumerates every legal sequence of lines it could
still draw this turn (exact rules: crossing, revisits, pieces, budget) and
scores each ending by

    VP reached this turn
    + (1 - P(found)) * FUTURE_VALUE + MOBILITY * min(exits, 4)

where ``P(found) = min(1, seekers / |belief after the announcement|)``: the
belief the seekers will hold after hearing this turn's cost and icon multiset
(computed with the same public-belief model as the env, from the belief plane
of its observation), and ``exits`` counts the lines still open from the end
square (few exits: the stuck rule ends the round). An ending that is stuck
loses the future value. The best plan is followed for the rest of the turn.
The start square is the path square whose best first turn scores highest
(ties and near-ties broken at random).

**Seeker.** Places its piece on a square of the public belief that no other
seeker has covered this turn (uniformly at random among them), so seekers
spread over different squares; when every belief square is covered it picks
any belief square.
"""

from __future__ import annotations

import numpy as np

from kakurega.agents.base import Agent, AgentContext
from kakurega.envs.summer_hide_and_seek.belief import iter_bits
from kakurega.envs.summer_hide_and_seek.rules import BUDGET

FUTURE_VALUE = 8.0  #: VP a child still hidden is worth (later turns), in the plan score
MOBILITY = 0.4  #: bonus per open exit (up to 4) of the plan's end square
START_SHORTLIST = 4  #: the start is drawn among this many best-scoring path squares


class SummerHideAndSeekHeuristic(Agent):
    """Heuristic child and seeker (see module docstring)."""

    def __init__(self, context: AgentContext, seed: int | None = None):
        super().__init__(context, seed)
        game = context.new_rules()
        if game is None:
            from kakurega.envs.summer_hide_and_seek_v0 import raw_env

            game = raw_env(**context.env_kwargs).game
        self.game = game
        self.n = game.num_players
        m = game.map
        self._rows = [r for r, _c in m.squares]
        self._cols = [c for _r, c in m.squares]
        self._plan: list[int] = []
        self._plan_turn = None  # (round, child turns announced): the turn the plan was made for

    def reset(self) -> None:
        self._plan = []
        self._plan_turn = None

    # ------------------------------------------------------------- decoding
    def _mask(self, plane: np.ndarray) -> int:
        values = plane[self._rows, self._cols]
        mask = 0
        for s in np.flatnonzero(values > 0):
            mask |= 1 << int(s)
        return mask

    def act(self, observation: dict, sampler=None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("SummerHideAndSeekHeuristic.act: no legal action (is it this agent's turn?)")
        phase = int(np.argmax(self.piece(observation, "phase")))
        i_am_child = self.piece(observation, "child")[0] == 1
        if not i_am_child or phase == 2:
            return self._seek(observation, legal)
        if phase == 0:
            return self._start(observation, legal)
        turn = (int(np.argmax(self.piece(observation, "round"))), float(self.piece(observation, "child_turns")[0]))
        if self._plan and self._plan_turn == turn and self._plan[0] in legal:
            return self._plan.pop(0)
        self._plan_turn = turn
        return self._child_turn(observation, legal)

    # --------------------------------------------------------------- seeker
    def _seek(self, observation: dict, legal: np.ndarray) -> int:
        game = self.game
        belief = self._mask(self.piece(observation, "belief"))
        covered = self._mask(self.piece(observation, "pieces").sum(axis=0))
        options = list(iter_bits(belief & ~covered)) or list(iter_bits(belief))
        if not options:
            return int(self.rng.choice(legal))
        return game.place_base + int(self.rng.choice(options))

    # ---------------------------------------------------------------- child
    def _start(self, observation: dict, legal: np.ndarray) -> int:
        belief = self._mask(self.piece(observation, "belief"))
        memo: dict = {}  # every start shares the belief and the (empty) blocked set
        scored = []
        for action in legal:
            square = int(action)
            value, _plan = self._best_plan(square, 1 << square, 0, 0, BUDGET, (), belief, 0, memo)
            scored.append((value + 1e-6 * self.rng.random(), square))
        scored.sort(reverse=True)
        shortlist = scored[:START_SHORTLIST]
        return int(shortlist[int(self.rng.integers(len(shortlist)))][1])

    def _child_turn(self, observation: dict, legal: np.ndarray) -> int:
        game = self.game
        order = self.piece(observation, "stroke")[self._rows, self._cols]
        stroke = [int(s) for s in sorted(np.flatnonzero(order > 0), key=lambda s: order[s])]
        visited = drawn = 0
        for s in stroke:
            visited |= 1 << s
        for p, q in zip(stroke, stroke[1:]):
            drawn |= 1 << game.line_between(p, q)[0]
        blocked = self._mask(self.piece(observation, "pieces").sum(axis=0))
        budget = int(round(float(self.piece(observation, "budget_left")[0])))
        counts = self.piece(observation, "turn_icons")
        icons = tuple(sorted(i for i, k in enumerate(counts) for _ in range(int(round(float(k))))))
        belief = self._mask(self.piece(observation, "belief"))
        _value, plan = self._best_plan(stroke[-1], visited, drawn, blocked, budget, icons, belief, BUDGET - budget)
        actions = [game.line_base + q for q in plan] + [game.stop_action]
        self._plan = actions[1:]
        first = actions[0]
        return first if first in legal else int(self.rng.choice(legal))

    def _best_plan(self, start, visited, drawn, blocked, budget, icons, belief, spent, memo=None):
        """(score, list of target squares) of the best way to finish this turn from ``start``.

        ``memo`` caches belief sizes by announcement; share it only between
        calls with the same ``belief`` and ``blocked``.
        """
        game = self.game
        seekers = self.n - 1
        belief_size: dict = {} if memo is None else memo
        best = [-1e9, []]
        path: list[int] = []
        square_vp = game.square_vp

        def evaluate(cost, reached, exits, gain):
            if not exits:
                value = gain  # stuck: the round ends, no future
            else:
                key = (cost, tuple(sorted(reached)))
                size = belief_size.get(key)
                if size is None:
                    size = game.belief_model.propagate(belief, cost, key[1], blocked).bit_count()
                    belief_size[key] = size
                found = min(1.0, seekers / max(size, 1))
                value = gain + (1.0 - found) * FUTURE_VALUE + MOBILITY * min(exits, 4)
            if value > best[0]:
                best[0], best[1] = value, list(path)

        def search(p, vis, drw, left, cost, reached, gain):
            # every line open from p, whatever the budget: none means stuck (the turn ends here)
            options = game.open_lines(p, vis, drw, blocked, BUDGET)
            evaluate(cost, reached, len(options), gain)
            if not options:
                return
            for q, bit, lid, k in options:
                if k > left:
                    continue
                path.append(q)
                icon = game.icon_of[q]
                search(
                    q, vis | bit, drw | (1 << lid), left - k, cost + k,
                    reached + (icon,) if icon >= 0 else reached, gain + square_vp[q],
                )
                path.pop()

        search(start, visited, drawn, budget, spent, icons, 0)
        return best[0], best[1]
