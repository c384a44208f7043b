"""Training configs: YAML files validated against one schema.

Every key has a type, a default and a one-line meaning (:data:`SCHEMA`); an
unknown key or a value of the wrong type fails with a :class:`ConfigError`
naming the key and what was expected. ``docs/training.md`` documents the same
schema (``python -m kakurega.agents.training.config`` prints it as Markdown).

>>> config = load_config("configs/kakurenbo_ppo.yaml", overrides=["total_timesteps=2048"])  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import math
import numbers
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from kakurega.agents.policy import MAX_SERVED
from kakurega.envs.core.safe_load import load_file, load_text, short_repr

REQUIRED = object()
MAX_STEPS = 10**10  #: bound of every step count (total_timesteps, intervals)
MAX_SEED = 2**32 - 1  #: numpy's seeds are 32-bit
MAX_CONFIG_BYTES = 100_000  #: the largest training config (a file, an override value or a run's config.yaml)
MAX_LAYERS, MAX_LAYER_SIZE = 16, 4096  #: network.hidden bounds
#: memory a rollout or replay buffer may take (observations, float32), checked when the config loads
MAX_BUFFER_BYTES = 8 * 2**30
#: bound of the network's training state: weights, gradients and Adam moments (and DQN's target network)
MAX_NETWORK_BYTES = 4 * 2**30
#: env copies ``vec_env: subproc`` may run, one process each (a Python with torch: about 250 MB), on a machine of at
#: most this many CPUs; a machine with more CPUs may run one per CPU (:func:`max_subproc_envs`)
MAX_SUBPROC_ENVS = 16
#: memory the league's snapshots may take: every env copy keeps its own copy of each snapshot's weights
MAX_LEAGUE_BYTES = 4 * 2**30


class ConfigError(ValueError):
    """A config that cannot be used; the message names the key and what was expected."""


@dataclass(frozen=True)
class Key:
    """One config key: expected type, default, meaning and constraints."""

    kind: str  # int, float, bool, str, dict, dict_list, int_list, str_list, seat, opponents, float_or_none, str_or_none
    default: Any
    help: str
    choices: tuple = ()
    minimum: float | None = None
    maximum: float | None = None

    def describe(self) -> str:
        """What a valid value looks like, in words."""
        words = {
            "int": "an integer",
            "float": "a finite number",
            "bool": "true or false",
            "str": "a string",
            "str_or_none": "a string or null",
            "float_or_none": "a finite number or null",
            "dict": "a mapping of option names to values",
            "dict_list": f"a list of at most {MAX_SERVED} mappings of option names to values",
            "int_list": f"a list of 1 to {MAX_LAYERS} integers from 1 to {MAX_LAYER_SIZE}",
            "str_list": "a list of agent spec strings",
            "seat": "'random' or a seat number (0 = first seat)",
            "opponents": "a list of {agent: SPEC, weight: NUMBER} entries (or plain SPEC strings)",
        }[self.kind]
        if self.choices:
            words += " among " + ", ".join(repr(c) for c in self.choices)
        if self.minimum is not None and self.maximum is not None:
            words += f" in [{_number(self.minimum)}, {_number(self.maximum)}]"
        elif self.minimum is not None:
            words += f" >= {_number(self.minimum)}"
        elif self.maximum is not None:
            words += f" <= {_number(self.maximum)}"
        return words


def _number(x: float) -> str:
    """A bound as written in a config: 1000000 rather than 1e+06."""
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


PPO = {
    "learning_rate": Key("float", 3e-4, "Adam step size", minimum=0, maximum=1),
    "n_steps": Key("int", 256, "steps collected per env before each update (rollout length)", minimum=1, maximum=1_000_000),
    "batch_size": Key("int", 256, "minibatch size", minimum=1, maximum=1_000_000),
    "n_epochs": Key("int", 4, "passes over each rollout", minimum=1, maximum=1000),
    "gamma": Key("float", 0.99, "discount factor", minimum=0, maximum=1),
    "gae_lambda": Key("float", 0.95, "GAE lambda", minimum=0, maximum=1),
    "clip_range": Key("float", 0.2, "PPO clipping range", minimum=0, maximum=10),
    "ent_coef": Key("float", 0.01, "entropy bonus coefficient", minimum=0, maximum=100),
    "vf_coef": Key("float", 0.5, "value loss coefficient", minimum=0, maximum=100),
    "max_grad_norm": Key("float", 0.5, "gradient clipping norm", minimum=0, maximum=1e6),
    "target_kl": Key("float_or_none", None, "stop an update early when the KL exceeds this (null = never)", minimum=0, maximum=100),
}

DQN = {
    "learning_rate": Key("float", 1e-4, "Adam step size", minimum=0, maximum=1),
    "buffer_size": Key("int", 100_000, "replay buffer capacity (transitions)", minimum=1, maximum=10_000_000),
    "learning_starts": Key("int", 1000, "steps of uniformly random legal play before learning", minimum=0, maximum=MAX_STEPS),
    "batch_size": Key("int", 64, "minibatch size", minimum=1, maximum=1_000_000),
    "tau": Key("float", 1.0, "soft update coefficient of the target network (1 = hard copy)", minimum=0, maximum=1),
    "gamma": Key("float", 0.99, "discount factor", minimum=0, maximum=1),
    "train_freq": Key("int", 4, "env steps (per env) between gradient updates", minimum=1, maximum=1_000_000),
    "gradient_steps": Key("int", 1, "gradient steps per update", minimum=1, maximum=10_000),
    "target_update_interval": Key("int", 1000, "env steps between target network updates", minimum=1, maximum=MAX_STEPS),
    "exploration_fraction": Key("float", 0.3, "fraction of training over which epsilon decays", minimum=0, maximum=1),
    "exploration_initial_eps": Key("float", 1.0, "initial epsilon", minimum=0, maximum=1),
    "exploration_final_eps": Key("float", 0.05, "final epsilon", minimum=0, maximum=1),
    "max_grad_norm": Key("float", 10.0, "gradient clipping norm", minimum=0, maximum=1e6),
}

SCHEMA: dict[str, Any] = {
    "name": Key("str_or_none", None, "run name; outputs go to runs/<name> unless output_dir is set (default: <env>_<algorithm>)"),
    "env": Key("str", REQUIRED, "registered env name, e.g. kakurenbo_v1 (see `kakurega envs`)"),
    "env_kwargs": Key("dict", {}, "options passed to the env constructor, e.g. {num_players: 4}"),
    "algorithm": Key("str", REQUIRED, "ppo (sb3-contrib MaskablePPO) or dqn (kakurega MaskedDQN)", choices=("ppo", "dqn")),
    "total_timesteps": Key("int", REQUIRED, "learner steps to train for (opponent moves are not counted)", minimum=1, maximum=MAX_STEPS),
    "seed": Key("int", 0, "seed of everything: envs, opponents, network init (a run repeats its numbers on the same "
                "kind of machine with the same `torch_threads`; its files differ only in the times they record "
                "(`wall_seconds`, the policy's `wall_seconds_training`, summary.json's seconds, progress.csv's "
                "`time/fps` and `time/time_elapsed`, a checkpoint's `elapsed` and episode times, so its checksums) "
                "and, in another directory, in the paths they name)", minimum=0, maximum=MAX_SEED),
    "n_envs": Key("int", 8, "parallel copies of the env", minimum=1, maximum=256),
    "vec_env": Key("str", "dummy", "dummy (one process) or subproc (one process per env)", choices=("dummy", "subproc")),
    "learner_seat": Key("seat", "random", "the learner's seat each episode: random or a fixed seat number"),
    "device": Key("str", "cpu", "torch device (cpu, cuda, cuda:N, mps, auto); one torch cannot find here is refused"),
    "torch_threads": Key("int", 1, "torch CPU threads (0 = torch's default, the machine's cores: the last bits of a "
                         "seeded run's numbers then depend on the machine, as they do on the CPU's instruction set)",
                         minimum=0, maximum=1024),
    "output_dir": Key("str_or_none", None, "where the run writes its files (default runs/<name>)"),
    "init_policy": Key("str_or_none", None, "PPO only: a policy file (.safetensors) of this env whose weights the run "
                       "starts from instead of a fresh network (fine-tuning, e.g. a shipped bot under other options); "
                       "same observation and action spaces, network and move features, no pretrain.steps"),
    "serves": Key("dict_list", [], "other env_kwargs of the same env the trained policy also plays, written into "
                  "its file (`pretrained` then finds it there); each checked to give the same observation and "
                  "action spaces as env_kwargs"),
    "mix": Key("bool", False, "write `mix: true` into the trained policy's file: it then plays the decisions its "
               "game's mixed play takes from that mixed strategy, not from the network (Summer: the child's turns; "
               "see kakurega.agents.mixed_play); training itself is unchanged"),
    "network": {
        "hidden": Key("int_list", [64, 64], "hidden layer sizes of the policy (and value) network (its training state at most 4 GiB)"),
        "activation": Key("str", "tanh", "activation between layers", choices=("tanh", "relu")),
        "move_features": Key("bool", False, "also feed the network the game's move features, what its heuristic "
                             "measures about each action, computed from the observation (for games whose registry "
                             "entry declares them: `kakurega envs`; docs/training.md)"),
        "feature_head": Key("bool", False, "PPO with move_features: score each action also by one learned weight per "
                            "measurement over its own row of move features, instead of feeding them to the MLP "
                            "(for games with many actions; docs/training.md)"),
        "masked_distribution": Key("str", "compact", "how PPO computes its network and masked distribution: compact "
                                   "(over the legal actions and the active inputs only: faster, the same policy files) "
                                   "or exact (sb3-contrib's numbers to the bit, as a seeded sb3-contrib run; slower "
                                   "with many actions); docs/training.md",
                                   choices=("exact", "compact")),
    },
    "opponents": Key(
        "opponents",
        [{"agent": "random", "weight": 1.0}],
        "opponent pool: agent specs (random, heuristic, policy:PATH, ...) or the league entries "
        "self (current policy) and snapshots (frozen past versions), with weights",
    ),
    "league": {
        "sync_every": Key("int", 2048, "learner steps between pushes of the current weights to the 'self' opponents", minimum=1, maximum=MAX_STEPS),
        "snapshot_every": Key("int", 20_000, "learner steps between frozen snapshots (0 = none)", minimum=0, maximum=MAX_STEPS),
        "max_snapshots": Key("int", 5, "snapshots kept in the pool (oldest dropped)", minimum=1, maximum=1000),
    },
    "ppo": PPO,
    "dqn": DQN,
    "pretrain": {
        "agent": Key("str", "heuristic", "PPO only: agent spec whose moves are imitated before PPO (behaviour cloning)"),
        "steps": Key("int", 0, "PPO only: learner decisions of demonstrations to imitate first (0 = no warm start)", minimum=0, maximum=10_000_000),
        "epochs": Key("int", 5, "passes over the demonstrations", minimum=1, maximum=1000),
        "batch_size": Key("int", 256, "minibatch size of the imitation", minimum=1, maximum=1_000_000),
        "learning_rate": Key("float", 1e-3, "Adam step size of the imitation", minimum=0, maximum=1),
        "target": Key("str", "action", "what the actor learns: action (the agent's moves) or visits (a searching "
                      "agent's root visit shares: expert iteration; needs an ismcts agent)", choices=("action", "visits")),
        "value_coef": Key("float", 0.5, "weight of the critic's loss (discounted returns of the demonstrations)", minimum=0, maximum=1000),
        "data": Key("str_or_none", None, "file (.npz) keeping the demonstrations: reused when made under the same env, "
                    "options, opponents, agent, target, steps and seed, else (re)made (null: not kept)"),
        "dagger_rounds": Key("int", 0, "DAgger rounds after the first imitation: the network plays, pretrain.agent "
                             "labels the states it reached, and it is refitted on everything so far (0 = none)",
                             minimum=0, maximum=100),
        "dagger_steps": Key("int", 0, "learner decisions the network plays in each DAgger round (0 = pretrain.steps)",
                            minimum=0, maximum=10_000_000),
        "backend": Key("str", "local", "where the demonstration games are played: local (this process) or ray (Ray "
                       "tasks, the same data for the same seed; DAgger rounds stay local)", choices=("local", "ray")),
        "address": Key("str_or_none", None, "with backend ray: the cluster (auto, HOST:PORT or ray://HOST:PORT); "
                       "null: a Ray started on this machine for the data step"),
    },
    "evaluation": {
        "every": Key("int", 20_000, "learner steps between evaluations during training (0 = none); each plays the policy as "
                     "trained up to its row's step, taken at the next rollout's start or at the end of training",
                     minimum=0, maximum=MAX_STEPS),
        "games": Key("int", 100, "games per evaluation during training", minimum=1, maximum=1_000_000),
        "opponent": Key("str", "heuristic", "agent spec the periodic evaluation plays against"),
        "final_opponents": Key("str_list", ["random", "heuristic"], "agent specs of the final evaluation"),
        "final_games": Key("int", 400, "games per opponent in the final evaluation (0 = skip)", minimum=0, maximum=1_000_000),
        "seed": Key("int", 12345, "seed of the evaluation deals (paired: every evaluation sees the same deals)", minimum=0, maximum=MAX_SEED),
    },
    "checkpoint": {
        "every": Key("int", 50_000, "learner steps between checkpoints (0 = only at the end and on Ctrl-C)", minimum=0, maximum=MAX_STEPS),
        "keep": Key("int", 3, "checkpoints kept (oldest deleted)", minimum=1, maximum=1000),
        "save_replay_buffer": Key("bool", False, "DQN: also save the replay buffer so a resumed run keeps it"),
        "sb3_zip": Key("bool", False, "also write SB3 .zip files (they hold pickles: load only your own; resume never reads them)"),
    },
    "logging": {
        "tensorboard": Key("bool", True, "write TensorBoard logs under <output>/logs/part<K>"),
        "progress_bar": Key("bool", True, "show a progress bar"),
        "verbose": Key("int", 0, "SB3 verbosity (0 silent, 1 info)", minimum=0, maximum=2),
    },
}


def _is_int(value) -> bool:
    # numbers.Integral: numpy integers are accepted wherever Python ints are
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check(key: Key, path: str, value: Any) -> Any:
    def fail(expected: str | None = None):
        raise ConfigError(
            f"config key '{path}': expected {expected or key.describe()}, got {short_repr(value)} ({type(value).__name__})"
        )

    kind = key.kind
    if value is None and kind in ("str_or_none", "float_or_none"):
        return None
    if kind == "int":
        if not _is_int(value):
            fail()
        value = int(value)
    elif kind in ("float", "float_or_none"):
        if isinstance(value, str):  # PyYAML reads 3e-4 (no dot) as a string
            try:
                value = float(value)
            except ValueError:
                fail()
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            fail()
        value = float(value)
        if not math.isfinite(value):
            fail()
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
    elif kind == "dict_list":
        if not isinstance(value, list) or len(value) > MAX_SERVED or not all(
            isinstance(v, dict) and all(isinstance(k, str) for k in v) for v in value
        ):
            fail()
        value = copy.deepcopy(value)
    elif kind == "int_list":
        if not isinstance(value, list) or not 1 <= len(value) <= MAX_LAYERS or not all(
            _is_int(v) and 1 <= v <= MAX_LAYER_SIZE for v in value
        ):
            fail()
        value = [int(v) for v in value]
    elif kind == "str_list":
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
            fail()
    elif kind == "seat":
        if value != "random" and (not _is_int(value) or value < 0):
            fail()
        value = value if value == "random" else int(value)
    elif kind == "opponents":
        value = _check_opponents(path, value)
    if key.choices and value not in key.choices:
        fail()
    if kind in ("int", "float", "float_or_none") and value is not None and (
        (key.minimum is not None and value < key.minimum) or (key.maximum is not None and value > key.maximum)
    ):
        fail()
    return value


MAX_WEIGHT = 1e6  #: bound of an opponent's weight


def _key_text(key, limit: int = 40) -> str:
    """A key as written in the file, cut short."""
    text = str(key)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_opponents(path: str, value: Any) -> list[dict]:
    if not isinstance(value, list) or not value:
        raise ConfigError(f"config key '{path}': expected {SCHEMA['opponents'].describe()}, got {short_repr(value)}")
    entries = []
    for i, item in enumerate(value):
        where = f"{path}[{i}]"
        if isinstance(item, str):
            item = {"agent": item, "weight": 1.0}
        if not isinstance(item, dict):
            raise ConfigError(f"config key '{where}': expected {{agent: SPEC, weight: NUMBER}} or a spec string, got {short_repr(item)}")
        unknown = sorted(set(item) - {"agent", "weight"})
        if unknown:
            raise ConfigError(f"config key '{where}.{_key_text(unknown[0])}': unknown key; expected agent and weight")
        agent = item.get("agent")
        if not isinstance(agent, str) or not agent:
            raise ConfigError(f"config key '{where}.agent': expected an agent spec string, got {short_repr(agent)}")
        if agent not in ("self", "snapshots"):
            _check_unattended_spec(f"{where}.agent", agent, "a training opponent")
        weight = item.get("weight", 1.0)
        if isinstance(weight, bool) or not isinstance(weight, numbers.Real) or not 0 <= weight <= MAX_WEIGHT:
            raise ConfigError(f"config key '{where}.weight': expected a number from 0 to {_number(MAX_WEIGHT)}, got {short_repr(weight)}")
        entries.append({"agent": agent, "weight": float(weight)})
    if sum(e["weight"] for e in entries) <= 0:
        raise ConfigError(f"config key '{path}': the weights sum to 0; give at least one opponent a positive weight")
    return entries


def _check_data_backend(pretrain: dict) -> None:
    """``pretrain.address`` goes with ``backend: ray`` and has one of Ray's address forms."""
    from kakurega.agents.tasks import check_address

    if pretrain["address"] is not None and pretrain["backend"] != "ray":
        raise ConfigError("config key 'pretrain.address': an address is for backend ray; set pretrain.backend: ray "
                          "(or address: null)")
    try:
        check_address(pretrain["address"])
    except ValueError as error:
        raise ConfigError(f"config key 'pretrain.address': {error}") from None


def _check_unattended_spec(path: str, spec: str, role: str) -> None:
    """Refuse a malformed spec, or one that needs a person at the terminal (nobody answers during training)."""
    from kakurega.agents.specs import parse_spec, require_unattended

    try:
        require_unattended(parse_spec(spec), role)
    except ValueError as error:
        raise ConfigError(f"config key '{path}': {error}") from None


def _validate(schema: dict, data: Any, prefix: str = "") -> dict:
    if not isinstance(data, dict):
        section = prefix.rstrip(".")
        leave_out = " (leave the section out, or null, for its defaults)" if section else ""
        raise ConfigError(f"config section '{section or '<top>'}': expected a mapping of keys, got {short_repr(data)}"
                          f"{leave_out}")
    unknown = sorted(set(data) - set(schema), key=str)
    if unknown:
        raise ConfigError(
            f"config key '{prefix}{_key_text(unknown[0])}': unknown key; expected one of: {', '.join(schema)}"
        )
    resolved = {}
    for name, key in schema.items():
        path = prefix + name
        if isinstance(key, dict):
            # only a missing section or null means its defaults: ``ppo: 0`` or ``network: false`` is refused
            section = data.get(name)
            resolved[name] = _validate(key, {} if section is None else section, path + ".")
        elif name in data:
            resolved[name] = _check(key, path, data[name])
        elif key.default is REQUIRED:
            raise ConfigError(f"config key '{path}' is required: {key.help}; expected {key.describe()}")
        else:
            resolved[name] = copy.deepcopy(key.default)
    return resolved


#: keys whose override is taken as the text given, not parsed as YAML (paths and names)
_TEXT_KEYS = ("name", "output_dir", "init_policy")
_DEVICE = re.compile(r"(cpu|auto|mps|cuda(:\d{1,2})?)")


def _apply_override(data: dict, override: str) -> None:
    path, eq, text = override.partition("=")
    if not eq or not path.strip():
        raise ConfigError(f"override {short_repr(override)}: expected KEY=VALUE, e.g. ppo.n_steps=64")
    keys = path.strip().split(".")
    node = data
    for key in keys[:-1]:
        if node.get(key) is None:  # a missing section or null (its defaults)
            node[key] = {}
        node = node[key]
        if not isinstance(node, dict):
            raise ConfigError(f"override {short_repr(override)}: '{key}' is not a section")
    if path.strip() in _TEXT_KEYS:
        node[keys[-1]] = text
    else:
        node[keys[-1]] = load_text(text, f"override {short_repr(path.strip(), 40)}", max_bytes=MAX_CONFIG_BYTES, error=ConfigError)


def check_run_name(name: str) -> None:
    """Refuse a run name that is not a plain name (it would place the run outside ``runs/``)."""
    if (
        name in (".", "..")
        or "/" in name
        or "\\" in name
        or os.sep in name
        or (os.altsep and os.altsep in name)
        or os.path.isabs(name)
        or not name.strip()
        or "\0" in name
    ):
        raise ConfigError(
            f"config key 'name': expected a plain name (no path separator, no '..', not absolute), "
            f"got {short_repr(name)}; use output_dir to choose where the run goes"
        )


def validate_config(data: dict, overrides=()) -> dict:
    """The resolved config (defaults filled in) of ``data``; raises :class:`ConfigError`.

    Everything that can be checked without training is checked here: types,
    bounds, agent specs, the env options (by building the env once) and the
    memory the rollout or replay buffer will take.
    """
    if data is not None and not isinstance(data, dict):
        raise ConfigError(f"expected a mapping of config keys at the top level, got {type(data).__name__}")
    data = copy.deepcopy(data or {})
    for override in overrides:
        _apply_override(data, override)
    config = _validate(SCHEMA, data)
    from kakurega.envs.registry import get_spec

    try:
        get_spec(config["env"])
    except ValueError as error:
        raise ConfigError(f"config key 'env': {error}") from None
    if not _DEVICE.fullmatch(config["device"]):
        raise ConfigError(f"config key 'device': expected cpu, auto, mps, cuda or cuda:N, got {short_repr(config['device'])}")
    for i, spec in enumerate(config["evaluation"]["final_opponents"]):
        _check_unattended_spec(f"evaluation.final_opponents[{i}]", spec, "the final evaluation")
    _check_unattended_spec("evaluation.opponent", config["evaluation"]["opponent"], "the periodic evaluation")
    if config["vec_env"] == "subproc" and config["n_envs"] > max_subproc_envs():
        raise ConfigError(
            f"config key 'n_envs': vec_env subproc runs each env copy in a process of its own (a Python with torch, "
            f"about 250 MB): at most {max_subproc_envs()} here ({MAX_SUBPROC_ENVS}, or one per CPU on a machine with "
            f"more), got {config['n_envs']}; use vec_env: dummy for more env copies"
        )
    if config["network"]["feature_head"] and not (config["network"]["move_features"] and config["algorithm"] == "ppo"):
        raise ConfigError("config key 'network.feature_head': the head scores actions by their move features; "
                          "it needs network.move_features: true and algorithm ppo")
    if config["algorithm"] != "ppo":  # the key is PPO's: a DQN config resolves it to exact (as it trains)
        if (data.get("network") or {}).get("masked_distribution", "exact") != "exact":
            raise ConfigError("config key 'network.masked_distribution': it chooses how PPO computes its network "
                              "and masked distribution; with algorithm dqn leave it out (or at exact)")
        config["network"]["masked_distribution"] = "exact"
    if config["pretrain"]["dagger_rounds"] and not config["pretrain"]["steps"]:
        raise ConfigError("config key 'pretrain.dagger_rounds': DAgger refines a first imitation; "
                          "set pretrain.steps > 0 (or dagger_rounds to 0)")
    if config["pretrain"]["steps"] and config["algorithm"] != "ppo":
        raise ConfigError("config key 'pretrain.steps': the behaviour-cloning warm start is for algorithm ppo only; set it to 0")
    _check_unattended_spec("pretrain.agent", config["pretrain"]["agent"], "the behaviour-cloning warm start")
    _check_data_backend(config["pretrain"])
    from kakurega.agents.specs import parse_spec

    if config["pretrain"]["target"] == "visits" and parse_spec(config["pretrain"]["agent"]).kind != "ismcts":
        raise ConfigError(
            f"config key 'pretrain.target': 'visits' learns a search's root visit shares and needs an ismcts agent "
            f"in pretrain.agent (e.g. 'ismcts:simulations=200,rollout=greedy'), got {config['pretrain']['agent']!r}; "
            "use target 'action' to imitate its moves"
        )
    if config["name"] is None:
        config["name"] = f"{config['env'].removesuffix('_v0')}_{config['algorithm']}"
    check_run_name(config["name"])
    if config["output_dir"] is None:
        config["output_dir"] = os.path.join("runs", config["name"])
    elif not config["output_dir"].strip() or "\0" in config["output_dir"]:
        raise ConfigError(f"config key 'output_dir': expected a directory path, got {short_repr(config['output_dir'])}")
    _check_env(config)
    return config


def max_subproc_envs() -> int:
    """The most env copies ``vec_env: subproc`` runs here: :data:`MAX_SUBPROC_ENVS`, or the CPUs this process may
    use if more (:func:`~kakurega.agents.tasks.usable_cpus`)."""
    from kakurega.agents.tasks import usable_cpus

    return max(MAX_SUBPROC_ENVS, usable_cpus())


def _check_env(config: dict) -> None:
    """Build the env once: its own option checks judge ``env_kwargs``, every agent spec is built
    for it (a policy file for another env fails now, not mid-run), and its size bounds the buffers."""
    from kakurega.agents.base import AgentContext
    from kakurega.agents.specs import make_agent
    from kakurega.envs.registry import make

    try:
        raw = make(config["env"], wrapped=False, **config["env_kwargs"])
    except (TypeError, ValueError, OverflowError) as error:
        raise ConfigError(f"config key 'env_kwargs': {config['env']} refuses these options: {_first_line(error)}") from None
    context = AgentContext.from_env(raw, config["env"], config["env_kwargs"])
    specs = [(f"opponents[{i}].agent", e["agent"]) for i, e in enumerate(config["opponents"])
             if e["agent"] not in ("self", "snapshots")]
    specs += [("evaluation.opponent", config["evaluation"]["opponent"])]
    specs += [(f"evaluation.final_opponents[{i}]", s) for i, s in enumerate(config["evaluation"]["final_opponents"])]
    for path, spec in specs:
        try:
            make_agent(spec, context, seed=0)
        except (TypeError, ValueError) as error:
            raise ConfigError(f"config key '{path}': {_first_line(error)}") from None
    floats = int(raw.layout.size) if getattr(raw, "layout", None) is not None else 0
    raw.close()
    if config["network"]["move_features"]:
        from kakurega.agents.move_features import MoveFeatures

        try:
            features = MoveFeatures(context)
        except ValueError as error:
            raise ConfigError(f"config key 'network.move_features': {error}") from None
        floats += features.size
        if config["network"]["feature_head"] and features.per_action is None:
            raise ConfigError(f"config key 'network.feature_head': the move features of {config['env']} are not one "
                              "row per action; set feature_head: false")
    _check_network_size(config, floats, context.num_actions)
    _check_league_size(config, floats, context.num_actions)
    _check_serves(config, context)
    if config["mix"]:
        from kakurega.agents.mixed_play import mixed_play_path

        if not mixed_play_path(config["env"]):
            raise ConfigError(f"config key 'mix': {config['env']} declares no mixed play (EnvSpec.mixed_play); "
                              "set mix: false")
    if config["init_policy"] is not None:
        from kakurega.agents.training.init_policy import check_init_policy

        check_init_policy(config, context)
    algorithm = config["algorithm"]
    steps, key = (
        (config["ppo"]["n_steps"], "ppo.n_steps") if algorithm == "ppo" else (2 * config["dqn"]["buffer_size"], "dqn.buffer_size")
    )
    needed = steps * config["n_envs"] * max(floats, 1) * 4
    if needed > MAX_BUFFER_BYTES:
        raise ConfigError(
            f"config key '{key}': with n_envs={config['n_envs']} and {floats} observation values the "
            f"{'rollout' if algorithm == 'ppo' else 'replay'} buffer would take {needed / 2**30:.1f} GiB; "
            f"the limit is {MAX_BUFFER_BYTES / 2**30:g} GiB (MAX_BUFFER_BYTES)"
        )
    pretrain = config["pretrain"]
    if pretrain["steps"]:  # the imitation data set, every DAgger round's labels included, is held in memory
        states = pretrain["steps"] + pretrain["dagger_rounds"] * (pretrain["dagger_steps"] or pretrain["steps"])
        needed = states * max(floats, 1) * 4
        if needed > MAX_BUFFER_BYTES:
            raise ConfigError(
                f"config key 'pretrain.steps': {states} imitation states (steps plus dagger_rounds x dagger_steps) of "
                f"{floats} observation values would take {needed / 2**30:.1f} GiB; the limit is "
                f"{MAX_BUFFER_BYTES / 2**30:g} GiB (MAX_BUFFER_BYTES)"
            )


def _check_serves(config: dict, context) -> None:
    """Each ``serves`` entry: options the env accepts, other than ``env_kwargs``, with the same spaces."""
    from kakurega.agents.policy import context_for, resolved_env_options, space_differences

    trained = resolved_env_options(config["env"], config["env_kwargs"])
    for i, options in enumerate(config["serves"]):
        path = f"serves[{i}]"
        try:
            served = context_for(config["env"], options)
        except (TypeError, ValueError, OverflowError) as error:
            raise ConfigError(f"config key '{path}': {config['env']} refuses these options: {_first_line(error)}") from None
        resolved = resolved_env_options(config["env"], options)
        if resolved == trained or resolved in (resolved_env_options(config["env"], o) for o in config["serves"][:i]):
            raise ConfigError(f"config key '{path}': {short_repr(options)} is env_kwargs or an earlier entry again; "
                              "list each other configuration once")
        differences = space_differences(context, served)
        if differences:
            raise ConfigError(f"config key '{path}': the policy cannot serve {short_repr(options)}: "
                              f"{'; '.join(differences)} (against env_kwargs)")


def network_bytes(config: dict, inputs: int, actions: int) -> int:
    """Bytes of the network's training state: 4-byte weights, their gradients and two Adam moments each
    (PPO: policy and value networks; DQN: the Q-network, plus its target network's weights)."""
    hidden = list(config["network"]["hidden"])
    if config["algorithm"] == "ppo":
        return 4 * 4 * (_parameters([inputs, *hidden, actions]) + _parameters([inputs, *hidden, 1]))
    return 4 * 5 * _parameters([inputs, *hidden, actions])


def _parameters(sizes: list) -> int:
    """Weights and biases of an MLP of layer ``sizes``."""
    return sum(a * b + b for a, b in zip(sizes, sizes[1:]))


def policy_numbers(config: dict, inputs: int, actions: int) -> int:
    """At most the numbers the run's policy file holds: the policy and value networks' weights and biases, and for
    each of their layers' units a layer norm's two and an int8 row's scale (whether the file has them or not)."""
    hidden = list(config["network"]["hidden"])
    units = 2 * sum(hidden) + actions + 1
    return _parameters([inputs, *hidden, actions]) + _parameters([inputs, *hidden, 1]) + 3 * units


def _check_network_size(config: dict, inputs: int, actions: int) -> None:
    from kakurega.agents.policy import MAX_POLICY_NUMBERS

    needed = network_bytes(config, max(inputs, 1), max(actions, 1))
    if needed > MAX_NETWORK_BYTES:
        raise ConfigError(
            f"config key 'network.hidden': a network of layers {config['network']['hidden']} on {inputs} observation "
            f"values and {actions} actions would take {needed / 2**30:.1f} GiB to train (weights, gradients, Adam "
            f"moments); the limit is {MAX_NETWORK_BYTES / 2**30:g} GiB (MAX_NETWORK_BYTES): use smaller layers"
        )
    numbers = policy_numbers(config, max(inputs, 1), max(actions, 1))
    if numbers > MAX_POLICY_NUMBERS:  # a policy file its own run could not load back
        raise ConfigError(
            f"config key 'network.hidden': a network of layers {config['network']['hidden']} on {inputs} observation "
            f"values and {actions} actions would save a policy file of up to {numbers:,} numbers; a policy file "
            f"holds at most {MAX_POLICY_NUMBERS:,} (MAX_POLICY_NUMBERS): use smaller layers"
        )


def _check_league_size(config: dict, inputs: int, actions: int) -> None:
    """Refuse a league whose snapshots would take more than :data:`MAX_LEAGUE_BYTES`: each of the ``n_envs`` env
    copies reads every snapshot in its pool (up to ``league.max_snapshots``) and keeps its float32 weights."""
    league = config["league"]
    if not {e["agent"] for e in config["opponents"]} & {"self", "snapshots"} or not league["snapshot_every"]:
        return  # no league: no snapshot is taken
    weights = _parameters([max(inputs, 1), *config["network"]["hidden"], max(actions, 1)])
    needed = 4 * weights * league["max_snapshots"] * config["n_envs"]
    if needed > MAX_LEAGUE_BYTES:
        raise ConfigError(
            f"config key 'league.max_snapshots': each of the n_envs={config['n_envs']} env copies keeps up to "
            f"{league['max_snapshots']} snapshots of the policy ({weights} weights, float32) in memory: "
            f"{needed / 2**30:.1f} GiB; the limit is {MAX_LEAGUE_BYTES / 2**30:g} GiB (MAX_LEAGUE_BYTES): keep fewer "
            "snapshots, use fewer env copies or smaller layers"
        )


def _first_line(error: Exception, limit: int = 300) -> str:
    text = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: the configs that ship with kakurega: the checkout's configs/ folder, or kakurega/configs in an installed package
PACKAGED_CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def find_config(path: str | os.PathLike) -> Path:
    """``path`` where it is a file; else, for a relative ``configs/...`` path (as the docs write them), that file of
    the shipped configs, so an installed package runs the docs' commands from any folder."""
    path = Path(path)
    if path.is_file():
        return path
    if not path.is_absolute() and path.parts[:1] == ("configs",) and len(path.parts) > 1:
        shipped = PACKAGED_CONFIGS.joinpath(*path.parts[1:])
        if shipped.is_file() and shipped.resolve().is_relative_to(PACKAGED_CONFIGS):
            return shipped
    raise ConfigError(f"config file {path} does not exist (the shipped configs are in {PACKAGED_CONFIGS}; a path "
                      "configs/NAME.yaml finds them from any folder)")


def load_config(path: str | os.PathLike, overrides=()) -> dict:
    """Read, validate and resolve the YAML config at ``path`` (``overrides``: ``KEY=VALUE`` strings; a missing
    ``configs/...`` path reads the shipped config of that name: :func:`find_config`)."""
    given, path = Path(path), find_config(path)
    data = load_file(path, max_bytes=MAX_CONFIG_BYTES, error=ConfigError)
    if path != given and isinstance(data, dict) and isinstance(data.get("init_policy"), str) \
            and data["init_policy"] and not Path(data["init_policy"]).is_absolute():
        # a shipped config read from another folder names the package's own files (agents/pretrained/...),
        # as train-bots reads them: from the package's folder, not the current one
        data = dict(data, init_policy=str(PACKAGED_CONFIGS.parent / data["init_policy"]))
    try:
        return validate_config({} if data is None else data, overrides)
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
            if key.default is REQUIRED:
                default = "(required)"
            else:
                default = f"`{yaml.safe_dump(key.default, default_flow_style=True).strip().removesuffix('...').strip()}`"
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
