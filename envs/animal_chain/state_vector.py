"""Animal Chain's state vector (``env.state()``, centralised training only): what no seat observes.

Both seats' observations come first (:mod:`kakurega.envs.core.state_vector`);
these pieces add the deck's order, the face-down cards and every card in each
stack (the observations show the top only). Card types are the deck file's
ids and positions absolute (player_0's frame).
"""

from __future__ import annotations

from kakurega.envs.animal_chain.rules import AnimalChainGame
from kakurega.envs.core.state_vector import StateVector


class AnimalChainStateVector(StateVector):
    """Both observations, then the deck order, the face-down cards and the stacks' contents."""

    def __init__(self, game: AnimalChainGame, observer):
        P, T, total = game.num_positions, game.num_types, game.deck.num_cards
        super().__init__(game, observer, [
            ("deck_order", (total, T), "row k: one-hot type of the card k-th from the deck's top (row 0 is drawn next)"),
            ("face_down_card", (P, T), "one-hot type of the card lying face down at each position (0: none)"),
            ("stack_cards", (P, T), "cards of each type in each position's stack, face-down card included",
             max(game.deck.copies)),
        ])

    def write_unseen(self, state, unseen) -> None:
        layout = self.unseen
        deck_order = layout.view(unseen, "deck_order")
        for k, card_type in enumerate(reversed(state.deck)):
            deck_order[k, card_type] = 1.0
        face_down = layout.view(unseen, "face_down_card")
        stacks = layout.view(unseen, "stack_cards")
        for position, stack in enumerate(state.stacks):
            if stack and state.face_down[position]:
                face_down[position, stack[0]] = 1.0
            for card_type in stack:
                stacks[position, card_type] += 1.0
