"""The take-a-face-down-card choices are listed in ascending id order for player 1 too.

Rules page (../shared/rules/animal_chain.md), "A turn — exactly one of", B: "If the deck is
empty, take any face-down card from the board instead". The API contract of
``Game.legal_actions`` (envs/core/game.py) is "Sorted legal action ids of the current player".
Player 1's take ids are numbered in its own (mirrored) frame, so listing the absolute positions in
order gives them in descending order; a missing sort went unnoticed by the other tests.
"""

import numpy as np

from animal_chain.scenario import GAME, board_state

P = GAME.num_positions


def test_player_1_take_choices_are_sorted_and_name_every_face_down_card():
    state = board_state(up={"r3c2": "Ct|Dg"}, holes=("r5c0",), hands=((), ("Dg|Rb",)), to_move=1)
    legal = GAME.legal_actions(state)
    takes = [a for a in legal if a >= GAME.take_base]
    assert GAME.pass_action not in legal  # the deck is empty
    assert set(takes) == {GAME.take_action(1, p) for p in range(P) if state.face_down[p]}
    assert len(takes) == sum(state.face_down) > 1
    assert legal == sorted(legal)


def test_the_mask_and_the_list_agree_for_player_1_taking():
    state = board_state(up={"r3c2": "Ct|Dg"}, hands=((), ("Dg|Rb",)), to_move=1)
    flags = np.frombuffer(GAME.legal_flags(state), dtype=np.uint8)
    assert GAME.legal_actions(state) == np.flatnonzero(flags).tolist()
