"""The observation vector against a plain reading of the state, in the observer's frame."""

import pickle
import random

import numpy as np
import pytest
from conformance import random_states

from animal_chain.scenario import board_state, pass_heavy_states
from kakurega.envs.animal_chain import reference
from kakurega.envs.animal_chain.rules import BUILD
from kakurega.envs.animal_chain_v0 import raw_env
from kakurega.envs.animal_chain_v1 import raw_env as raw_env_v1


@pytest.mark.parametrize("make", [raw_env, raw_env_v1], ids=["v0", "v1"])
def test_every_piece_matches_the_state_for_both_seats(make):
    env = make()
    game = env.game
    states = random_states(game, seed=8, num_games=10, every=2) + pass_heavy_states(game, 9, 4)
    states.append(board_state(up={"r3c2": "Ct|Dg", "r4c2": "Br|Dg", "r3c3": ["Fx|Pg", "Dg|Rb"]}, holes=("r5c1",), game=game))
    states[-1].double_owner[game.position_names.index("r3c3")] = 1
    for state in states:
        for seat in (0, 1):
            obs = env.encode(state, seat)
            assert obs.dtype == np.float32 and obs.shape == (env.layout.size,)
            assert (obs >= 0).all() and (obs <= env.layout.high).all()
            expected = reference.encode(game, state, seat)
            for name in env.layout.pieces:
                assert np.array_equal(env.layout.view(obs, name), env.layout.view(expected, name)), name


def test_both_players_see_a_mirrored_board():
    env = raw_env()
    state = board_state(up={"r3c2": "Ct|Dg", "r6c0": "Rb|Fx"})
    lay = env.layout
    zero, one = env.encode(state, 0), env.encode(state, 1)
    dog, cat = 0, 1
    # player 0 sees Ct|Dg at r3c2 (index 17); player 1 sees Dg|Ct at its r3c4 (index 36 - 17 = 19)
    assert lay.view(zero, "left_animal")[17, cat] and lay.view(zero, "right_animal")[17, dog]
    assert lay.view(one, "left_animal")[19, dog] and lay.view(one, "right_animal")[19, cat]
    # the card on player 1's base (r6c0) is in the first row of player 1's frame
    assert lay.view(one, "face_down")[3] == 0 and lay.view(zero, "face_down")[33] == 0


@pytest.mark.parametrize("make,options", [(raw_env, {}), (raw_env, {"attack_rule": "reach"}), (raw_env, {"max_turns": 300}),
                                          (raw_env_v1, {})], ids=["rules_page", "reach", "long_games", "v1"])
def test_incremental_observations_equal_fresh_encodings(make, options):
    """The encoder redraws only the positions and hand counts the rules marked; that must equal encoding from scratch.

    A pickled copy has no picture, so its encoding starts from a fresh board and redraws every
    position. Seats are observed at random moments, so changes pile up between observations;
    clones and determinizations start without a picture. ``max_turns=300`` lets the turn
    counter pass 255 (the pictures once held bytes when every value fitted in one).
    """
    env = make(**options)
    game = env.game
    rng, choice = np.random.default_rng(5), random.Random(5)

    def fresh(state, seat):
        return env.encode(pickle.loads(pickle.dumps(state)), seat)

    checked = 0
    for _ in range(25):
        state = game.initial_state(rng)
        while not (game.is_terminal(state) or game.is_truncated(state)):
            for seat in (0, 1):
                if choice.random() < 0.6:
                    assert np.array_equal(env.encode(state, seat), fresh(state, seat))
                    checked += 1
            if choice.random() < 0.1:
                for sample in (game.clone(state), game.resample_hidden(state, choice.randrange(2), rng)):
                    for seat in (0, 1):
                        assert np.array_equal(env.encode(sample, seat), fresh(sample, seat))
            legal = game.legal_actions(state)
            game.apply_action(state, legal[choice.randrange(len(legal))], rng)
        for seat in (0, 1):
            assert np.array_equal(env.encode(state, seat), fresh(state, seat))
    assert checked > 300


def test_v1_replaces_swaps_left_by_the_base_position_being_decided():
    v0, v1 = raw_env(), raw_env_v1()
    assert "swaps_left" in v0.layout.pieces and "base_position" not in v0.layout.pieces
    assert "base_position" in v1.layout.pieces and "swaps_left" not in v1.layout.pieces
    assert v1.layout.size == v0.layout.size - 1 + v1.game.base_size
    v1.reset(seed=0)
    B = v1.game.base_size
    for step in range(2 * B):  # player 0 decides positions 0..B-1, then player 1
        builder, j = divmod(step, B)
        for seat in (0, 1):
            piece = v1.layout.view(v1.encode(v1.game_state, seat), "base_position")
            assert list(piece) == (list(np.eye(B)[j]) if seat == builder else [0] * B)
        v1.step(v1.game.done_action)
    assert v1.game_state.phase != BUILD
    assert not v1.layout.view(v1.encode(v1.game_state, 0), "base_position").any()
