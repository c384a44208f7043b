"""The Animal Chain observation written plainly: the definition the fast encoder must reproduce.

``encode(game, state, seat)`` writes every piece of the layout by name from
the state and the rules' frame tables, with no cache and no offset. The fast
encoder (:mod:`~kakurega.envs.animal_chain.observation`) is checked against it
over random games in every registered configuration (``tests/test_conformance.py``).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from kakurega.envs.animal_chain.observation import make_layout
from kakurega.envs.animal_chain.rules import BUILD


def encode(game, state, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` in ``state``, in that seat's frame."""
    layout = make_layout(game)
    obs = layout.zeros()
    view = partial(layout.view, obs)  # view(name): the piece as a writable array of its shape

    for i in range(game.num_positions):  # position i of the observer's frame
        p = game.to_frame(seat, i)
        stack = state.stacks[p]
        view("hole")[i] = not stack
        view("face_down")[i] = state.face_down[p]
        view("stack_height")[i] = len(stack)
        own_base_while_building = state.phase == BUILD and p in game.base_positions[seat]
        if stack and (not state.face_down[p] or own_base_while_building):
            left, right = game.deck.card_types[game.type_in_frame[seat][stack[-1]]]
            view("left_animal")[i, left] = view("right_animal")[i, right] = 1
        view("my_double")[i] = state.double_owner[p] == seat
        view("opponent_double")[i] = state.double_owner[p] == 1 - seat
    for t in range(game.num_types):  # type t of the observer's frame
        view("hand")[t] = state.hands[seat][game.type_in_frame[seat][t]]
    view("hand_sizes")[:] = [sum(state.hands[seat]), sum(state.hands[1 - seat])]
    view("deck_size")[0] = len(state.deck)
    view("phase")[state.phase] = 1
    view("my_turn")[0] = game.current_player(state) == seat
    view("seat")[seat] = 1
    deciding = state.phase == BUILD and state.to_move == seat
    if game.per_position:
        if deciding:
            view("base_position")[state.building_position] = 1
    else:
        view("swaps_left")[0] = game.max_swaps - state.swaps_used if deciding else 0
    view("passes_without_draw")[0] = state.passes_without_draw
    view("turn")[0] = state.turn
    return obs
