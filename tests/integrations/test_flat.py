"""flat_observation_v0: Box observations with the mask in info and action_mask(); SuperSuit's observation
wrappers and its multi-process AEC vectorizer work on it (and fail on the dict, the control)."""

import numpy as np
import pytest
from pettingzoo.test import api_test

from kakurega.envs.registry import ENV_SPECS, make
from kakurega.integrations.flat import flat_observation_v0

REGISTERED = list(ENV_SPECS)


def _play(env, seed, max_steps=400):
    """Random legal play from the flat env's own mask sources; returns the steps played."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = 0
    for agent in env.agent_iter(max_steps):
        obs, reward, terminated, truncated, info = env.last()
        assert obs.dtype == np.float32 and env.observation_space(agent).contains(obs)
        if terminated or truncated:
            env.step(None)
            continue
        mask = env.action_mask(agent)
        assert mask.dtype == np.int8 and np.array_equal(mask, info["action_mask"])
        assert np.array_equal(mask, env.unwrapped.observe(agent)["action_mask"])
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    return steps


@pytest.mark.parametrize("env_name", REGISTERED)
def test_flat_env_passes_pettingzoos_api_test(env_name):
    api_test(flat_observation_v0(make(env_name)), num_cycles=30)


@pytest.mark.parametrize("env_name", REGISTERED)
def test_flat_env_observes_the_vector_and_masks_through_info_and_method(env_name):
    assert _play(flat_observation_v0(make(env_name)), seed=3) > 0


def test_other_players_masks_are_empty():
    env = flat_observation_v0(make("animal_chain_v0"))
    env.reset(seed=0)
    waiting = [a for a in env.possible_agents if a != env.agent_selection]
    assert all(not env.action_mask(a).any() for a in waiting)


def test_a_non_kakurega_observation_is_refused():
    from pettingzoo.classic import rps_v2

    with pytest.raises(TypeError, match="expects an env observing"):
        flat_observation_v0(rps_v2.env())



@pytest.mark.parametrize("env_name", REGISTERED)
def test_observations_and_masks_are_the_callers_own_copies(env_name):
    """observe() is a fresh writable float32 vector and action_mask() a fresh writable int8 mask: a caller (a
    normalizing or frame-stacking wrapper) may change them in place without changing what the env observes."""
    env = flat_observation_v0(make(env_name))
    env.reset(seed=0)
    agent = env.agent_selection
    before = env.unwrapped.observe(agent)
    vector, mask = np.array(before["observation"]), np.array(before["action_mask"])
    observation, legal = env.observe(agent), env.action_mask(agent)
    assert observation.dtype == np.float32 and observation.flags.writeable
    assert legal.dtype == np.int8 and legal.flags.writeable
    observation += 7.0
    legal[:] = 1 - legal
    assert np.array_equal(env.unwrapped.observe(agent)["observation"], vector)
    assert np.array_equal(env.unwrapped.observe(agent)["action_mask"], mask)
    assert np.array_equal(env.observe(agent), vector) and np.array_equal(env.action_mask(agent), mask)


def test_a_dict_observation_with_other_keys_is_refused():
    """Only the {"observation", "action_mask"} dicts kakurega's envs observe are flattened: a dict observation
    with other keys is refused in words, not flattened into a wrong vector."""
    import gymnasium
    from pettingzoo import AECEnv

    class OtherKeys(AECEnv):
        metadata = {"name": "other_keys_v0"}
        possible_agents = ["player_0"]

        def observation_space(self, agent):
            box = gymnasium.spaces.Box(0.0, 1.0, (3,), np.float32)
            return gymnasium.spaces.Dict({"observation": box, "legal_moves": box})

        def action_space(self, agent):
            return gymnasium.spaces.Discrete(3)

    with pytest.raises(TypeError, match="expects an env observing"):
        flat_observation_v0(OtherKeys())

def test_supersuit_observation_wrappers_work_on_the_flat_env():
    supersuit = pytest.importorskip("supersuit")
    with pytest.raises(AttributeError):
        supersuit.dtype_v0(make("animal_chain_v0"), np.float64).reset(seed=0)  # the control: the dict fails
    env = supersuit.frame_stack_v1(supersuit.dtype_v0(flat_observation_v0(make("animal_chain_v0")), np.float64), 2)
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    size = make("animal_chain_v0").unwrapped.layout.size
    assert obs.dtype == np.float64 and obs.shape == (2 * size,) and info["action_mask"].any()
    env.step(int(np.flatnonzero(info["action_mask"])[0]))


def _vectorized_play(num_cpus):
    supersuit = pytest.importorskip("supersuit")
    size = make("animal_chain_v0").unwrapped.layout.size
    vec = supersuit.vectorize_aec_env_v0(flat_observation_v0(make("animal_chain_v0")), num_envs=2, num_cpus=num_cpus)
    vec.reset(seed=0)
    finished = 0
    for _ in vec.agent_iter(300):
        obs, rewards, terminated, truncated, env_terminated, env_truncated, passes, infos = vec.last()
        assert obs.shape == (2, size)
        finished += int(np.sum(terminated))  # games ended (each env resets itself on its next step)
        actions = []
        for info, passing in zip(infos, passes):
            legal = np.flatnonzero(info.get("action_mask", []))
            actions.append(int(legal[0]) if len(legal) and not passing else 0)  # ignored when passing
        vec.step(actions)
    return finished


def test_supersuit_aec_vectorization():
    assert _vectorized_play(num_cpus=0) > 0


@pytest.mark.xfail(raises=RuntimeError, strict=True,
                   reason="SuperSuit 3.11's AsyncAECVectorEnv reads env.terms, gone since PettingZoo 1.23 (fails on "
                          "every current AEC env); when this passes, update docs/integrations.md")
def test_supersuit_multiprocess_aec_vectorization_is_broken_upstream():
    _vectorized_play(num_cpus=2)
