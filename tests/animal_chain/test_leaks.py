"""Hidden information: determinization leak tests and base-building secrecy."""

import numpy as np

from kakurega.envs.animal_chain.rules import BUILD, AnimalChainGame
from kakurega.envs.animal_chain_v0 import raw_env

from animal_chain.scenario import pass_heavy_states
from conformance import check_leaks, random_states


def test_resampling_keeps_every_observation_and_really_redeals():
    env = raw_env()
    states = random_states(env.game, seed=3, num_games=20, every=2) + pass_heavy_states(env.game, 4, 8)
    assert any(s.phase == BUILD for s in states) and any(not s.deck for s in states)
    check_leaks(env, states, min_changed_fraction=0.5)


def test_resample_redeals_exactly_the_hidden_cards():
    game = AnimalChainGame()
    rng = np.random.default_rng(0)
    state = game.initial_state(rng)
    game.apply_action(state, game.done_action, rng)
    game.apply_action(state, game.done_action, rng)
    changed = {"deck": 0, "face_down": 0, "opponent_hand": 0}
    for k in range(20):
        sample = game.resample_hidden(state, 0, np.random.default_rng(k))
        assert sample.hands[0] == state.hands[0]
        assert sum(sample.hands[1]) == sum(state.hands[1]) and len(sample.deck) == len(state.deck)
        assert sample.hand_sizes == [sum(hand) for hand in sample.hands]  # the derived count stays true
        for p in range(game.num_positions):
            if not state.face_down[p]:
                assert sample.stacks[p] == state.stacks[p]
        changed["deck"] += sample.deck != state.deck
        changed["face_down"] += [s for s, d in zip(sample.stacks, state.face_down) if d] != [
            s for s, d in zip(state.stacks, state.face_down) if d
        ]
        changed["opponent_hand"] += sample.hands[1] != state.hands[1]
    assert all(n >= 15 for n in changed.values()), changed


def building_observations(seat_building, observer, seed):
    """Observations of ``observer`` after each swap that ``seat_building`` makes."""
    env = raw_env()
    env.reset(seed=seed)
    if seat_building == 1:
        env.step(env.game.done_action)
    rng = np.random.default_rng(seed)
    seen = [env.encode(env.game_state, observer).copy()]
    for _ in range(env.game.max_swaps):
        swaps = [a for a in env.legal_actions() if a < env.game.done_action]
        env.step(int(rng.choice(swaps)))
        seen.append(env.encode(env.game_state, observer).copy())
    return env, seen


def test_base_building_is_invisible_to_the_other_player():
    for builder in (0, 1):
        for seed in range(4):
            env, seen = building_observations(builder, 1 - builder, seed)
            assert all(np.array_equal(seen[0], obs) for obs in seen), "the opponent's swaps showed"
            layout = env.layout
            for obs in seen:  # the builder's base row is the last row of the observer's frame
                for piece in ("left_animal", "right_animal"):
                    assert not layout.view(obs, piece)[-env.game.base_size :].any()


def test_the_builder_sees_its_own_base_and_swaps():
    env, seen = building_observations(0, 0, seed=1)
    assert len({obs.tobytes() for obs in seen}) > 1
    base_rows = env.layout.view(seen[-1], "left_animal")[: env.game.base_size]
    assert base_rows.sum() == env.game.base_size  # its own face-down base cards, known to it
