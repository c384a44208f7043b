"""Conformance of every registered env, in every configuration its registry entry lists."""

import functools
import zlib

import pytest
from conformance import (
    check_copy_continues_identically,
    check_determinism,
    check_encoder_matches_reference,
    check_global_rng_isolation,
    check_illegal_actions,
    check_leaks,
    check_observations,
    play_random,
    random_states,
    registry_cases,
)
from pettingzoo.test import api_test, seed_test

from kakurega.envs import ENV_SPECS, get_spec, make

CASES = registry_cases()


def factory(name, config, wrapped=True):
    return functools.partial(make, name, wrapped=wrapped, **config)


@pytest.mark.parametrize("name,config", CASES)
def test_pettingzoo_api(name, config):
    api_test(make(name, **config), num_cycles=200)


@pytest.mark.parametrize("name,config", CASES)
def test_pettingzoo_seed(name, config):
    seed_test(factory(name, config), num_cycles=200)


@pytest.mark.parametrize("name,config", CASES)
def test_determinism(name, config):
    check_determinism(factory(name, config))


@pytest.mark.parametrize("name,config", CASES)
def test_global_rng_isolation(name, config):
    check_global_rng_isolation(factory(name, config))


@pytest.mark.parametrize("name,config", CASES)
def test_copy_and_pickle_continue_identically(name, config):
    check_copy_continues_identically(factory(name, config))


@pytest.mark.parametrize("name,config", CASES)
def test_observations_and_masks(name, config):
    check_observations(factory(name, config))


@pytest.mark.parametrize("name,config", CASES)
def test_control_an_is_legal_that_forgets_a_move_is_caught(name, config, monkeypatch):
    env = make(name, **config)
    game = env.unwrapped.game
    right = game.is_legal

    def wrong(state, action):  # says no to the largest legal id
        return right(state, action) and action != max(game.legal_actions(state))

    monkeypatch.setattr(game, "is_legal", wrong)
    with pytest.raises(AssertionError, match="is_legal differs"):
        check_observations(lambda: env)


@pytest.mark.parametrize("name,config", CASES)
def test_fast_encoder_equals_the_reference_encoder(name, config):
    check_encoder_matches_reference(factory(name, config, wrapped=False))


@pytest.mark.slow
@pytest.mark.parametrize("name,config", CASES)
def test_fast_encoder_equals_the_reference_encoder_long(name, config):
    check_encoder_matches_reference(factory(name, config, wrapped=False), seed=1, min_steps=5000)


@pytest.mark.parametrize("name,config", CASES)
def test_control_a_wrong_encoder_entry_is_caught(name, config):
    # one entry off in the 1st, 51st, 101st, ... distinct observation met (the same ones in every process: a
    # choice by Python's hash() changed with PYTHONHASHSEED, and a game with few distinct observations could miss)
    def make_wrong():
        raw = make(name, wrapped=False, **config)
        fast = raw.encode
        met = {}

        def wrong(state, seat):
            obs = fast(state, seat)
            key = obs.tobytes()
            order = met.setdefault(key, len(met))
            if order % 50 == 0:
                obs = obs.copy()
                obs[zlib.crc32(key) % obs.size] += 1
            return obs

        raw.encode = wrong
        return raw

    with pytest.raises(AssertionError, match="differs from the reference"):
        check_encoder_matches_reference(make_wrong)


@pytest.mark.parametrize("name,config", CASES)
def test_illegal_actions(name, config):
    check_illegal_actions(factory(name, config, wrapped=False), factory(name, config))


@pytest.mark.parametrize("name,config", CASES)
def test_resample_hidden_leaks_nothing(name, config):
    raw = make(name, wrapped=False, **config)
    states = random_states(raw.game, seed=17, num_games=6, every=4)
    check_leaks(raw, states)


@pytest.mark.parametrize("name,config", CASES)
def test_render_every_view(name, config):
    env = make(name, render_mode="ansi", **config)
    env.reset(seed=0)
    raw = env.unwrapped
    assert isinstance(env.render(), str) and env.render().strip()
    for agent in raw.possible_agents:
        assert raw.render_text(agent).strip()
    play_random(env, seed=0)
    assert raw.render_text(None).strip()


@pytest.mark.parametrize("name", list(ENV_SPECS))
def test_env_card_documents_the_env(name):
    module = get_spec(name).load()
    card = module.__doc__ or ""
    for heading in ("Agents", "Action", "Observation", "Rewards", "Version history"):
        assert heading.lower() in card.lower(), f"{name}: env card lacks a section on {heading}"
