"""The parallel form of every env: PettingZoo's ``turn_based_aec_to_parallel`` passes ``parallel_api_test``.

``metadata["is_parallelizable"]`` is PettingZoo's flag for ``aec_to_parallel``,
which needs the agents to act in a fixed cycle: true exactly where that
conversion plays whole games (the one-seat games), checked against PettingZoo's
own wrapper.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test
from pettingzoo.utils.conversions import aec_to_parallel_wrapper, turn_based_aec_to_parallel

from kakurega.envs import make
from tests.conformance import registry_cases

CASES = registry_cases()


def _random_parallel_games(parallel, games: int = 2, seed: int = 0) -> list[dict]:
    """Play ``games`` random games of a ParallelEnv; the per-seat reward sums of each."""
    rng = np.random.default_rng(seed)
    sums = []
    for game in range(games):
        observations, _ = parallel.reset(seed=seed + game)
        total = dict.fromkeys(parallel.possible_agents, 0.0)
        while parallel.agents:
            actions = {}
            for agent in parallel.agents:
                legal = np.flatnonzero(observations[agent]["action_mask"])
                actions[agent] = int(rng.choice(legal)) if len(legal) else 0  # ignored: not this agent's turn
            observations, rewards, _, _, _ = parallel.step(actions)
            for agent, reward in rewards.items():
                total[agent] += reward
        sums.append(total)
    return sums


@pytest.mark.parametrize(("name", "config"), CASES)
def test_turn_based_parallel_form_passes_parallel_api_test(name, config):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo's test warns where it does not fail (a live agent given no reward...)
        parallel_api_test(turn_based_aec_to_parallel(make(name, **config)), num_cycles=10_000)


@pytest.mark.parametrize(("name", "config"), CASES)
def test_parallel_rewards_sum_to_the_games_returns(name, config):
    env = make(name, **config)
    parallel = turn_based_aec_to_parallel(env)
    for seed in (0, 1):
        (sums,) = _random_parallel_games(parallel, games=1, seed=seed)
        raw = env.unwrapped
        np.testing.assert_allclose(list(sums.values()), raw.game.returns(raw.game_state), atol=1e-6)


@pytest.mark.parametrize(("name", "config"), CASES)
def test_is_parallelizable_exactly_where_aec_to_parallel_plays_whole_games(name, config):
    env = make(name, **config)
    flag = env.metadata["is_parallelizable"]
    env.unwrapped.metadata = {**env.unwrapped.metadata, "is_parallelizable": True}  # let the wrapper try
    try:
        _random_parallel_games(aec_to_parallel_wrapper(env), games=1)
        works = True
    except AssertionError as error:
        assert "expects agents to step in a cycle" in str(error)
        works = False
    assert flag == works


def test_the_parallel_form_gives_the_global_state():
    name, config = CASES[0].values
    parallel = turn_based_aec_to_parallel(make(name, **config))
    parallel.reset(seed=0)
    state = parallel.state()
    assert parallel.state_space.contains(state)
