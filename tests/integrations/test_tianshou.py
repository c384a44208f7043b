"""Tianshou: the multi-agent recipe and the single-seat form train (tiny runs); the multi-agent buffer holds
other players' observations as obs_next (the documented caveat); the learner exports to a policy file."""

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
