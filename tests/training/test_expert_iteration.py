"""Expert iteration: search-target data (root visit shares), the data file, the policy+value
warm start learning them, its config keys, and the value head of exported PPO files."""

from __future__ import annotations

import numpy as np
import pytest
from training_helpers import tiny_config

from kakurega.agents.training.config import ConfigError, validate_config
from kakurega.agents.training.pretrain import collect_demonstrations, demonstrations, visit_distribution

SEARCH = "ismcts:simulations=24,seed=1"


def test_visit_targets_are_the_searchs_root_shares(nim, tmp_path):
    config = validate_config(tiny_config(nim.NAME, "ppo", tmp_path, opponents=["random"]))
    data = collect_demonstrations(config, SEARCH, 80, seed=0, target="visits")
    targets, masks, actions = data["targets"], data["masks"], data["actions"]
    assert targets.shape == (len(actions), 3) and len(actions) >= 80
    np.testing.assert_allclose(targets.sum(axis=1), 1.0, rtol=1e-5)
    assert not (targets[~masks] > 0).any(), "a target puts weight on an illegal action"
    # the move played is a most-visited one; searched decisions spread their visits
    assert all(targets[i, a] == targets[i].max() for i, a in enumerate(actions))
    assert (targets.max(axis=1) < 1).sum() > 10
    assert len(data["returns"]) == len(actions)


def test_a_forced_move_is_one_hot():
    np.testing.assert_array_equal(visit_distribution({2: 0}, 2, 4), [0, 0, 1, 0])
    np.testing.assert_allclose(visit_distribution({0: 3, 2: 1}, 0, 4), [0.75, 0, 0.25, 0])


def test_visits_need_a_searching_agent(nim, tmp_path):
    config = validate_config(tiny_config(nim.NAME, "ppo", tmp_path, opponents=["random"]))
    with pytest.raises(ValueError, match="needs a searching agent"):
        collect_demonstrations(config, "heuristic", 10, seed=0, target="visits")
    with pytest.raises(ConfigError, match="'pretrain.target': 'visits' learns a search's root visit shares"):
        validate_config(tiny_config(nim.NAME, "ppo", tmp_path, pretrain={"steps": 10, "target": "visits"}))
    with pytest.raises(ConfigError, match="'pretrain.target': expected a string among 'action', 'visits'"):
        validate_config(tiny_config(nim.NAME, "ppo", tmp_path, pretrain={"steps": 10, "target": "moves"}))
    with pytest.raises(ConfigError, match=r"'pretrain.value_coef': expected a finite number in \[0, 1000\]"):
        validate_config(tiny_config(nim.NAME, "ppo", tmp_path, pretrain={"value_coef": -1}))


def test_the_data_file_is_reused_only_when_made_the_same_way(nim, tmp_path):
    data_file = tmp_path / "data" / "search.npz"
    pretrain = {"agent": SEARCH, "steps": 40, "target": "visits", "data": str(data_file)}
    config = validate_config(tiny_config(nim.NAME, "ppo", tmp_path, opponents=["random"], pretrain=pretrain))
    first, reused = demonstrations(config)
    assert not reused and data_file.is_file()
    again, reused = demonstrations(config)
    assert reused
    for key in ("observations", "masks", "actions", "returns", "targets"):
        np.testing.assert_array_equal(first[key], again[key])
    assert again["episodes"] == first["episodes"]
    changed = validate_config(tiny_config(nim.NAME, "ppo", tmp_path, opponents=["random"],
                                          pretrain=dict(pretrain, steps=50)))
    _, reused = demonstrations(changed)
    assert not reused, "data made for 40 steps were reused for 50"
    with np.load(data_file, allow_pickle=False) as archive:  # plain arrays: loads without pickles
        assert len(archive["actions"]) >= 50


def test_expert_iteration_warm_start_learns_the_search(nim, tmp_path):
    """The warm-started actor plays the search's moves; the critic learned the returns (it exports)."""
    import kakurega.agents
    from kakurega.agents.tournament import run_tournament
    from kakurega.agents.training.trainer import train

    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", total_timesteps=64, network={"hidden": [32]},
                         opponents=[{"agent": "random", "weight": 1.0}],
                         pretrain={"agent": "ismcts:simulations=40", "target": "visits", "steps": 1500,
                                   "epochs": 30, "batch_size": 64, "value_coef": 1.0},
                         ppo={"n_steps": 32, "batch_size": 32, "n_epochs": 1, "learning_rate": 1e-5})
    result = train(config, quiet=True)
    progress = (tmp_path / "run" / "logs" / "part0" / "progress.csv").read_text().splitlines()
    header, first = progress[0].split(","), progress[1].split(",")
    assert float(first[header.index("pretrain/accuracy")]) > 0.8
    table = run_tournament(nim.NAME, [f"policy:{result.policy_path}", "random"], games=200, seed=3)
    assert table.per_agent[0]["win_rate"] > 0.75
    bot = kakurega.agents.load(result.policy_path)
    assert bot.value_layers is not None


def test_exported_value_head_is_the_critic(nim, tmp_path):
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    import kakurega.agents
    from kakurega.agents.training.export import export_policy
    from kakurega.agents.training.view import SingleAgentView

    vec = DummyVecEnv([lambda: SingleAgentView(nim.NAME, {}, ["random"], illegal_action="raise")] * 2)
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=32, n_epochs=1, seed=0,
                        policy_kwargs=dict(net_arch=[16, 16]))
    model.learn(64)
    path = export_policy(model, tmp_path / "policy.safetensors", nim.NAME, {})
    bot = kakurega.agents.load(path)
    observations = np.random.default_rng(0).random((5, bot.layers[0][0].shape[1])).astype(np.float32)
    with torch.no_grad():
        expected = model.policy.predict_values(torch.as_tensor(observations)).numpy().ravel()
    np.testing.assert_allclose([bot.value(o) for o in observations], expected, rtol=1e-4, atol=1e-5)
