"""The Summer Hide-and-Seek observation written plainly: the definition the fast encoder must reproduce.

``encode(game, state, seat)`` writes every piece of the layout by name from
the map and the state, with no cache, no byte table and no offset. The fast
encoder (:mod:`~kakurega.envs.summer_hide_and_seek.observation`) is checked
against it over random games in every registered configuration
(``tests/test_conformance.py``).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from kakurega.envs.summer_hide_and_seek.observation import CHILD_TURNS_CAP, make_layout
from kakurega.envs.summer_hide_and_seek.rules import BUDGET, CHILD, OVER, START


def encode(game, state, seat: int) -> np.ndarray:
    """The observation vector of ``seat``: public facts, plus the child's private ones for the child."""
    layout = make_layout(game)
    n = game.num_players
    obs = layout.zeros()
    view = partial(layout.view, obs)  # view(name): the piece as a writable array of its shape

    def relative(other):  # relative seat: 0 is the observer, 1 the next seat clockwise, ...
        return (other - seat) % n

    for s, (row, col) in enumerate(game.points):  # the static map
        view("square_kind")[game.kinds[s], row, col] = 1
        if game.icon_of[s] >= 0:
            view("icon")[game.icon_of[s], row, col] = 1
            view("icon_vp")[row, col] = game.square_vp[s]
    view("seat")[seat] = 1
    for other in range(n):
        view("vp")[relative(other)] = state.vp[other]
    if state.phase == OVER:
        return obs
    view("child")[relative(state.child)] = 1
    view("round")[state.round] = 1
    view("phase")[{START: 0, CHILD: 1}.get(state.phase, 2)] = 1
    for other, square in enumerate(state.pieces):
        if square >= 0:
            view("pieces")[(relative(other),) + tuple(game.points[square])] = 1
    for s, point in enumerate(game.points):
        view("past_guesses")[point] = state.guessed >> s & 1
        view("belief")[point] = state.belief >> s & 1
    if state.announcements:
        cost, icons = state.announcements[-1]
        view("last_cost")[cost] = 1
        for icon in icons:
            view("last_icons")[icon] += 1
        view("child_turns")[0] = min(len(state.announcements), CHILD_TURNS_CAP)
    if seat == state.child and state.stroke:
        for order, square in enumerate(state.stroke, start=1):
            view("stroke")[game.points[square]] = order
        view("position")[game.points[state.stroke[-1]]] = 1
        if state.phase == CHILD:
            view("budget_left")[0] = BUDGET - state.turn_cost
            for icon in state.turn_icons:
                view("turn_icons")[icon] += 1
    return obs
