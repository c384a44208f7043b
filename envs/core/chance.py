"""Explicit chance: a rules step's random draws enumerated as outcomes with their probabilities.

Every game draws all its chance from the generator it is handed (rule 4 of
the style guide), so the generator is where chance can be made explicit for
every game at once, from the rules' own code: :class:`ChanceScript` stands
in for a ``numpy.random.Generator`` and answers each draw from a list of
given outcomes; when the list runs out it stops the step with
:class:`ChanceNeeded`, which names the next draw's outcomes and their
probabilities. :func:`explicit_step` runs a step (the deal, or one action)
on a copy of the state with the outcomes chosen so far and returns either the
resulting state or the next draw. An algorithm that walks the whole game tree
(exact best response, CFR) thus sees the deals and draws the rules really
make, each with its true probability, instead of a random seed.

How draws become elementary outcomes:

- ``integers(n)`` or ``integers(low, high)``: one draw, each value with
  probability ``1 / (high - low)``; outcome ``k`` is the value ``low + k``.
- ``permutation(x)`` and ``shuffle(x)``: one draw per position, front to back:
  which value comes next, among those still left, with probability (copies
  of it left) / (items left). Equal values are not told apart, so shuffling
  a deck of 13 cards of two kinds, 10 and 3 of them, gives C(13, 3) = 286
  deals, not 13!. Outcome ``k`` is the ``k``-th of the distinct values
  (sorted) of the shuffled sequence.

A draw with a single possible outcome is taken without stopping. Any other
generator method (a continuous ``random()``, ``choice`` with weights, a
``size``) raises :class:`ChanceNotEnumerable`, naming it: such chance cannot
be enumerated exactly.

>>> from kakurega.envs.core.chance import ChanceScript, ChanceNeeded
>>> script = ChanceScript([2])
>>> int(script.integers(1, 7))  # the given outcome 2: the value 1 + 2
3
>>> try:
...     script.integers(6)
... except ChanceNeeded as needed:
...     print(len(needed.draw.outcomes), needed.draw.outcomes[0])
6 (0, 0.16666666666666666)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

#: draws one step may take: a step drawing more (a dice loop re-rolling ties) cannot be enumerated
MAX_DRAWS_PER_STEP = 10_000


class ChanceNotEnumerable(ValueError):
    """The rules drew chance that cannot be enumerated (a continuous draw, an unbounded loop)."""


@dataclass(frozen=True)
class Draw:
    """One elementary chance event: its outcomes as ``(outcome id, probability)`` and each one in words."""

    outcomes: tuple[tuple[int, float], ...]
    words: tuple[str, ...]

    def describe(self, outcome: int) -> str:
        """The outcome ``outcome`` in words (``"value 3"``, ``"next item: 5"``)."""
        for (k, _), word in zip(self.outcomes, self.words):
            if k == outcome:
                return word
        raise ValueError(f"{outcome} is not an outcome of this draw; its outcomes are {[k for k, _ in self.outcomes]}")


class ChanceNeeded(Exception):  # noqa: N818 (a signal to the caller, not an error)
    """Raised by :class:`ChanceScript` when the outcomes given run out: ``draw`` is the next draw."""

    def __init__(self, draw: Draw):
        super().__init__("the next chance outcome is needed")
        self.draw = draw


class ChanceScript:
    """A stand-in for ``numpy.random.Generator`` that draws the outcomes it is given, in order.

    ``used`` counts the outcomes consumed so far (draws with one possible
    outcome consume none).
    """

    def __init__(self, outcomes=()):
        self.outcomes = [int(k) for k in outcomes]
        self.used = 0
        self.draws = 0

    def _next(self, draw: Draw) -> int:
        self.draws += 1
        if self.draws > MAX_DRAWS_PER_STEP:
            raise ChanceNotEnumerable(f"one rules step drew more than {MAX_DRAWS_PER_STEP} random values "
                                      "(an unbounded loop of draws): its chance cannot be enumerated")
        if len(draw.outcomes) == 1:
            return draw.outcomes[0][0]
        if self.used == len(self.outcomes):
            raise ChanceNeeded(draw)
        outcome = self.outcomes[self.used]
        if not any(k == outcome for k, _ in draw.outcomes):
            raise ValueError(f"chance outcome {outcome} is not one of this draw's outcomes "
                             f"{[k for k, _ in draw.outcomes]}")
        self.used += 1
        return outcome

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        """A uniform integer in ``[low, high)`` (``[0, low)`` with one argument), as the outcome says."""
        if size is not None:
            raise ChanceNotEnumerable("integers(..., size=...) draws an array: not enumerated (draw one value at a time)")
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high) + (1 if endpoint else 0)
        count = high - low
        if count < 1:
            raise ValueError(f"integers: empty range [{low}, {high})")
        draw = Draw(tuple((k, 1.0 / count) for k in range(count)), tuple(f"value {low + k}" for k in range(count)))
        return np.dtype(dtype).type(low + self._next(draw))

    def _arrange(self, items: list) -> list:
        """``items`` in the order the outcomes choose, one position at a time (equal items not told apart)."""
        values = sorted(set(items))
        left = Counter(items)
        order = []
        for remaining in range(len(items), 0, -1):
            choices = [(values.index(v), left[v] / remaining) for v in values if left[v]]
            draw = Draw(tuple(choices), tuple(f"next item: {values[k]}" for k, _ in choices))
            value = values[self._next(draw)]
            left[value] -= 1
            order.append(value)
        return order

    def permutation(self, x):
        """``x`` (an int ``n``: ``arange(n)``) in the order the outcomes choose, as a new array."""
        array = np.arange(int(x)) if isinstance(x, (int, np.integer)) else np.asarray(x)
        if array.ndim != 1:
            raise ChanceNotEnumerable("permutation of a multi-dimensional array: not enumerated")
        return np.asarray(self._arrange(array.tolist()), dtype=array.dtype)

    def shuffle(self, x) -> None:
        """Reorder the list or 1-d array ``x`` in place, as the outcomes choose."""
        x[:] = self._arrange(list(x.tolist() if isinstance(x, np.ndarray) else x))

    def __getattr__(self, name: str):
        raise ChanceNotEnumerable(f"the rules drew chance with generator.{name}(), which explicit chance does not "
                                  "enumerate (only integers, permutation and shuffle are)")


@dataclass(frozen=True)
class Resolved:
    """A step whose chance is fully given: the resulting state."""

    state: Any


def explicit_step(game, state, action: int | None, outcomes) -> Resolved | Draw:
    """Run one rules step with explicit chance: the deal (``action`` None) or ``action`` in ``state``.

    ``outcomes`` are the outcomes chosen so far for this step's draws. The
    result is :class:`Resolved` (the new state; ``state`` itself is never
    changed) or the :class:`Draw` still to be made.
    """
    script = ChanceScript(outcomes)
    try:
        if action is None:
            new = game.initial_state(script)
        else:
            new = game.clone(state)
            game.apply_action(new, int(action), script)
    except ChanceNeeded as needed:
        return needed.draw
    if script.used != len(script.outcomes):
        raise ValueError(f"{len(script.outcomes)} chance outcomes given, but the step drew only {script.used}")
    return Resolved(new)
