"""The parallel form of every env: PettingZoo's ``turn_based_aec_to_parallel`` passes ``parallel_api_test``.

``metadata["is_parallelizable"]`` is PettingZoo's flag for ``aec_to_parallel``,
which needs the agents to act in rounds: the game declares it
(``Game.turns_cycle``, by default for one seat only), checked against random
games and, where true, against PettingZoo's own wrapper.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pytest
import toy_game
from pettingzoo.test import parallel_api_test
from pettingzoo.utils.conversions import aec_to_parallel_wrapper, turn_based_aec_to_parallel

from kakurega.envs import make
from kakurega.envs.core.aec import EnvUsageError, wrap
from kakurega.envs.core.game import TERMINAL, Game
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


def _turns_go_in_rounds(env, games: int = 10) -> bool:
    """Whether random games of ``env`` all go in rounds: seats 0, 1, ..., n-1 in turn, each game ending with the
    last seat's move (what PettingZoo's ``aec_to_parallel`` needs: it steps the live agents in order)."""
    rng = np.random.default_rng(0)
    seats = len(env.possible_agents)
    for seed in range(games):
        env.reset(seed=seed)
        actors = []
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            actors.append(env.possible_agents.index(agent))
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        if actors != [i % seats for i in range(len(actors))] or len(actors) % seats:
            return False
    return True


@pytest.mark.parametrize(("name", "config"), CASES)
def test_is_parallelizable_exactly_where_turns_go_in_rounds(name, config):
    """The flag is the game's ``turns_cycle()``, true exactly where random games go in rounds; where it is true,
    PettingZoo's ``aec_to_parallel`` plays whole games."""
    env = make(name, **config)
    flag = env.metadata["is_parallelizable"]
    assert flag == env.unwrapped.game.turns_cycle()
    assert flag == _turns_go_in_rounds(env), f"is_parallelizable is {flag}: the game's turns_cycle() is wrong"
    if flag:
        _random_parallel_games(aec_to_parallel_wrapper(env), games=3)


class _RoundsToy(toy_game.ToyGame):
    """The toy game played on to the end of the round in which a seat busts: seats 0, 1, 2 in turn, the end after
    seat 2, as its ``turns_cycle`` declares."""

    def turns_cycle(self):
        return True

    def is_terminal(self, state):
        return state.loser is not None and state.turn % 3 == 0

    def current_player(self, state):
        return TERMINAL if self.is_terminal(state) else state.turn % 3

    def legal_actions(self, state):
        return [] if self.is_terminal(state) else [0, 1]

    def apply_action(self, state, action, rng):
        if state.loser is None:
            super().apply_action(state, action, rng)
        else:
            state.turn += 1


class _UndeclaredRoundsToy(_RoundsToy):
    turns_cycle = Game.turns_cycle  # the default: no cycle claimed for three seats


class _MidRoundToy(toy_game.ToyGame):
    """Declares a cycle; its seats do take turns, but a bust ends the game in the middle of a round."""

    def turns_cycle(self):
        return True


@pytest.mark.parametrize(("game", "declared", "in_rounds"), [
    (_RoundsToy, True, True), (_UndeclaredRoundsToy, False, True), (_MidRoundToy, True, False),
], ids=["declared", "undeclared", "ends-mid-round"])
def test_the_game_declares_its_rounds_and_the_check_compares_it_with_its_play(game, declared, in_rounds):
    """The flag is the game's ``turns_cycle()``; the controls: an undeclared cycle and a false claim both differ
    from what random games show, which the registry test above reports. PettingZoo's wrapper plays a game that
    goes in rounds and stops at a game that ends mid-round."""
    env = wrap(replace(toy_game.DEFINITION, game=game).build())
    assert env.metadata["is_parallelizable"] is declared
    assert _turns_go_in_rounds(env) is in_rounds
    env.unwrapped.metadata = {**env.unwrapped.metadata, "is_parallelizable": True}  # let the wrapper try
    if in_rounds:
        _random_parallel_games(aec_to_parallel_wrapper(env), games=6)
    else:
        with pytest.raises(EnvUsageError, match="whose game is over"):
            _random_parallel_games(aec_to_parallel_wrapper(env), games=6)


def test_the_parallel_form_gives_the_global_state():
    name, config = CASES[0].values
    parallel = turn_based_aec_to_parallel(make(name, **config))
    parallel.reset(seed=0)
    state = parallel.state()
    assert parallel.state_space.contains(state)
