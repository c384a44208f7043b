"""Training configs: YAML files validated against one schema.

Every key has a type, a default and a one-line meaning (:data:`SCHEMA`); an
unknown key or a value of the wrong type fails with a :class:`ConfigError`
naming the key and what was expected. ``docs/training.md`` documents the same
schema (``python -m kakurega.agents.training.config`` prints it as Markdown).

>>> config = load_config("configs/kakurenbo_ppo.yaml", overrides=["total_timesteps=2048"])  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REQUIRED = object()


class ConfigError(ValueError):
    """A config that cannot be used; the message names the key and what was expected."""


@dataclass(frozen=True)
class Key:
    """One config key: expected type, default, meaning and constraints."""

    kind: str  # int, float, bool, str, dict, int_list, str_list, seat, opponents, float_or_none, str_or_none
    default: Any
    help: str
    choices: tuple = ()
    minimum: float | None = None
    maximum: float | None = None

    def describe(self) -> str:
        """What a valid value looks like, in words."""
        words = {
            "int": "an integer",
            "float": "a number",
            "bool": "true or false",
            "str": "a string",
            "str_or_none": "a string or null",
            "float_or_none": "a number or null",
            "dict": "a mapping of option names to values",
            "int_list": "a list of positive integers",
            "str_list": "a list of agent spec strings",
            "seat": "'random' or a seat number (0 = first seat)",
            "opponents": "a list of {agent: SPEC, weight: NUMBER} entries (or plain SPEC strings)",
        }[self.kind]
        if self.choices:
            words += " among " + ", ".join(repr(c) for c in self.choices)
        if self.minimum is not None and self.maximum is not None:
            words += f" in [{self.minimum:g}, {self.maximum:g}]"
        elif self.minimum is not None:
            words += f" >= {self.minimum:g}"
        return words


PPO = {
    "learning_rate": Key("float", 3e-4, "Adam step size", minimum=0),
    "n_steps": Key("int", 256, "steps collected per env before each update (rollout length)", minimum=1),
    "batch_size": Key("int", 256, "minibatch size", minimum=1),
    "n_epochs": Key("int", 4, "passes over each rollout", minimum=1),
    "gamma": Key("float", 0.99, "discount factor", minimum=0, maximum=1),
    "gae_lambda": Key("float", 0.95, "GAE lambda", minimum=0, maximum=1),
    "clip_range": Key("float", 0.2, "PPO clipping range", minimum=0),
    "ent_coef": Key("float", 0.01, "entropy bonus coefficient", minimum=0),
    "vf_coef": Key("float", 0.5, "value loss coefficient", minimum=0),
    "max_grad_norm": Key("float", 0.5, "gradient clipping norm", minimum=0),
    "target_kl": Key("float_or_none", None, "stop an update early when the KL exceeds this (null = never)"),
}

DQN = {
    "learning_rate": Key("float", 1e-4, "Adam step size", minimum=0),
    "buffer_size": Key("int", 100_000, "replay buffer capacity (transitions)", minimum=1),
    "learning_starts": Key("int", 1000, "steps of uniformly random legal play before learning", minimum=0),
    "batch_size": Key("int", 64, "minibatch size", minimum=1),
    "tau": Key("float", 1.0, "soft update coefficient of the target network (1 = hard copy)", minimum=0, maximum=1),
    "gamma": Key("float", 0.99, "discount factor", minimum=0, maximum=1),
    "train_freq": Key("int", 4, "env steps (per env) between gradient updates", minimum=1),
    "gradient_steps": Key("int", 1, "gradient steps per update", minimum=1),
    "target_update_interval": Key("int", 1000, "env steps between target network updates", minimum=1),
    "exploration_fraction": Key("float", 0.3, "fraction of training over which epsilon decays", minimum=0, maximum=1),
    "exploration_initial_eps": Key("float", 1.0, "initial epsilon", minimum=0, maximum=1),
    "exploration_final_eps": Key("float", 0.05, "final epsilon", minimum=0, maximum=1),
    "max_grad_norm": Key("float", 10.0, "gradient clipping norm", minimum=0),
}

SCHEMA: dict[str, Any] = {
    "name": Key("str_or_none", None, "run name; outputs go to runs/<name> unless output_dir is set (default: <env>_<algorithm>)"),
    "env": Key("str", REQUIRED, "registered env name, e.g. kakurenbo_v0 (see `kakurega envs`)"),
    "env_kwargs": Key("dict", {}, "options passed to the env constructor, e.g. {num_players: 4}"),
    "algorithm": Key("str", REQUIRED, "ppo (sb3-contrib MaskablePPO) or dqn (kakurega MaskedDQN)", choices=("ppo", "dqn")),
    "total_timesteps": Key("int", REQUIRED, "learner steps to train for (opponent moves are not counted)", minimum=1),
    "seed": Key("int", 0, "seed of everything: envs, opponents, network init"),
    "n_envs": Key("int", 8, "parallel copies of the env", minimum=1),
    "vec_env": Key("str", "dummy", "dummy (one process) or subproc (one process per env)", choices=("dummy", "subproc")),
    "learner_seat": Key("seat", "random", "the learner's seat each episode: random or a fixed seat number"),
    "device": Key("str", "cpu", "torch device (cpu, cuda, auto)"),
    "torch_threads": Key("int", 1, "torch CPU threads (0 = torch's default)", minimum=0),
    "output_dir": Key("str_or_none", None, "where the run writes its files (default runs/<name>)"),
    "network": {
        "hidden": Key("int_list", [64, 64], "hidden layer sizes of the policy (and value) network"),
        "activation": Key("str", "tanh", "activation between layers", choices=("tanh", "relu")),
    },
    "opponents": Key(
        "opponents",
        [{"agent": "random", "weight": 1.0}],
        "opponent pool: agent specs (random, heuristic, policy:PATH, ...) or the league entries "
        "self (current policy) and snapshots (frozen past versions), with weights",
    ),
    "league": {
        "sync_every": Key("int", 2048, "learner steps between pushes of the current weights to the 'self' opponents", minimum=1),
        "snapshot_every": Key("int", 20_000, "learner steps between frozen snapshots (0 = none)", minimum=0),
        "max_snapshots": Key("int", 5, "snapshots kept in the pool (oldest dropped)", minimum=1),
    },
    "ppo": PPO,
    "dqn": DQN,
    "pretrain": {
        "agent": Key("str", "heuristic", "PPO only: agent spec whose moves are imitated before PPO (behaviour cloning)"),
        "steps": Key("int", 0, "PPO only: learner decisions of demonstrations to imitate first (0 = no warm start)", minimum=0),
        "epochs": Key("int", 5, "passes over the demonstrations", minimum=1),
        "batch_size": Key("int", 256, "minibatch size of the imitation", minimum=1),
        "learning_rate": Key("float", 1e-3, "Adam step size of the imitation", minimum=0),
        "target": Key("str", "action", "what the actor learns: action (the agent's moves) or visits (a searching "
                      "agent's root visit shares: expert iteration; needs an ismcts agent)", choices=("action", "visits")),
        "value_coef": Key("float", 0.5, "weight of the critic's loss (discounted returns of the demonstrations)", minimum=0),
        "data": Key("str_or_none", None, "file (.npz) keeping the demonstrations: reused when made under the same env, "
                    "options, opponents, agent, target, steps and seed, else (re)made (null: not kept)"),
    },
    "evaluation": {
        "every": Key("int", 20_000, "learner steps between evaluations during training (0 = none)", minimum=0),
        "games": Key("int", 100, "games per evaluation during training", minimum=1),
        "opponent": Key("str", "heuristic", "agent spec the periodic evaluation plays against"),
        "final_opponents": Key("str_list", ["random", "heuristic"], "agent specs of the final evaluation"),
        "final_games": Key("int", 400, "games per opponent in the final evaluation (0 = skip)", minimum=0),
        "seed": Key("int", 12345, "seed of the evaluation deals (paired: every evaluation sees the same deals)"),
    },
    "checkpoint": {
        "every": Key("int", 50_000, "learner steps between SB3 .zip checkpoints (0 = only at the end)", minimum=0),
        "keep": Key("int", 3, "checkpoints kept (oldest deleted)", minimum=1),
        "save_replay_buffer": Key("bool", False, "DQN: also save the replay buffer so a resumed run keeps it"),
    },
    "logging": {
        "tensorboard": Key("bool", True, "write TensorBoard logs under <output>/tb"),
        "progress_bar": Key("bool", True, "show a progress bar"),
        "verbose": Key("int", 0, "SB3 verbosity (0 silent, 1 info)", minimum=0, maximum=2),
    },
}


def _check(key: Key, path: str, value: Any) -> Any:
    def fail(expected: str | None = None):
        raise ConfigError(
            f"config key '{path}': expected {expected or key.describe()}, got {value!r} ({type(value).__name__})"
        )

    kind = key.kind
    if value is None and kind in ("str_or_none", "float_or_none"):
        return None
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            fail()
    elif kind in ("float", "float_or_none"):
        if isinstance(value, str):  # PyYAML reads 3e-4 (no dot) as a string
            try:
                value = float(value)
            except ValueError:
                fail()
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            fail()
        value = float(value)
    elif kind == "bool":
        if not isinstance(value, bool):
            fail()
    elif kind in ("str", "str_or_none"):
        if not isinstance(value, str) or not value:
            fail()
    elif kind == "dict":
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            fail()
        value = copy.deepcopy(value)
    elif kind == "int_list":
        if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value):
            fail()
    elif kind == "str_list":
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
            fail()
    elif kind == "seat":
        if value != "random" and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            fail()
    elif kind == "opponents":
        value = _check_opponents(path, value)
    if key.choices and value not in key.choices:
        fail()
    if kind in ("int", "float") and (
        (key.minimum is not None and value < key.minimum) or (key.maximum is not None and value > key.maximum)
    ):
        fail()
    return value


def _check_opponents(path: str, value: Any) -> list[dict]:
    from kakurega.agents.specs import parse_spec

    if not isinstance(value, list) or not value:
        raise ConfigError(f"config key '{path}': expected {SCHEMA['opponents'].describe()}, got {value!r}")
    entries = []
    for i, item in enumerate(value):
        where = f"{path}[{i}]"
        if isinstance(item, str):
            item = {"agent": item, "weight": 1.0}
        if not isinstance(item, dict):
            raise ConfigError(f"config key '{where}': expected {{agent: SPEC, weight: NUMBER}} or a spec string, got {item!r}")
        unknown = sorted(set(item) - {"agent", "weight"})
        if unknown:
            raise ConfigError(f"config key '{where}.{unknown[0]}': unknown key; expected agent and weight")
        agent = item.get("agent")
        if not isinstance(agent, str) or not agent:
            raise ConfigError(f"config key '{where}.agent': expected an agent spec string, got {agent!r}")
        if agent not in ("self", "snapshots"):
            try:
                parse_spec(agent)
            except ValueError as error:
                raise ConfigError(f"config key '{where}.agent': {error}") from None
        weight = item.get("weight", 1.0)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
            raise ConfigError(f"config key '{where}.weight': expected a number >= 0, got {weight!r}")
        entries.append({"agent": agent, "weight": float(weight)})
    if sum(e["weight"] for e in entries) <= 0:
        raise ConfigError(f"config key '{path}': the weights sum to 0; give at least one opponent a positive weight")
    return entries


def _validate(schema: dict, data: Any, prefix: str = "") -> dict:
    if not isinstance(data, dict):
        raise ConfigError(f"config section '{prefix.rstrip('.') or '<top>'}': expected a mapping of keys, got {data!r}")
    unknown = sorted(set(data) - set(schema))
    if unknown:
        raise ConfigError(
            f"config key '{prefix}{unknown[0]}': unknown key; expected one of: {', '.join(schema)}"
        )
    resolved = {}
    for name, key in schema.items():
        path = prefix + name
        if isinstance(key, dict):
            resolved[name] = _validate(key, data.get(name, {}) or {}, path + ".")
        elif name in data:
            resolved[name] = _check(key, path, data[name])
        elif key.default is REQUIRED:
            raise ConfigError(f"config key '{path}' is required: {key.help}; expected {key.describe()}")
        else:
            resolved[name] = copy.deepcopy(key.default)
    return resolved


def _apply_override(data: dict, override: str) -> None:
    path, eq, text = override.partition("=")
    if not eq or not path.strip():
        raise ConfigError(f"override {override!r}: expected KEY=VALUE, e.g. ppo.n_steps=64")
    keys = path.strip().split(".")
    node = data
    for key in keys[:-1]:
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            raise ConfigError(f"override {override!r}: '{key}' is not a section")
    node[keys[-1]] = yaml.safe_load(text)


def validate_config(data: dict, overrides=()) -> dict:
    """The resolved config (defaults filled in) of ``data``; raises :class:`ConfigError`."""
    data = copy.deepcopy(data or {})
    for override in overrides:
        _apply_override(data, override)
    config = _validate(SCHEMA, data)
    from kakurega.envs.registry import get_spec

    try:
        get_spec(config["env"])
    except ValueError as error:
        raise ConfigError(f"config key 'env': {error}") from None
    for i, spec in enumerate(config["evaluation"]["final_opponents"]):
        try:
            from kakurega.agents.specs import parse_spec

            parse_spec(spec)
        except ValueError as error:
            raise ConfigError(f"config key 'evaluation.final_opponents[{i}]': {error}") from None
    if config["pretrain"]["steps"] and config["algorithm"] != "ppo":
        raise ConfigError("config key 'pretrain.steps': the behaviour-cloning warm start is for algorithm ppo only; set it to 0")
    try:
        from kakurega.agents.specs import parse_spec

        agent = parse_spec(config["pretrain"]["agent"])
    except ValueError as error:
        raise ConfigError(f"config key 'pretrain.agent': {error}") from None
    if config["pretrain"]["target"] == "visits" and agent.kind != "ismcts":
        raise ConfigError(
            f"config key 'pretrain.target': 'visits' learns a search's root visit shares and needs an ismcts agent "
            f"in pretrain.agent (e.g. 'ismcts:simulations=200,rollout=greedy'), got {agent.text!r}; "
            "use target 'action' to imitate its moves"
        )
    if config["name"] is None:
        config["name"] = f"{config['env'].removesuffix('_v0')}_{config['algorithm']}"
    if config["output_dir"] is None:
        config["output_dir"] = os.path.join("runs", config["name"])
    return config


def load_config(path: str | os.PathLike, overrides=()) -> dict:
    """Read, validate and resolve the YAML config at ``path`` (``overrides``: ``KEY=VALUE`` strings)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as error:
        raise ConfigError(f"config file {path} is not valid YAML: {error}") from None
    try:
        return validate_config(data, overrides)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def dump_config(config: dict) -> str:
    """The resolved config as YAML (written next to a run's outputs)."""
    return yaml.safe_dump(config, sort_keys=False, default_flow_style=None)


def schema_markdown() -> str:
    """Every key as a Markdown table (the source of docs/training.md's reference)."""
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]

    def walk(schema, prefix):
        for name, key in schema.items():
            if isinstance(key, dict):
                walk(key, prefix + name + ".")
                continue
            default = "(required)" if key.default is REQUIRED else f"`{yaml.safe_dump(key.default, default_flow_style=True).strip().removesuffix('...').strip()}`"
            rows.append(f"| `{prefix}{name}` | {key.describe()} | {default} | {key.help} |")

    walk(SCHEMA, "")
    return "\n".join(rows)


def all_keys() -> list[str]:
    """Dotted names of every config key."""
    out = []

    def walk(schema, prefix):
        for name, key in schema.items():
            if isinstance(key, dict):
                walk(key, prefix + name + ".")
            else:
                out.append(prefix + name)

    walk(SCHEMA, "")
    return out


if __name__ == "__main__":
    print(schema_markdown())
