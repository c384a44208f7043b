"""Turn a trained network into a kakurega policy file.

Accepted sources:

- a stable-baselines3 model (MaskablePPO, PPO, (Masked)DQN) with an
  ``MlpPolicy`` or a ``MultiInputPolicy`` on a ``{"observation", "action_mask"}``
  dict (such as ``HiddenRoomsGymEnv``'s); for PPO the actor
  (``mlp_extractor.policy_net`` then ``action_net``: logits), for DQN the
  online Q-network (Q-values);
- a plain torch MLP: an ``nn.Sequential`` (nested ones are flattened) or a
  list of modules made of ``nn.Linear`` layers with one activation between
  them, each optionally after an ``nn.LayerNorm``, mapping the observation
  vector to logits (``algorithm="ppo"``) or Q-values (``algorithm="dqn"``).
  Other libraries' networks (RLlib, Tianshou, CleanRL, AgileRL's
  ``QNetwork`` through :func:`agilerl_modules`) export this way; any other
  module (dropout, convolution, a custom layer) is refused by name, never
  skipped.

The acting part is exported; a PPO model with an ``MlpPolicy`` also gets its critic
(``mlp_extractor.value_net`` then ``value_net``) as the file's value head, which
search can use to score positions. Optimizer state and the
replay buffer stay in the run's checkpoints
(:mod:`~kakurega.agents.training.checkpoint`) or the library's own, which exist for
resuming training only. A network that also reads
the action mask (SB3's ``MultiInputPolicy`` on the dict observation) records
its inputs in the file (``inputs``, e.g. ``["action_mask", "observation"]``,
concatenated in that order), and the policy agent feeds it the same way.
"""

from __future__ import annotations

import numpy as np

from kakurega.agents.policy import (
    DEFAULT_INPUTS,
    INPUT_PIECES,
    MLPLayers,
    env_version,
    mlp_input_size,
    resolved_env_options,
    save_policy,
)

_ACTIVATION_NAMES = {"Tanh": "tanh", "ReLU": "relu", "ELU": "elu", "LeakyReLU": "leaky_relu", "SiLU": "silu", "Identity": "identity"}
ALGORITHMS = {"ppo": "logits", "dqn": "q_values"}


def _activation_name(module_class) -> str:
    name = _ACTIVATION_NAMES.get(module_class.__name__)
    if name is None:
        raise ValueError(f"activation {module_class.__name__} cannot be exported; use one of {sorted(_ACTIVATION_NAMES)}")
    return name


def layers_from_modules(modules) -> tuple[MLPLayers, str]:
    """``(layers, activation)`` of a torch MLP given as ``nn.Sequential`` or a list of modules.

    The modules must be ``nn.Linear`` layers with one kind of activation
    between them, each optionally preceded by an ``nn.LayerNorm`` over the
    layer's outputs (kept in ``layers.norms``); a trailing ``nn.Identity`` is
    dropped. Anything else is refused with its name. A network with a single
    layer has activation ``"identity"``.
    """
    import torch.nn as nn

    flat: list = []

    def walk(items):
        for module in items:
            if isinstance(module, nn.Sequential):
                walk(list(module))
            else:
                flat.append(module)

    walk([modules] if isinstance(modules, nn.Module) else list(modules))
    while len(flat) > 1 and isinstance(flat[-1], nn.Identity):
        flat.pop()
    layers, activations, norms = [], [], []
    for position, module in enumerate(flat):
        previous = flat[position - 1] if position else None
        if isinstance(module, nn.Linear):
            if module.bias is None:
                raise TypeError(f"cannot export {module!r}: Linear layers need a bias")
            layers.append((module.weight.detach().cpu().numpy().astype(np.float32), module.bias.detach().cpu().numpy().astype(np.float32)))
            norms.append(None)
        elif isinstance(module, nn.LayerNorm):
            width = layers[-1][0].shape[0] if layers else None
            if not isinstance(previous, nn.Linear) or tuple(module.normalized_shape) != (width,) or position == len(flat) - 1:
                raise TypeError(f"cannot export {module!r} at position {position}: a LayerNorm must follow a hidden "
                                "Linear layer directly and normalize its outputs")
            weight = module.weight.detach().cpu().numpy() if module.weight is not None else np.ones(width)
            bias = module.bias.detach().cpu().numpy() if module.bias is not None else np.zeros(width)
            norms[-1] = (float(module.eps), weight.astype(np.float32), bias.astype(np.float32))
        elif type(module).__name__ in _ACTIVATION_NAMES:
            if not layers or position == len(flat) - 1 or type(previous).__name__ in _ACTIVATION_NAMES:
                raise TypeError(f"cannot export {module!r} at position {position}: activations go between Linear layers")
            activations.append(type(module))
        else:
            raise TypeError(f"cannot export layer {module!r}: only nn.Linear, nn.LayerNorm and the activations "
                            f"{sorted(_ACTIVATION_NAMES)}")
    if not layers:
        raise TypeError("cannot export a network without nn.Linear layers")
    if len(set(activations)) > 1:
        raise TypeError(f"cannot export mixed activations {sorted({a.__name__ for a in activations})}: the policy format has one")
    if len(activations) != len(layers) - 1:
        raise TypeError(f"cannot export: {len(layers)} Linear layers need {len(layers) - 1} activations between them, found {len(activations)}")
    for (w_in, _), (w_out, _) in zip(layers, layers[1:]):
        if w_out.shape[1] != w_in.shape[0]:
            raise TypeError(f"cannot export: a layer of {w_in.shape[0]} outputs feeds one of {w_out.shape[1]} inputs")
    return MLPLayers(layers, norms[:-1]), _activation_name(activations[0]) if activations else "identity"


def agilerl_modules(network) -> list:
    """The modules of an AgileRL ``QNetwork`` (e.g. ``DQN(...).actor``) in order: its encoder MLP, then its head.

    Its forward pass is ``head_net(encoder(x))``, both ``EvolvableMLP`` networks of ``Linear``, ``LayerNorm`` and
    activation layers; any other network kind (dueling or distributional heads, CNN encoders) is refused.
    """
    encoder, head = getattr(network, "encoder", None), getattr(network, "head_net", None)
    if type(network).__name__ != "QNetwork" or type(encoder).__name__ != "EvolvableMLP" or type(head).__name__ != "EvolvableMLP":
        raise TypeError(f"cannot export AgileRL {type(network).__name__} (encoder {type(encoder).__name__}, head "
                        f"{type(head).__name__}): only a QNetwork of two EvolvableMLPs (DQN's default on a Box)")
    return list(encoder.model) + list(head.model)


def _extractor_inputs(extractor) -> list[str]:
    """The observation pieces an SB3 features extractor concatenates, in order."""
    from stable_baselines3.common.torch_layers import CombinedExtractor, FlattenExtractor

    if isinstance(extractor, FlattenExtractor):
        return list(DEFAULT_INPUTS)
    if type(extractor).__name__ == "SplitObservation":  # the feature head's (feature_head.py): the MLP reads the observation
        return list(DEFAULT_INPUTS)
    if isinstance(extractor, CombinedExtractor):
        keys = list(extractor.extractors.keys())
        unknown = [k for k in keys if k not in INPUT_PIECES]
        if unknown or not all(type(e).__name__ == "Flatten" for e in extractor.extractors.values()):
            raise TypeError(
                f"cannot export a MultiInputPolicy over keys {keys}: only flattened {sorted(INPUT_PIECES)} pieces"
            )
        return keys
    raise TypeError(f"cannot export features extractor {type(extractor).__name__}: only FlattenExtractor or CombinedExtractor")


def policy_from_model(model) -> tuple[list[tuple[np.ndarray, np.ndarray]], str, str, list[str]]:
    """``(layers, activation, algorithm, inputs)`` of an SB3 PPO / DQN model's acting network."""
    policy = model.policy
    if hasattr(policy, "q_net"):
        algorithm = "dqn"
        extractor = policy.q_net.features_extractor
        modules = list(policy.q_net.q_net)
    elif hasattr(policy, "mlp_extractor") and hasattr(policy, "action_net"):
        algorithm = "ppo"
        extractor = getattr(policy, "pi_features_extractor", policy.features_extractor)
        modules = list(policy.mlp_extractor.policy_net) + [policy.action_net]
    else:
        raise TypeError(f"cannot export a {type(policy).__name__}: expected a PPO or DQN MLP policy")
    inputs = _extractor_inputs(extractor)
    layers, activation = layers_from_modules(modules)
    return layers, activation, algorithm, inputs


def value_from_model(model) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """The critic of a MaskablePPO model as MLP layers (``None`` for DQN)."""
    import torch.nn as nn
    from stable_baselines3.common.torch_layers import FlattenExtractor

    policy = getattr(model, "policy", None)  # (a plain torch network has no critic)
    if policy is None or not (hasattr(policy, "mlp_extractor") and hasattr(policy, "value_net")):
        return None
    extractor = policy.vf_features_extractor if hasattr(policy, "vf_features_extractor") else policy.features_extractor
    if not isinstance(extractor, FlattenExtractor) and type(extractor).__name__ != "SplitObservation":
        return None
    layers = []
    for module in list(policy.mlp_extractor.value_net) + [policy.value_net]:
        if isinstance(module, nn.Linear):
            layers.append((module.weight.detach().cpu().numpy().copy(), module.bias.detach().cpu().numpy().copy()))
        elif not isinstance(module, policy.activation_fn):
            return None
    return layers


def policy_metadata(
    model,
    env_name: str,
    env_kwargs: dict,
    training_steps: int | None = None,
    extra: dict | None = None,
    algorithm: str | None = None,
    move_features: bool = False,
) -> tuple[dict, list]:
    """``(metadata, layers)`` describing ``model`` (SB3 model or torch MLP) as a policy for ``env_name(**env_kwargs)``.

    ``algorithm`` (``"ppo"``: outputs are logits, ``"dqn"``: Q-values) is
    required for a plain torch network and taken from the model otherwise.
    ``move_features``: the network read the game's move features after the
    observation (a model trained with ``network.move_features``).
    """
    from kakurega.envs.registry import make

    if hasattr(model, "policy"):
        layers, activation, model_algorithm, inputs = policy_from_model(model)
        if algorithm is not None and algorithm != model_algorithm:
            raise ValueError(f"algorithm={algorithm!r} but the model is a {model_algorithm} model")
        algorithm = model_algorithm
        steps = model.num_timesteps if training_steps is None else training_steps
    else:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"a torch network needs algorithm='ppo' (logits) or 'dqn' (Q-values), got {algorithm!r}")
        layers, activation = layers_from_modules(model)
        inputs = list(DEFAULT_INPUTS)
        steps = training_steps or 0
    raw = make(env_name, wrapped=False, **env_kwargs)
    sizes = [int(layers[0][0].shape[1])] + [int(w.shape[0]) for w, _ in layers]
    metadata = {
        "env": env_name,
        "env_version": env_version(env_name),
        "env_options": resolved_env_options(env_name, env_kwargs),
        "observation_size": int(raw.layout.size),
        "num_actions": int(raw.game.num_actions),
        "num_players": int(raw.game.num_players),
        "algorithm": algorithm,
        "output": ALGORITHMS[algorithm],
        "training_steps": int(steps),
        "network": {"type": "mlp", "activation": activation, "sizes": sizes},
        "kakurega_version": _package_version(),
    }
    head = getattr(getattr(model, "policy", None), "feature_head", None)
    if move_features:
        from kakurega.agents.base import AgentContext
        from kakurega.agents.move_features import INPUT, MoveFeatures

        if inputs != list(DEFAULT_INPUTS):
            raise TypeError(f"cannot export: move features follow the observation vector alone, but the model reads {inputs}")
        inputs = ["observation", INPUT]
        features = MoveFeatures(AgentContext.from_env(raw, env_name, env_kwargs))
        metadata["move_features_size"] = features.size
        if features.version:  # (absent: version 0, as in files written before features had versions)
            metadata["move_features_version"] = features.version
        if head is not None:  # the feature head (feature_head.py): one weight per measurement, in the metadata
            metadata["network"]["feature_head"] = model.policy.head_weights()
    elif head is not None:
        raise TypeError("cannot export: the model has a feature head; pass move_features=True")
    if inputs != list(DEFAULT_INPUTS):
        metadata["inputs"] = inputs
    if sizes[0] != mlp_input_size(metadata):
        raise TypeError(f"cannot export: the network reads {sizes[0]} numbers, the inputs {inputs} give it "
                        f"{mlp_input_size(metadata)}")
    metadata.update(extra or {})
    return metadata, layers


def export_policy(
    model,
    path,
    env_name: str,
    env_kwargs: dict | None = None,
    training_steps: int | None = None,
    extra: dict | None = None,
    algorithm: str | None = None,
    move_features: bool = False,
):
    """Write ``model``'s acting network (SB3 model or torch MLP) as a policy file at ``path``; returns the file."""
    metadata, layers = policy_metadata(model, env_name, dict(env_kwargs or {}), training_steps, extra, algorithm,
                                       move_features)
    return save_policy(path, layers, metadata, value_layers=value_from_model(model))


def _package_version() -> str:
    try:
        from importlib.metadata import version

        return version("kakurega")
    except Exception:  # not installed as a distribution: metadata is informative only
        return "unknown"
