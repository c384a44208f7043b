"""``env.state()`` and ``state_space`` on every registered env: the whole true state as one float32 vector.

The vector is every seat's observation followed by the facts no seat observes
(envs/core/state_vector.py). Checked over random games of every configuration:
shape, dtype and bounds; the observations inside it equal ``observe``; two
states that differ in any hidden fact give different vectors (the games' own
tests add the control: a pile order no observation shows changes the vector,
``conformance.check_unseen_order_in_state``); and no runner of the project
ever asks for it.
"""

from __future__ import annotations

import numpy as np
import pytest

from kakurega.envs import make
from kakurega.envs.core.aec import EnvUsageError, TurnBasedAECEnv
from kakurega.envs.core.game import TERMINAL
from kakurega.envs.core.state_vector import StateVector
from kakurega.envs.registry import ENV_SPECS, latest_envs
from tests.conformance import play_random, registry_cases

CASES = registry_cases()


def _check_state(env) -> None:
    raw = env.unwrapped
    state = env.state()
    size = raw.state_vector.layout.size
    assert state.shape == (size,) == raw.state_space.shape and state.dtype == np.float32
    assert np.isfinite(state).all() and raw.state_space.contains(state), "state outside state_space"
    observation_size = raw.layout.size
    for seat, agent in enumerate(raw.possible_agents):
        part = state[seat * observation_size : (seat + 1) * observation_size]
        np.testing.assert_array_equal(part, raw.observe(agent)["observation"])


@pytest.mark.parametrize(("name", "config"), CASES)
def test_state_shape_dtype_bounds_and_observations_over_random_games(name, config):
    env = make(name, **config)
    for seed in (0, 1):
        play_random(env, seed=seed, agent_seed=seed, on_step=_check_state)
        _check_state(env)  # the final state too


@pytest.mark.parametrize(("name", "config"), CASES)
def test_state_layout_names_cover_the_vector(name, config):
    raw = make(name, wrapped=False, **config)
    layout = raw.state_vector.layout
    offset = 0
    for piece in layout.pieces.values():
        assert piece.start == offset
        offset = piece.stop
    assert offset == layout.size == len(raw.possible_agents) * raw.layout.size + raw.state_vector.unseen.size
    names = list(layout.pieces)
    expected = [f"{agent}/{p}" for agent in raw.possible_agents for p in raw.layout.pieces]
    assert names[: len(expected)] == expected
    assert all(n.startswith("unseen/") for n in names[len(expected) :])
    np.testing.assert_array_equal(raw.state_space.high, layout.high)


@pytest.mark.parametrize(("name", "config"), CASES)
def test_states_that_differ_in_hidden_facts_give_different_vectors(name, config):
    env = make(name, wrapped=False, **config)
    encoder = make(name, wrapped=False, **config).state_vector  # a second env's: samples never touch env's
    game = env.game
    rng = np.random.default_rng(0)
    compared = 0
    for seed in (0, 1):
        env.reset(seed=seed)
        step = 0
        while game.current_player(env.game_state) != TERMINAL:
            if step % 5 == 0:
                true_state = env.game_state
                vector = encoder.encode(true_state)
                for seat in range(game.num_players):
                    sample = game.resample_hidden(true_state, seat, rng)
                    if game.fingerprint(sample) == game.fingerprint(true_state):
                        continue
                    other = encoder.encode(sample)
                    compared += 1
                    assert not np.array_equal(vector, other), f"step {step}: two different states, one vector"
            env.step(int(rng.choice(env.legal_actions())))
            step += 1
    assert compared > 0


def test_state_is_refused_before_reset_and_is_a_fresh_copy():
    env = make("kakurenbo_v0")
    raw = env.unwrapped
    with pytest.raises(EnvUsageError, match=r"state\(\) before reset"):
        raw.state()
    env.reset(seed=0)
    first = env.state()
    first[:] = -1.0
    assert env.state().min() == 0.0, "state() must hand out a fresh array"


def test_no_runner_asks_for_the_state(monkeypatch):
    """Tournaments, the training view, the web app and the agents' context never read ``state()``."""
    from kakurega.agents.base import AgentContext
    from kakurega.agents.tournament import run_tournament
    from kakurega.agents.training.view import SingleAgentView
    from kakurega.scripts.web.session import GameSession

    def refuse(*_):
        raise AssertionError("state() was asked for inside a run")

    monkeypatch.setattr(TurnBasedAECEnv, "state", refuse)
    monkeypatch.setattr(StateVector, "encode", refuse)
    with pytest.raises(AssertionError, match="asked for"):  # the control: a call would be caught
        make(latest_envs()[0]).unwrapped.state()
    for name in latest_envs():
        config = ENV_SPECS[name].configurations[0]
        raw = make(name, wrapped=False, **config)
        seats = len(raw.possible_agents)
        result = run_tournament(name, ["heuristic", "ismcts:simulations=2"], config, games=1, seed=0)
        assert result.total_steps > 0
        view = SingleAgentView(name, config, ["heuristic"])
        _, info = view.reset(seed=0)
        for _ in range(300):
            _, _, terminated, truncated, info = view.step(int(np.flatnonzero(info["action_mask"])[0]))
            if terminated or truncated:
                break
        session = GameSession(name, config, ["heuristic"] + ["random"] * (seats - 1), seed=0)
        while not session.over:
            session.advance()
        context = AgentContext.from_env(raw, name, config)
        assert context.layout is raw.layout and not any(
            isinstance(value, StateVector) or value is raw.state_vector.layout for value in vars(context).values()
        )
