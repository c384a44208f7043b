"""Turn a stable-baselines3 model (MaskablePPO or MaskedDQN) into a kakurega policy file.

The acting part is exported: for PPO the actor (``mlp_extractor.policy_net``
then ``action_net``: logits), for DQN the online Q-network (Q-values). A PPO
file also gets the critic (``mlp_extractor.value_net`` then ``value_net``) as
its value head, which search can use to score positions. Optimizer state and
the replay buffer stay in the run's checkpoints
(:mod:`~kakurega.agents.training.checkpoint`), which exist for
resuming training only.
"""

from __future__ import annotations

import numpy as np

from kakurega.agents.policy import env_version, resolved_env_options, save_policy

_ACTIVATION_NAMES = {"Tanh": "tanh", "ReLU": "relu", "ELU": "elu", "LeakyReLU": "leaky_relu", "SiLU": "silu", "Identity": "identity"}


def _activation_name(module_class) -> str:
    name = _ACTIVATION_NAMES.get(module_class.__name__)
    if name is None:
        raise ValueError(f"activation {module_class.__name__} cannot be exported; use one of {sorted(_ACTIVATION_NAMES)}")
    return name


def policy_from_model(model) -> tuple[list[tuple[np.ndarray, np.ndarray]], str, str]:
    """``(layers, activation, algorithm)`` of an SB3 MaskablePPO / (Masked)DQN model's acting network."""
    import torch.nn as nn
    from stable_baselines3.common.torch_layers import FlattenExtractor

    policy = model.policy
    if hasattr(policy, "q_net"):
        algorithm = "dqn"
        extractor = policy.q_net.features_extractor
        modules = list(policy.q_net.q_net)
        activation = policy.q_net.activation_fn
    elif hasattr(policy, "mlp_extractor") and hasattr(policy, "action_net"):
        algorithm = "ppo"
        extractor = policy.pi_features_extractor if hasattr(policy, "pi_features_extractor") else policy.features_extractor
        modules = list(policy.mlp_extractor.policy_net) + [policy.action_net]
        activation = policy.activation_fn
    else:
        raise TypeError(f"cannot export a {type(policy).__name__}: expected a MaskablePPO or DQN MLP policy")
    if not isinstance(extractor, FlattenExtractor):
        raise TypeError(f"cannot export features extractor {type(extractor).__name__}: only the default FlattenExtractor")
    layers = []
    for module in modules:
        if isinstance(module, nn.Linear):
            layers.append((module.weight.detach().cpu().numpy().copy(), module.bias.detach().cpu().numpy().copy()))
        elif not isinstance(module, activation):
            raise TypeError(f"cannot export layer {module!r}: only Linear layers and {activation.__name__}")
    return layers, _activation_name(activation), algorithm


def value_from_model(model) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """The critic of a MaskablePPO model as MLP layers (``None`` for DQN)."""
    import torch.nn as nn
    from stable_baselines3.common.torch_layers import FlattenExtractor

    policy = model.policy
    if not (hasattr(policy, "mlp_extractor") and hasattr(policy, "value_net")):
        return None
    extractor = policy.vf_features_extractor if hasattr(policy, "vf_features_extractor") else policy.features_extractor
    if not isinstance(extractor, FlattenExtractor):
        return None
    layers = []
    for module in list(policy.mlp_extractor.value_net) + [policy.value_net]:
        if isinstance(module, nn.Linear):
            layers.append((module.weight.detach().cpu().numpy().copy(), module.bias.detach().cpu().numpy().copy()))
        elif not isinstance(module, policy.activation_fn):
            return None
    return layers


def policy_metadata(model, env_name: str, env_kwargs: dict, training_steps: int | None = None, extra: dict | None = None) -> tuple[dict, list]:
    """``(metadata, layers)`` describing ``model`` as a policy for ``env_name(**env_kwargs)``."""
    from kakurega.envs.registry import make

    layers, activation, algorithm = policy_from_model(model)
    raw = make(env_name, wrapped=False, **env_kwargs)

    metadata = {
        "env": env_name,
        "env_version": env_version(env_name),
        "env_options": resolved_env_options(env_name, env_kwargs),
        "observation_size": int(raw.layout.size),
        "num_actions": int(raw.game.num_actions),
        "num_players": int(raw.game.num_players),
        "algorithm": algorithm,
        "output": "logits" if algorithm == "ppo" else "q_values",
        "training_steps": int(model.num_timesteps if training_steps is None else training_steps),
        "network": {"type": "mlp", "activation": activation, "sizes": [int(layers[0][0].shape[1])] + [int(w.shape[0]) for w, _ in layers]},
        "kakurega_version": _package_version(),
    }
    metadata.update(extra or {})
    return metadata, layers


def export_policy(model, path, env_name: str, env_kwargs: dict | None = None, training_steps: int | None = None, extra: dict | None = None):
    """Write ``model``'s acting network as a policy file at ``path``; returns the file written."""
    metadata, layers = policy_metadata(model, env_name, dict(env_kwargs or {}), training_steps, extra)
    return save_policy(path, layers, metadata, value_layers=value_from_model(model))


def _package_version() -> str:
    try:
        from importlib.metadata import version

        return version("kakurega")
    except Exception:  # not installed as a distribution: metadata is informative only
        return "unknown"
