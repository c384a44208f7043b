"""KAKURENBO's state vector (``env.state()``, centralised training only): what no seat observes.

Every seat's observation comes first (:mod:`kakurega.envs.core.state_vector`);
these pieces add where every card lies (hands nobody has seen, Kurayami's
unseen hands), the pile's order, what each seat knows of where the cards lie
and whose knowledge of each card its holder shares.
"""

from __future__ import annotations

from kakurega.envs.core.state_vector import StateVector
from kakurega.envs.kakurenbo.knowledge import CURSE, NUM_BODY_CARDS

NUM_CARDS = NUM_BODY_CARDS + 1  #: 14 body-part cards and the Curse (id 14)


class KakurenboStateVector(StateVector):
    """The observations of every seat, then the card holders, the pile order, ``knowledge`` and ``aware``."""

    def __init__(self, game, observer):
        n = game.num_players
        super().__init__(game, observer, [
            ("holder", (NUM_CARDS, n + 1), "one-hot place of card c (c // 2: body part, c % 2: colour; "
             f"{CURSE}: the Curse): the seat holding it, or the pile (last column); all 0 once discarded"),
            ("pile_order", (NUM_CARDS, NUM_CARDS), "row k: one-hot card id k-th from the pile's top (row 0 is drawn next)"),
            ("knowledge", (n, NUM_BODY_CARDS, n), "seat o, card c: one-hot seat that o knows holds c (all 0: o does not know)"),
            ("aware", (NUM_BODY_CARDS, n), "card c: 1 for each seat whose knowledge of the card its holder shares"),
        ])

    def write_unseen(self, state, unseen) -> None:
        layout, n = self.unseen, self.num_players
        holder = layout.view(unseen, "holder")
        for seat, hand in enumerate(state.hands):
            holder[hand, seat] = 1.0
        holder[state.pile, n] = 1.0
        pile_order = layout.view(unseen, "pile_order")
        for k, card in enumerate(reversed(state.pile)):
            pile_order[k, card] = 1.0
        knowledge = layout.view(unseen, "knowledge")
        for observer, row in enumerate(state.knowledge):
            for card, seat in enumerate(row):
                if seat >= 0:
                    knowledge[observer, card, seat] = 1.0
        aware = layout.view(unseen, "aware")
        for card, bits in enumerate(state.aware):
            for seat in range(n):
                if bits >> seat & 1:
                    aware[card, seat] = 1.0
