"""KAKURENBO: one observation read once into plain Python numbers, for the heuristic and its move features.

A decision of :class:`~kakurega.agents.heuristics.kakurenbo.KakurenboHeuristic`
(and a call of the bot's move features) asks dozens of small questions of one
observation: a row's colour counts, a card's known holder, the chance that a
card is in a hand. Asked of numpy views, each answer costs a numpy call of
about a microsecond; here the pieces are read into lists once (``tolist``)
and every answer is a list index.

The numbers are the numpy reading's: counts and scores are whole numbers
(exact in float32 and float64 alike), each chance is one float64 division of
whole numbers, and the tie-breaking draw is the one ``Generator.choice``
makes (:func:`best_index`). ``tests/kakurenbo/test_heuristic_fast_paths.py``
compares every number with the numpy code it replaced.
"""

from __future__ import annotations

import numpy as np

NUM_CARDS = 14
NUM_PARTS = 7


class Reading:
    """The facts of one observation the heuristic reads, as lists (row 0: the observer).

    ``counts[r]``: red and blue cards in row ``r``'s hand; ``hand_size[r]`` their sum; ``scores[r]``;
    ``holder[c]``: the row the ``cards`` piece places card ``c`` in (the first marked), or -1;
    ``mine``: the observer's own cards, ascending; ``curse``: the row holding the Curse (``n``: the
    pile); ``stage``: the pending decision (-1 when none); ``pile_colours``; ``discarded[p]``: pair
    ``p`` is out of play. :meth:`beliefs` gives the chances of the unplaced cards.
    """

    __slots__ = ("n", "counts", "hand_size", "scores", "holder", "mine", "curse", "stage", "pile_colours",
                 "discarded", "_flat_counts", "_placed", "_rows", "_beliefs")

    def beliefs(self) -> list[list[float]]:
        """``prob[c][r]``: chance that card ``c`` is in row ``r``'s hand (``r == n``: the pile).

        A card placed by the ``cards`` piece is there; the unplaced cards of a colour whose pairs are
        not all discarded share that colour's free places (the cards held and in the pile, less the
        placed ones) in proportion. Rows are shared between cards: read them, never change them.
        """
        if self._beliefs is None:
            flat, pile = self._flat_counts, self.pile_colours
            free = (flat[0::2] + pile[0:1], flat[1::2] + pile[1:2])  # per colour: each hand's, then the pile's
            holder = self.holder
            for c in self._placed:
                free[c & 1][holder[c]] -= 1.0
            shares = []
            for places in free:
                total = sum(places)  # whole numbers: every order of summing gives the same total
                shares.append([p / total for p in places] if total > 0 else None)
            one_hot, nowhere = self._rows
            discarded = self.discarded
            self._beliefs = [
                one_hot[row] if row >= 0 else nowhere if discarded[c >> 1] or shares[c & 1] is None else shares[c & 1]
                for c, row in enumerate(holder)
            ]
        return self._beliefs


class KakurenboReader:
    """Reads the observations of one configuration into :class:`Reading` (its layout's offsets, found once)."""

    def __init__(self, layout, num_players: int):
        self.n = num_players
        # the pieces read as numbers lie in one span of the vector (the cards and discarded are read by marks)
        self.span = slice(layout.slice("stage").start, layout.slice("pile_colours").stop)
        names = ("colour_counts", "scores", "curse", "stage", "pile_colours")
        first, last = min(layout.pieces[name].start for name in names), max(layout.pieces[name].stop for name in names)
        if (first, last) != (self.span.start, self.span.stop):
            raise ValueError(f"KAKURENBO layout: the pieces {names} do not span stage..pile_colours")
        shift = self.span.start
        self.counts, self.scores, self.curse, self.stage, self.pile_colours = (
            slice(layout.pieces[name].start - shift, layout.pieces[name].stop - shift) for name in names)
        self.cards = layout.slice("cards")
        self.discarded = layout.slice("discarded")
        #: the chances of a card placed in each row, and of a card out of play (rows shared by every reading)
        self.rows = (tuple([1.0 if r == row else 0.0 for r in range(self.n + 1)] for row in range(self.n)),
                     [0.0] * (self.n + 1))

    def __call__(self, vector: np.ndarray) -> Reading:
        """The :class:`Reading` of one observation vector."""
        n = self.n
        values = vector[self.span].tolist()
        reading = Reading()
        reading.n = n
        reading._flat_counts = flat = values[self.counts]
        reading.counts = counts = [flat[i : i + 2] for i in range(0, 2 * n, 2)]
        reading.hand_size = [red + blue for red, blue in counts]
        reading.scores = values[self.scores]
        # the cards piece is mostly zeros: its marks, in order (card by card, row by row within a card)
        reading.holder = holder = [-1] * NUM_CARDS
        reading.mine = mine = []
        reading._placed = placed = []
        for at in vector[self.cards].nonzero()[0].tolist():
            card, row = divmod(at, n)
            if holder[card] < 0:  # the first row marked
                holder[card] = row
                placed.append(card)
                if row == 0:
                    mine.append(card)
        curse = values[self.curse]
        reading.curse = curse.index(1.0) if 1.0 in curse else n
        stage = values[self.stage]
        reading.stage = stage.index(1.0) if 1.0 in stage else -1
        reading.pile_colours = values[self.pile_colours]
        reading.discarded = discarded = [False] * NUM_PARTS
        for at in vector[self.discarded].nonzero()[0].tolist():
            discarded[at // n] = True
        reading._rows = self.rows
        reading._beliefs = None
        return reading


def best_set(values) -> list[int]:
    """The indices of ``values`` that tie for the highest (within rounding: 1e-9)."""
    top = max(values) - 1e-9
    return [i for i, value in enumerate(values) if value >= top]


def best_index(values, rng) -> int:
    """Index of the highest of ``values`` (:func:`best_set`), ties broken by ``rng`` as
    ``rng.choice(np.flatnonzero(values >= max - 1e-9))`` breaks them (the same draw; none for one best)."""
    best = best_set(values)
    return best[0] if len(best) == 1 else best[int(rng.integers(0, len(best)))]
