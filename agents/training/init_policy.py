"""Fine-tuning: a PPO run that starts from a policy file's weights (config key ``init_policy``).

The run's network must be the one the file holds: the same env with the same
observation and action spaces, piece by piece (the options may differ, e.g.
a shipped bot fine-tuned under another rule), the same hidden layers and
activation, the same move features and feature head, and no layer
normalization. The file's actor, its feature head and, where the file has
one, its critic are copied into the fresh model before the first PPO step;
the optimizer starts fresh and the run counts its own learner steps. The
file is read as safetensors (:func:`~kakurega.agents.policy.read_policy`),
never unpickled. A resumed run continues from its own checkpoint instead.
"""

from __future__ import annotations

from pathlib import Path

from kakurega.agents.training.config import ConfigError


def check_init_policy(config: dict, context) -> tuple[dict, list, list | None]:
    """``(metadata, layers, value_layers)`` of the config's ``init_policy``, refused in words where it does not fit."""
    from kakurega.agents.policy import PolicyFileError, context_for, read_policy, space_differences

    key = "config key 'init_policy'"
    if config["algorithm"] != "ppo":
        raise ConfigError(f"{key}: fine-tuning from a policy file is for algorithm ppo only")
    if config["pretrain"]["steps"]:
        raise ConfigError(f"{key}: the run starts from the file's weights; set pretrain.steps to 0 "
                          "(or drop init_policy to imitate first)")
    path = Path(config["init_policy"])
    try:
        meta, layers, value_layers = read_policy(path, with_value=True)
    except PolicyFileError as error:
        raise ConfigError(f"{key}: {error}") from None
    if meta["env"] != config["env"] or meta["algorithm"] != "ppo":
        raise ConfigError(f"{key}: {path} is a {meta['algorithm']} policy of {meta['env']}; expected a ppo policy "
                          f"of {config['env']}")
    try:
        trained = context_for(meta["env"], dict(meta["env_options"]))
    except (TypeError, ValueError, OverflowError) as error:
        raise ConfigError(f"{key}: the options {path} was trained with cannot be made: {error}") from None
    differences = space_differences(trained, context)
    network = meta["network"]
    wanted = config["network"]
    if network["sizes"][1:-1] != wanted["hidden"] or network["activation"] != wanted["activation"]:
        differences.append(f"network: file {network['sizes'][1:-1]} {network['activation']}, "
                           f"config {wanted['hidden']} {wanted['activation']}")
    value_sizes = network.get("value_sizes")
    if value_sizes is not None and value_sizes[1:-1] != network["sizes"][1:-1]:
        differences.append(f"network: the file's critic has layers {value_sizes[1:-1]}, its actor "
                           f"{network['sizes'][1:-1]}; the trainer's have the same")
    if network.get("layer_norm") is not None:
        differences.append("network: the file has layer normalization, which the trainer's network has not")
    reads_features = meta.get("inputs", ["observation"]) == ["observation", "move_features"]
    if meta.get("inputs", ["observation"]) not in (["observation"], ["observation", "move_features"]):
        differences.append(f"inputs: the file reads {meta['inputs']}, the trainer's network the observation "
                           "(and move features)")
    elif reads_features != wanted["move_features"]:
        differences.append(f"move features: file {reads_features}, config network.move_features {wanted['move_features']}")
    elif reads_features:
        from kakurega.agents.move_features import newest_version

        version, newest = meta.get("move_features_version", 0), newest_version(config["env"])
        if version != newest:  # the trainer computes the newest features: other columns under the file's weights
            differences.append(f"move features: the file reads version {version} of {config['env']}'s, the trainer "
                               f"computes version {newest}")
    if (network.get("feature_head") is not None) != wanted["feature_head"]:
        differences.append(f"feature head: file {network.get('feature_head') is not None}, "
                           f"config network.feature_head {wanted['feature_head']}")
    if differences:
        raise ConfigError(f"{key}: {path} does not fit this run's network: " + "; ".join(differences))
    return meta, layers, value_layers


def load_init_policy(model, config: dict, context) -> str:
    """Copy the config's ``init_policy`` into ``model`` (a fresh MaskablePPO); returns a sentence for the log."""
    import numpy as np
    import torch

    from kakurega.agents.training.export import policy_from_model
    from kakurega.agents.training.feature_head import HEAD_SCALE

    meta, layers, value_layers = check_init_policy(config, context)
    policy = model.policy
    linear = torch.nn.Linear
    actor = [m for m in policy.mlp_extractor.policy_net if isinstance(m, linear)] + [policy.action_net]
    critic = [m for m in policy.mlp_extractor.value_net if isinstance(m, linear)] + [policy.value_net]
    with torch.no_grad():
        for modules, source in ((actor, layers), (critic, value_layers or [])):
            for module, (weight, bias) in zip(modules, source):
                if tuple(module.weight.shape) != weight.shape:
                    raise ConfigError(f"config key 'init_policy': a layer of the file is {weight.shape}, the run's "
                                      f"{tuple(module.weight.shape)}")
                module.weight.copy_(torch.as_tensor(weight))
                module.bias.copy_(torch.as_tensor(bias))
        head = meta["network"].get("feature_head")
        if head is not None:
            policy.feature_head.copy_(torch.as_tensor(np.asarray(head, dtype=np.float32) / HEAD_SCALE))
    copied, _, _, _ = policy_from_model(model)
    if not all(np.allclose(a, b, atol=1e-6) for pair_a, pair_b in zip(copied, layers) for a, b in zip(pair_a, pair_b)):
        raise RuntimeError("init_policy: the model's actor does not hold the file's weights after the copy")
    critic_words = "its critic" if value_layers else "a fresh critic (the file has none)"
    steps = meta.get("training_steps", "an unknown number of")  # (a field no reader needs: not every file has it)
    return (f"starting from {config['init_policy']} ({steps} learner steps under "
            f"{meta['env_options']}): its actor and {critic_words}")
