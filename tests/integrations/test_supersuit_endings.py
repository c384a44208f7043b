"""SuperSuit's AEC vectorizer over every registered env: each finished game reaches a seat of it, with its reward.

SuperSuit 3.11's ``vectorize_aec_env_v0`` resets a finished game at its next
vector step, and that step goes to the next seat in seat order that is selected
in any of its envs. A game's ending is read only if the env selects that seat
after the end, as PettingZoo's classic envs do (tictactoe_v3: the control).
"""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

from kakurega.envs import make
from kakurega.integrations.flat import flat_observation_v0
from tests.conformance import registry_cases

supersuit = pytest.importorskip("supersuit")


def vectorized_endings(env, num_envs: int = 3, steps: int = 600, seed: int = 0) -> list:
    """Random play through ``vectorize_aec_env_v0``; per ended game, ``(reward sums per seat, the env's raw env)``
    as they stand at the end.

    Asserts that every game that ends is read at the next vector step by the
    seat the vectorizer selects (not passing, terminated or truncated), with
    ``last()``'s reward equal to the rewards that seat received since it last acted.
    """
    vec = supersuit.vectorize_aec_env_v0(flat_observation_v0(env), num_envs=num_envs)
    vec.reset(seed=seed)
    agents = vec.possible_agents
    rng = np.random.default_rng(seed)
    since_acted = np.zeros((num_envs, len(agents)))  # what last() should report as each seat's reward
    game_sums = np.zeros((num_envs, len(agents)))  # every reward of the game under way, per seat
    ended, finished = [], []
    for agent in vec.agent_iter(steps):
        _, reward, terminated, truncated, _, _, passes, _ = vec.last()
        seat = agents.index(agent)
        for i in ended:
            assert not passes[i], f"env {i}: the game ended, but its next vector step went to another seat"
            assert terminated[i] or truncated[i], f"env {i}: {agent} reads the finished game as live"
            assert reward[i] == pytest.approx(since_acted[i, seat]), f"env {i}: {agent}'s final reward"
        actions = []
        for i, wrapped in enumerate(vec.envs):
            legal = np.flatnonzero(wrapped.action_mask(agent)) if not passes[i] else []
            actions.append(int(rng.choice(legal)) if len(legal) else 0)
            if len(legal):
                since_acted[i, seat] = 0.0
        vec.step(actions)
        rewards = np.stack([vec.rewards[a] for a in agents], axis=1)
        since_acted += rewards
        game_sums += rewards
        done = np.stack([vec.terminations[a] | vec.truncations[a] for a in agents], axis=1).all(axis=1)
        for i in ended:  # reset by this step
            since_acted[i] = game_sums[i] = 0.0
        ended = [int(i) for i in np.flatnonzero(done)]
        for i in ended:
            finished.append((game_sums[i].copy(), vec.envs[i].unwrapped))
            if hasattr(vec.envs[i].unwrapped, "game"):  # a kakurega env: the rules' returns of the game
                raw = vec.envs[i].unwrapped
                np.testing.assert_allclose(game_sums[i], raw.game.returns(raw.game_state), atol=1e-6)
    return finished


@pytest.mark.parametrize(("name", "config"), registry_cases())
def test_every_finished_game_reaches_a_seat_through_the_vectorizer(name, config):
    games = vectorized_endings(make(name, **config))
    assert len(games) >= 3, f"only {len(games)} games ended; play longer"


def test_control_tictactoe_ends_the_same_way():
    from pettingzoo.classic import tictactoe_v3

    games = vectorized_endings(tictactoe_v3.env())
    assert len(games) >= 3


class _RecordingParallel(turn_based_aec_to_parallel_wrapper):
    """The parallel form, keeping the returns of each game it finished (read before the reset that follows)."""

    def __init__(self, aec_env):
        super().__init__(aec_env)
        self.finished = []

    def reset(self, seed=None, options=None):
        raw = self.aec_env.unwrapped
        if getattr(self, "agents", None) == []:
            self.finished.append(raw.game.returns(raw.game_state).tolist())
        return super().reset(seed=seed, options=options)


@pytest.mark.parametrize(("name", "config"), registry_cases())
def test_the_parallel_vectorizer_gives_every_seat_its_ending(name, config):
    """SuperSuit's ``pettingzoo_env_to_vec_env_v1`` on the parallel form: every seat's terminal, every reward."""
    parallel = _RecordingParallel(flat_observation_v0(make(name, **config)))
    vec = supersuit.concat_vec_envs_v1(supersuit.pettingzoo_env_to_vec_env_v1(parallel), 2)
    seats = len(parallel.possible_agents)
    _, infos = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    ends, rewards = np.zeros(2 * seats, dtype=int), np.zeros(2 * seats)
    for _ in range(400):
        legal = [np.flatnonzero(info.get("action_mask", [])) for info in infos]
        actions = [int(rng.choice(options)) if len(options) else 0 for options in legal]  # 0: not that seat's turn
        _, reward, terminated, truncated, infos = vec.step(np.array(actions))
        done = (terminated | truncated).reshape(2, seats)
        assert (done.all(axis=1) | ~done.any(axis=1)).all(), "a game ended for some of its seats only"
        ends += terminated | truncated
        rewards += reward
    for i, markov in enumerate(vec.vec_envs):
        recorded, raw = markov.par_env, markov.par_env.aec_env.unwrapped
        assert len(recorded.finished) >= 1 and (ends[i * seats : (i + 1) * seats] == len(recorded.finished)).all()
        expected = np.sum(recorded.finished, axis=0) + raw.game.returns(raw.game_state)  # the game under way too
        np.testing.assert_allclose(rewards[i * seats : (i + 1) * seats], expected, atol=1e-5)
