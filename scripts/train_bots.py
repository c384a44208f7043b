"""Retrain the shipped bots from scratch: every config in ``configs/bots/``, then install the policy files.

    kakurega train-bots                       # all of them (make bots)
    kakurega train-bots --only hidden_rooms   # the config of that name (a word no config is named: every
                                              # config whose file name contains it)

Each config trains in ``runs/bots/<config name>/`` (replacing an earlier run
there) with its own fixed seed, and its final policy file is copied into the
package as ``kakurega/agents/pretrained/<env>-<options>.safetensors``, where
the agent spec ``pretrained`` finds it. docs/strength.md has the card of each
bot (budget, time, evaluation). A bot config's relative ``init_policy`` (the
bot it fine-tunes) names a file of the package, ``agents/pretrained/...``: it
is read from the package's folder, so train-bots runs from any folder and
from an installed package alike.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def bot_configs(directory: Path, only=()) -> list[Path]:
    """The bot configs in ``directory``; with ``only``, those each word names: a config's whole name (file name
    without ``.yaml``) selects that config alone (``animal_chain``, not ``animal_chain_any`` too), another word
    every config whose name contains it."""
    configs = sorted(directory.glob("*.yaml"))
    if only:
        names = {c.stem for c in configs}
        configs = [c for c in configs if any(word == c.stem or (word not in names and word in c.stem)
                                             for word in only)]
    return configs


def package_overrides(config: Path, package: Path) -> list[str]:
    """The overrides that make ``config``'s package paths absolute: a relative ``init_policy`` read from ``package``.

    (A config of ``kakurega train`` reads its paths from the current folder; a shipped bot config names the package's
    own files, which must be found wherever train-bots runs.)"""
    from kakurega.agents.training.config import MAX_CONFIG_BYTES, ConfigError
    from kakurega.envs.core.safe_load import load_file

    data = load_file(config, max_bytes=MAX_CONFIG_BYTES, error=ConfigError)
    init = data.get("init_policy") if isinstance(data, dict) else None
    if isinstance(init, str) and init and not Path(init).is_absolute():
        return [f"init_policy={package / init}"]
    return []


def install_bot(policy_path: Path, env_name: str, env_kwargs: dict) -> Path:
    """Copy a trained policy file into the package (where ``pretrained`` finds it), its weights in int8.

    int8 with a scale per row keeps the shipped files at a few hundred KiB
    (``save_policy``); the copy's greedy moves are compared with the
    original's on observations of heuristic games, and the agreement printed.
    """
    from kakurega.agents.policy import read_policy, save_policy
    from kakurega.agents.pretrained import DIRECTORY, file_name

    metadata, layers, value_layers = read_policy(policy_path, with_value=True)
    destination = DIRECTORY / file_name(env_name, env_kwargs)
    save_policy(destination, layers, metadata, value_layers=value_layers, precision="int8")
    agreement = greedy_agreement(policy_path, destination, env_name, env_kwargs)
    print(f"installed {destination} ({destination.stat().st_size // 1024} KiB; "
          f"same greedy move as the trained file on {agreement:.1%} of sampled decisions)")
    return destination


def greedy_agreement(original, copy, env_name: str, env_kwargs: dict, games: int = 20, seed: int = 0) -> float:
    """Share of the decisions of ``games`` heuristic-played games where two policy files pick the same move.

    The networks' greedy moves are compared (``mix=False``): a file with ``mix: true`` draws its mixed decisions from
    its generator, and two draws of one file would disagree where the networks agree."""
    from kakurega.agents.base import choose_action
    from kakurega.agents.policy import context_for, load
    from kakurega.agents.specs import make_agent
    from kakurega.envs import make

    env = make(env_name, **env_kwargs).unwrapped
    context = context_for(env_name, env_kwargs)
    a, b = load(original, mix=False), load(copy, mix=False)
    same = total = 0
    for game in range(games):
        env.reset(seed=seed + game)
        players = {name: make_agent("heuristic", context, seed=seed + game) for name in env.possible_agents}
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            name = env.agent_selection
            observation = env.observe(name)
            same += int(a.act(observation) == b.act(observation))
            total += 1
            env.step(choose_action(players[name], env, name, observation))
    return same / max(1, total)


def main(argv=None) -> int:
    """Entry point of ``kakurega train-bots``."""
    repo = Path(__file__).resolve().parents[1]
    parser = argparse.ArgumentParser(prog="kakurega train-bots", description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", type=Path, default=repo / "configs" / "bots", help="folder of bot configs")
    parser.add_argument("--only", nargs="*", default=(), help="only these configs: a config's name (its file name without .yaml) selects it alone, another "
                        "word every config whose name contains it")
    parser.add_argument("--runs", type=Path, default=Path("runs/bots"), help="where the runs go (default runs/bots)")
    parser.add_argument("--no-install", action="store_true", help="train only; leave the shipped files alone")
    parser.add_argument("--quiet", action="store_true", help="no progress bars or tables")
    args = parser.parse_args(argv)
    if not args.configs.is_dir():
        raise ValueError(f"--configs {args.configs}: not a directory; expected the folder of bot configs (*.yaml)")
    configs = bot_configs(args.configs, args.only)
    if not configs:
        raise ValueError(f"no bot config in {args.configs} matches {' or '.join(args.only) or 'anything'}; expected "
                         f"a word of a config's file name: {', '.join(c.stem for c in bot_configs(args.configs)) or 'none'}")
    from kakurega.agents.training.config import ConfigError
    from kakurega.scripts.cli import _run_training

    for config in configs:
        print(f"== {config}")
        try:
            overrides = package_overrides(config, repo)
        except ConfigError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        result, status = _run_training(config, [*overrides, f"output_dir={args.runs / config.stem}"], overwrite=True,
                                       quiet=args.quiet)  # a bad config or a full disk: one line, not a traceback
        if result is None:
            return status
        if not args.no_install:
            install_bot(result.policy_path, result.config["env"], result.config["env_kwargs"])
    return 0


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
