"""The KAKURENBO observation written plainly: the definition the fast encoder must reproduce.

``encode(game, state, seat)`` writes every piece of the layout by name from
the state (colours and pile counts recounted from the cards themselves, the
card knowledge from ``game.known_row``), with no cache and no offset. The fast
encoder (:mod:`~kakurega.envs.kakurenbo.observation`) is checked against it
over random games in every registered configuration (``tests/test_conformance.py``).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from kakurega.envs.kakurenbo.knowledge import CURSE
from kakurega.envs.kakurenbo.observation import make_layout


def encode(game, state, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` in ``state``; per-player rows are egocentric."""
    layout = make_layout(game)
    n = game.num_players
    obs = layout.zeros()
    view = partial(layout.view, obs)  # view(name): the piece as a writable array of its shape

    def row(where):
        return (where - seat) % n

    def colour(card):  # body-part card c: part c // 2, colour c % 2 (red 0, blue 1)
        return card % 2

    view("variant")[1 if game.kurayami else 0] = 1
    if not state.over:
        view("phase")[state.phase - 1] = 1
        view("stage")[state.stage] = 1
        view("actor")[row(state.actor)] = 1
        view("turn")[row(state.active)] = 1
    if state.target >= 0:
        view("dice_target")[row(state.target)] = 1
    red, blue = state.dice
    if red:  # faces 1..6
        view("dice")[0, red - 1] = view("dice")[1, blue - 1] = 1
    for holder, hand in enumerate(state.hands):
        body = [card for card in hand if card != CURSE]
        view("colour_counts")[row(holder)] = [sum(colour(c) == 0 for c in body), sum(colour(c) == 1 for c in body)]
        view("open_hand")[row(holder)] = state.open_hand[holder]
        view("scores")[row(holder)] = state.scores[holder]
    view("curse")[row(state.curse_holder) if state.curse_holder >= 0 else n] = 1
    for part, by in enumerate(state.discarded_by):
        if by >= 0:
            view("discarded")[part, row(by)] = 1
    if state.pile:
        top = state.pile[-1]
        view("pile_size")[0] = len(state.pile)
        view("pile_top")[2 if top == CURSE else colour(top)] = 1
        view("pile_colours")[:] = [sum(c != CURSE and colour(c) == k for c in state.pile) for k in (0, 1)]
    for card, where in enumerate(game.known_row(state, seat)):
        if where >= 0:
            view("cards")[card, row(where)] = 1
    kind, actor, other, last_colour = state.last_move
    if kind >= 0:
        view("last_kind")[kind] = 1
        view("last_actor")[row(actor)] = 1
        if other >= 0:
            view("last_other")[row(other)] = 1
        if last_colour >= 0:
            view("last_colour")[last_colour] = 1
    view("steps_used")[0] = min(1.0, state.steps / game.max_steps)
    return obs
