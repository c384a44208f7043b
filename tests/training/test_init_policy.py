"""Fine-tuning (config key ``init_policy``): a run starts from a policy file's weights, and a file that does not
fit the run's network is refused before training, naming what differs."""

import pickle

import numpy as np
import pytest

from kakurega.agents.policy import read_policy
from kakurega.agents.pretrained import find
from kakurega.agents.training.config import ConfigError, validate_config

BOT = str(find("animal_chain_v1"))
RECIPE = {  # the shipped recipe's network, fine-tuned under another rule
    "env": "animal_chain_v1", "env_kwargs": {"connection_rule": "any"}, "algorithm": "ppo", "total_timesteps": 512,
    "n_envs": 2, "network": {"hidden": [128, 128], "activation": "tanh", "move_features": True, "feature_head": True},
    "ppo": {"n_steps": 256, "batch_size": 512}, "init_policy": BOT,
}


def test_a_run_starts_from_the_files_actor_feature_head_and_critic():
    from kakurega.agents.policy import context_for
    from kakurega.agents.training.export import policy_metadata, value_from_model
    from kakurega.agents.training.init_policy import load_init_policy
    from kakurega.agents.training.trainer import build_model, make_vec_env

    config = validate_config(RECIPE)
    vec_env = make_vec_env(config)
    try:
        model = build_model(config, vec_env)
        fresh, _ = policy_metadata(model, config["env"], config["env_kwargs"], move_features=True)
        said = load_init_policy(model, config, context_for(config["env"], config["env_kwargs"]))
        meta, layers = policy_metadata(model, config["env"], config["env_kwargs"], move_features=True)
        critic = value_from_model(model)
    finally:
        vec_env.close()
    file_meta, file_layers, file_critic = read_policy(BOT, with_value=True)
    assert fresh["network"]["feature_head"] != file_meta["network"]["feature_head"]  # control: a fresh net differs
    assert meta["network"]["feature_head"] == pytest.approx(file_meta["network"]["feature_head"], abs=1e-5)
    for (weight, bias), (file_weight, file_bias) in zip(layers + critic, file_layers + file_critic):
        np.testing.assert_allclose(weight, file_weight, atol=1e-6)
        np.testing.assert_allclose(bias, file_bias, atol=1e-6)
    assert said.startswith(f"starting from {BOT} (401408 learner steps under ") and "its actor and its critic" in said


def test_a_file_without_its_step_count_starts_the_run(tmp_path):
    """``training_steps`` is a field no reader needs (files of other tools may lack it): the log says so instead of
    a KeyError after the weights were copied."""
    from kakurega.agents.policy import context_for, save_policy
    from kakurega.agents.training.init_policy import load_init_policy
    from kakurega.agents.training.trainer import build_model, make_vec_env

    meta, layers, value_layers = read_policy(BOT, with_value=True)
    meta = {key: value for key, value in meta.items() if key != "training_steps"}
    path = save_policy(tmp_path / "no_steps.safetensors", layers, meta, value_layers=value_layers)
    config = validate_config({**RECIPE, "init_policy": str(path)})
    vec_env = make_vec_env(config)
    try:
        said = load_init_policy(build_model(config, vec_env), config, context_for(config["env"], config["env_kwargs"]))
    finally:
        vec_env.close()
    assert said.startswith(f"starting from {path} (an unknown number of learner steps under ")


def _refusal(change: dict) -> str:
    with pytest.raises(ConfigError) as error:
        validate_config({**RECIPE, **change})
    return str(error.value)


def test_a_file_that_does_not_fit_is_refused_naming_what_differs(tmp_path):
    hidden_rooms = str(find("hidden_rooms_v0", {"episode": "round"}))
    assert _refusal({"init_policy": str(tmp_path / "none.safetensors")}) == (
        f"config key 'init_policy': policy file {tmp_path / 'none.safetensors'} does not exist")
    assert _refusal({"init_policy": hidden_rooms}) == (
        f"config key 'init_policy': {hidden_rooms} is a ppo policy of hidden_rooms_v0; expected a ppo policy of "
        "animal_chain_v1")
    assert _refusal({"network": {**RECIPE["network"], "hidden": [64, 64]}}) == (
        f"config key 'init_policy': {BOT} does not fit this run's network: network: file [128, 128] tanh, "
        "config [64, 64] tanh")
    assert "feature head: file True, config network.feature_head False" in _refusal(
        {"network": {**RECIPE["network"], "feature_head": False}})
    small = {"shape": "envs/data/small/animal_chain_shape_1_2_1.yaml"}
    assert "observation pieces hole, face_down" in _refusal({"env_kwargs": small})
    assert _refusal({"pretrain": {"steps": 100}}) == (
        "config key 'init_policy': the run starts from the file's weights; set pretrain.steps to 0 (or drop "
        "init_policy to imitate first)")
    assert _refusal({"algorithm": "dqn", "network": {"hidden": [128, 128]}}) == (
        "config key 'init_policy': fine-tuning from a policy file is for algorithm ppo only")


def test_a_pickle_is_refused_unread(tmp_path):
    path = tmp_path / "weights.safetensors"
    path.write_bytes(pickle.dumps({"layer_0.weight": [1.0]}))
    assert "is a Python pickle; kakurega never loads pickles" in _refusal({"init_policy": str(path)})


def test_the_path_is_taken_as_text_in_an_override(tmp_path):
    from kakurega.agents.training.config import load_config

    path = tmp_path / "c.yaml"
    path.write_text("env: animal_chain_v1\nalgorithm: ppo\ntotal_timesteps: 10\n"
                    "network: {hidden: [128, 128], move_features: true, feature_head: true}\n")
    assert load_config(path, [f"init_policy={BOT}"])["init_policy"] == BOT
