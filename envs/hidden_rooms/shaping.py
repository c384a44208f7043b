"""Optional potential-based reward shaping for Hidden Rooms (the env's ``shaping`` option).

Uniformly random play never escapes, so a learner that starts random never
sees a positive reward. ``shaping=k`` (0 < k <= 1) adds, on every step, the
change of a potential ``k * phi(table)`` (Ng, Harada & Russell 1999, with
gamma = 1): ``r' = r + k * (phi(s') - phi(s))``. The potential reads only what
the child sees (the placed tiles and its own cell) and measures progress toward
the exit in [0, 1]::

    phi = (child term + frontier term) / 2
    child term    = (8 - d(child)) / 8
    frontier term = (8 - min d(c) over the explored cells c connected to the child's cell) / 8

where ``d`` is the Manhattan distance to the exit (0, 0) (8 from the start
cell). Placing a tile that brings the reachable explored area closer to the
exit raises the frontier term; walking toward the exit raises the child term.
A round's first table has ``phi = 0``; the escape table (the child on the
exit) has ``phi = 1``; any other table has ``phi <= 15/16``.

``phi`` is a function of the table, and the table of the finished episode
keeps its potential (it is not set to 0). So the shaped rewards of an episode
sum to its unshaped return plus ``k * phi(final table)``: an escaped round
returns ``1 + k``, a failed one ``-1 + k * phi`` (still negative, since
``k <= 1``), i.e. progress made before failing is kept. In match episodes a
new round starts at ``phi = 0``, so an earlier round's progress is handed back
on the step that starts the next round; only the last round's progress stays.
Because the final potential varies, this shaping is *not* policy-invariant in
the strict sense of Ng et al. (which needs ``phi = 0`` on terminal states): it
also rewards failing closer to the exit. That is deliberate: the invariant
form (``phi = 0`` at every round's end) learned nothing from scratch in our
PPO runs (docs/strength.md), since it hands the progress back at every fail.

The shaped game is the rules game with :meth:`ShapedHiddenRoomsGame.returns`
adding ``k * phi(state)`` to the cumulative return, so the AEC base derives the
shaped step rewards from differences of returns as for any game.
"""

from __future__ import annotations

import os
import warnings

import numpy as np

from kakurega.envs.core.options import Option
from kakurega.envs.core.safe_load import short_repr
from kakurega.envs.hidden_rooms.booklet import DEFAULT_BOOKLET, BookletError, load_booklet
from kakurega.envs.hidden_rooms.rules import CAUGHT, EMPTY, EXIT_CELL, NEIGHBOURS, NUM_CELLS, HiddenRoomsGame, coords

#: Manhattan distance of every cell to the exit
DISTANCE = tuple(
    abs(r - coords(EXIT_CELL)[0]) + abs(c - coords(EXIT_CELL)[1]) for r, c in map(coords, range(NUM_CELLS))
)
MAX_DISTANCE = max(DISTANCE)  #: 8, from the start cell (4, 4)


#: the env option (envs/core/options.py)
SHAPING_OPTION = Option("shaping", float, 0.0, "weight ``k`` of the progress shaping (see Rewards); 0 = off; for "
                        "training, not for scoring", low=0.0, high=1.0)


def potential(board: list[int], child: int) -> float:
    """Progress in [0, 1] of a table with tiles ``board`` and the child on ``child`` (see the module docstring).

    >>> from kakurega.envs.hidden_rooms.rules import START_CELL, START_TILE
    >>> board = [EMPTY] * NUM_CELLS; board[START_CELL] = START_TILE
    >>> potential(board, START_CELL)
    0.0
    """
    best = DISTANCE[child]
    seen = 1 << child
    stack = [child]
    while stack:  # the explored cells connected to the child's cell
        for nb in NEIGHBOURS[stack.pop()]:
            if nb >= 0 and board[nb] != EMPTY and not seen >> nb & 1:
                seen |= 1 << nb
                stack.append(nb)
                if DISTANCE[nb] < best:
                    best = DISTANCE[nb]
    return (2 * MAX_DISTANCE - DISTANCE[child] - best) / (2 * MAX_DISTANCE)


class ShapedHiddenRoomsGame(HiddenRoomsGame):
    """The Hidden Rooms rules with ``shaping * phi(table)`` added to the child's cumulative return."""

    def __init__(self, monsters=None, episode: str = "match", reward: str = "match", max_turns: int = 60,
                 shaping: float = 1.0):
        super().__init__(monsters, episode=episode, reward=reward, max_turns=max_turns)
        self.shaping = SHAPING_OPTION.check(shaping)
        self.options = {**self.options, "shaping": self.shaping}  # what new_rules() rebuilds

    def potential(self, state) -> float:
        """``phi`` of the table in ``state`` (the finished episode's table keeps its value)."""
        return potential(state.board, state.child)

    def returns(self, state) -> np.ndarray:
        """Cumulative reward of the rules so far plus ``shaping * phi(table)``."""
        returns = super().returns(state)
        returns[0] += self.shaping * potential(state.board, state.child)
        return returns

    def return_bounds(self) -> tuple[float, float]:
        """The rules' bounds, the highest raised by ``shaping`` (``phi`` lies in [0, 1])."""
        low, high = super().return_bounds()
        return low, high + self.shaping

    def pays_only_at_end(self) -> bool:
        """Never: the shaping pays the table's progress at every step."""
        return False


class UnwinnableWarning(UserWarning):
    """Options whose rounds can never be escaped, or only if the monster chases (``HiddenRoomsGame.unwinnable``)."""


def hidden_rooms_game(booklet, episode: str, reward: str, max_turns: int, shaping: float) -> HiddenRoomsGame:
    """The rules for the env's options: with ``shaping=0`` the plain rules (no shaping code in the loop)."""
    monsters = load_booklet(booklet)
    if shaping:
        game = ShapedHiddenRoomsGame(monsters, episode, reward, max_turns, shaping=shaping)
    else:
        game = HiddenRoomsGame(monsters, episode=episode, reward=reward, max_turns=max_turns)
    refuse_decided_rounds(game, booklet)
    for note in game.unwinnable():
        warnings.warn(UnwinnableWarning(f"hidden_rooms: {note}"), stacklevel=2)
    return game


def refuse_decided_rounds(game: HiddenRoomsGame, booklet=None) -> None:
    """Refuse (``BookletError`` naming the booklet file, None: the default one, and the monster) a monster of
    ``game`` that ends a round in its first monster phase: a first round so decided is over at reset, before any
    reward can be paid. The env checks every booklet so, and so does the ``booklet`` option's loader
    (``booklet.load_playable_booklet``)."""
    source = DEFAULT_BOOKLET if booklet is None else os.fspath(booklet)
    for index, monster in enumerate(game.monsters):
        outcome = game.first_phase_outcome(index)
        if outcome:  # a round decided before the child acts: at reset, before any reward can be paid
            what = "catches the child" if outcome == CAUGHT else "reaches the end of its path"
            raise BookletError(
                f"{source}: monster {index} ({short_repr(monster.name)}): {what} in its first monster phase, before "
                f"the child's first move (path of {len(monster.path)} cells, {monster.steps} step(s), sight "
                f"{monster.describe_sight()}); a round it starts would be decided before the child acts, which the "
                "env cannot pay (a first round so decided is over at reset): lengthen its path, or give it fewer "
                "steps or less sight of the start cell (4, 4)")
