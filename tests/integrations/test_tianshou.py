"""Tianshou: the multi-agent recipe and the single-seat form train (tiny runs); the multi-agent buffer holds
other players' observations as obs_next and gives no seat the rewards paid on other seats' moves (the documented
caveats); the learner exports to a policy file."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tianshou")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tianshou_dqn.py"


def _example():
    spec = importlib.util.spec_from_file_location("tianshou_dqn_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TINY = ["--epochs", "1", "--epoch-steps", "100", "--envs", "2", "--hidden", "16"]


def test_multi_agent_collector_stores_other_players_views_as_obs_next():
    """The caveat, shown cheaply: random masked players, one collection, no training."""
    from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.env.pettingzoo_env import PettingZooEnv

    from kakurega.envs import make

    np.random.seed(0)  # Tianshou's random players draw from numpy's global generator
    env = PettingZooEnv(make("animal_chain_v0"))
    players = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents]
    envs = DummyVectorEnv([lambda: PettingZooEnv(make("animal_chain_v0"))] * 2)
    envs.seed(0)
    buffer = VectorReplayBuffer(1000, 2)
    collector = Collector[CollectStats](MultiAgentOffPolicyAlgorithm(algorithms=players, env=env), envs, buffer)
    collector.reset()
    collector.collect(n_step=200)
    batch = buffer[:]
    crossed = batch.obs.agent_id != batch.obs_next.agent_id
    # every handover of the turn crosses seats (Animal Chain's opening lets one player act several times in a row)
    assert crossed.sum() >= 10
    # and what crossed is the other player's own private view, not the actor's
    first = int(np.flatnonzero(crossed)[0])
    assert not np.array_equal(batch.obs.obs[first], batch.obs_next.obs[first])


def _own_and_whole_returns(name, options, episodes):
    """Tianshou's multi-agent recipe with random masked players: per seat and game, the rewards of the transitions
    its own algorithm is given (``obs.agent_id`` its own, ``rew[:, seat]``: ``dispatch_process_fn``) and its return."""
    from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.env.pettingzoo_env import PettingZooEnv

    from kakurega.envs import make

    np.random.seed(0)
    env = PettingZooEnv(make(name, **options))
    players = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents]
    envs = DummyVectorEnv([lambda: PettingZooEnv(make(name, **options))])
    envs.seed(0)
    buffer = VectorReplayBuffer(100_000, 1)
    collector = Collector[CollectStats](MultiAgentOffPolicyAlgorithm(algorithms=players, env=env), envs, buffer)
    collector.reset()
    collector.collect(n_episode=episodes)
    batch = buffer[:]
    ends = np.flatnonzero(np.logical_or(batch.terminated, batch.truncated))
    pairs = []
    for start, end in zip(np.concatenate([[0], ends[:-1] + 1]), ends):
        ids, rewards = batch.obs.agent_id[start:end + 1], batch.rew[start:end + 1]
        pairs.append([(rewards[ids == agent, seat].sum(), rewards[:, seat].sum()) for seat, agent in enumerate(env.agents)])
    return pairs


def test_multi_agent_form_gives_a_seat_none_of_the_rewards_paid_on_other_seats_moves():
    """The second caveat (docs/integrations.md): a game's last move pays every seat, but each seat's algorithm
    learns only from its own transitions, so the loser's -1, paid on the winner's move, never reaches it. The
    single-seat form's rewards sum to the seat's return (tests/integrations/test_flat.py and the view's tests)."""
    games = _own_and_whole_returns("summer_hide_and_seek_v2", {"num_players": 2}, 20)
    missed = [(own, whole) for game in games for own, whole in game if abs(own - whole) > 1e-9]
    assert len(games) == 20 and len(missed) >= 10
    assert all(own == 0.0 and whole != 0.0 for own, whole in missed)  # the whole return paid on another's move
    # the control: every seat's column summed over the game's transitions is a zero-sum game's returns
    assert all(sorted(whole for _own, whole in game) in ([-1.0, 1.0], [0.0, 0.0]) for game in games)


@pytest.mark.slow
def test_multi_agent_form_trains():
    result, _, _ = _example().main(["--form", "marl", "--env", "animal_chain_v0", *TINY])
    assert result.train_step >= 100


@pytest.mark.slow
def test_single_seat_form_trains_masked_and_exports(tmp_path, capsys):
    from kakurega.scripts.cli import main

    path = tmp_path / "dqn.safetensors"
    result, buffer, _ = _example().main(["--form", "single", "--env", "animal_chain_v0", *TINY, "--export", str(path)])
    assert result.train_step >= 100
    batch = buffer[:]
    legal = batch.obs.mask[np.arange(len(batch)), batch.act.astype(int)]
    assert legal.all()  # every stored action was legal: the mask reached the policy
    assert main(["evaluate", "animal_chain_v0", "--agents", f"policy:{path}", "random", "--games", "4", "--quiet"]) == 0


def test_single_seat_env_has_one_info_shape_and_int8_masks():
    from kakurega.integrations.tianshou import single_seat_env

    env = single_seat_env("kakurenbo_v0", {"num_players": 3})
    obs, info = env.reset(seed=0)
    assert set(info) == {"final_return", "win"} and obs["mask"].dtype == np.int8
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(obs["mask"])[0]))
        assert set(info) == {"final_return", "win"}
        done = terminated or truncated
    assert not obs["mask"].any()


def test_the_single_seat_form_ends_a_game_cut_off_at_its_limit_terminated():
    """Tianshou bootstraps through a truncation; a game cut off at its step limit is scored by the rules, so the
    single-seat form ends it terminated, its last reward the rules' result."""
    from kakurega.integrations.tianshou import single_seat_env

    env = single_seat_env("kakurenbo_v1", {"num_players": 3, "max_steps": 6}, opponents=["random"])
    rng = np.random.default_rng(0)
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
            total += reward
            done = terminated or truncated
        assert terminated and not truncated
        assert total == pytest.approx(info["final_return"])
        raw = env.unwrapped.raw
        assert any(raw.truncations.values()) and not any(raw.terminations.values())  # the control: a cut-off
