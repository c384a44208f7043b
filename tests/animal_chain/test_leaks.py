"""Hidden information: determinization leak tests, base-building secrecy, samples and renders of one information set."""

import copy as copy_module
import pickle

import numpy as np
import pytest
from conformance import check_leaks, random_states

from animal_chain.scenario import pass_heavy_states
from kakurega.envs.animal_chain.observation import AnimalChainObserver
from kakurega.envs.animal_chain.render import AnimalChainRenderer
from kakurega.envs.animal_chain.rules import _STATE_FIELDS, BUILD, AnimalChainGame, AnimalChainState
from kakurega.envs.animal_chain_v0 import raw_env
from kakurega.envs.animal_chain_v1 import raw_env as raw_env_v1


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


# ------------------------------------------------- one information set, one sample
def differing_fields(a, b) -> list[str]:
    """Every field of the state that differs, and "pickle" if the pickles do."""
    out = [name for name in _STATE_FIELDS if getattr(a, name) != getattr(b, name)]
    if pickle.dumps(a) != pickle.dumps(b):
        out.append("pickle")
    return out


def information_set_pairs(make, seed=0, games=6):
    """(game, state, twin, player): true states in one information set of ``player``, both observed.

    The twin is ``state`` with the cards ``player`` has not seen dealt again.
    Both have been encoded for both seats, as in a running env (the
    observer's pictures show each seat's hand; the states must not carry them).
    """
    env = make()
    game = env.game
    observer = AnimalChainObserver(game)
    for state in random_states(game, seed=seed, num_games=games, every=2):
        for player in (0, 1):
            twin = game.resample_hidden(state, player, np.random.default_rng(7))
            if twin.hands[1 - player] == state.hands[1 - player]:
                continue  # the opponent's hand came out the same: the pair shows nothing
            for s in (state, twin):
                for seat in (0, 1):
                    observer.encode(s, seat)  # the observer's picture of seat shows that seat's hand
            yield game, state, twin, player


@pytest.mark.parametrize("make", [raw_env, raw_env_v1], ids=["v0", "v1"])
def test_samples_of_one_information_set_are_identical_in_every_field(make):
    pairs = 0
    for game, state, twin, player in information_set_pairs(make):
        for k in range(2):
            a = game.resample_hidden(state, player, np.random.default_rng(k))
            b = game.resample_hidden(twin, player, np.random.default_rng(k))
            assert differing_fields(a, b) == []
            assert game.fingerprint(a) == game.fingerprint(b)
        for copy in (game.clone(state), pickle.loads(pickle.dumps(state)), copy_module.deepcopy(state)):
            assert differing_fields(copy, state) == []
        pairs += 1
    assert pairs > 20


def test_control_a_sample_that_keeps_the_opponents_hand_is_caught(monkeypatch):
    original = AnimalChainGame.resample_hidden

    def leaky_resample(self, state, player, rng):
        out = original(self, state, player, rng)
        out.hands[1 - player] = state.hands[1 - player][:]
        return out

    pairs = list(information_set_pairs(raw_env_v1))
    monkeypatch.setattr(AnimalChainGame, "resample_hidden", leaky_resample)
    caught = 0
    for game, state, twin, player in pairs:
        a = game.resample_hidden(state, player, np.random.default_rng(0))
        b = game.resample_hidden(twin, player, np.random.default_rng(0))
        caught += "hands" in differing_fields(a, b)
    assert caught > 20


def test_resampled_derived_caches_depend_on_public_facts_only():
    # tops, links, blocked, hand_sizes and linked of a sample equal a fresh computation and the true state's
    game = raw_env_v1().game
    for state in random_states(game, seed=4, num_games=6, every=3):
        for player in (0, 1):
            sample = game.resample_hidden(state, player, np.random.default_rng(1))
            fresh = game.clone(sample)
            game.refresh(fresh)
            for cache in ("tops", "links", "blocked", "hand_sizes", "linked"):
                assert getattr(sample, cache) == getattr(fresh, cache) == getattr(state, cache), cache


def test_the_state_has_no_scratch_and_every_field_is_in_the_fingerprint():
    game = raw_env_v1().game
    state = random_states(game, seed=2, num_games=1, every=5)[-1]
    assert not hasattr(AnimalChainState, "SCRATCH_FIELDS")  # the encoder's caches live in the observer
    for name in _STATE_FIELDS:
        changed = game.clone(state)
        value = getattr(changed, name)
        setattr(changed, name, ("changed", value))  # any different value
        assert game.fingerprint(changed) != game.fingerprint(state), name
        assert getattr(game.clone(state), name) == getattr(state, name), name


# ------------------------------------------------- renders
@pytest.mark.parametrize("make", [raw_env, raw_env_v1], ids=["v0", "v1"])
def test_renders_depend_only_on_what_the_viewer_knows(make):
    env = make()
    game = env.game
    renderer = AnimalChainRenderer(game)
    states = random_states(game, seed=5, num_games=8, every=1)
    assert any(s.phase == BUILD and s.to_move == 1 for s in states)
    differ = 0
    for state in states:
        for player in (0, 1):
            twin = game.resample_hidden(state, player, np.random.default_rng(3))
            assert renderer.render_text(twin, player) == renderer.render_text(state, player)
            assert renderer.render_text(twin, None) == renderer.render_text(state, None)  # the spectator knows less
            differ += renderer.render_text(twin, 1 - player) != renderer.render_text(state, 1 - player)
    assert differ > 50  # control: the opponent's own view shows its hand, which the twin changed


def test_the_opponents_base_building_does_not_show_in_a_render():
    # player 1 swapping at every decision, or keeping every card: the same renders for player 0 and a spectator
    for seed in range(5):
        swapping, keeping = raw_env_v1(), raw_env_v1()
        for env in (swapping, keeping):
            env.reset(seed=seed)
            for _ in range(env.game.base_size):  # player 0 keeps its base
                env.step(env.game.done_action)
        swaps = 0
        while swapping.game_state.phase == BUILD:
            for viewer in (None, "player_0"):
                assert swapping.render_text(viewer) == keeping.render_text(viewer)
            legal = swapping.legal_actions()
            swaps += len(legal) > 1
            swapping.step(legal[0])  # a swap whenever one is offered
            keeping.step(keeping.game.done_action)
        assert swaps > 0


@pytest.mark.parametrize("make", [raw_env, raw_env_v1], ids=["v0", "v1"])
def test_the_rules_object_holds_only_its_configuration(make):
    # agents get a rules object of their own, rebuilt from the options; nothing in it depends on the
    # states it was asked about (accepted_types reads complete tables, filled when the game is built)
    game = make().game
    rebuilt = type(game)(**game.options)
    assert rebuilt.options == game.options
    before = pickle.dumps(vars(game))
    A = game.num_animals
    for left in range(1 << A):
        for right in (0, 1, 1 << (A - 1), left):
            expected = sum(1 << t for t in range(game.num_types)
                           if left >> game.left_animal[t] & 1 or right >> game.right_animal[t] & 1)
            assert game.accepted_types(left, right) == expected
    for state in random_states(game, seed=1, num_games=3, every=1):
        game.legal_actions(state)
        game.legal_flags(state)
    assert pickle.dumps(vars(game)) == before
