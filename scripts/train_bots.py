"""Retrain the shipped bots from scratch: every config in ``configs/bots/``, then install the policy files.

    kakurega train-bots                       # all of them (make bots)
    kakurega train-bots --only hidden_rooms   # the configs whose file name contains this

Each config trains in ``runs/bots/<config name>/`` (replacing an earlier run
there) with its own fixed seed, and its final policy file is copied into the
package as ``kakurega/agents/pretrained/<env>-<options>.safetensors``, where
the agent spec ``pretrained`` finds it. docs/strength.md has the card of each
bot (budget, time, evaluation).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def bot_configs(directory: Path, only=()) -> list[Path]:
    """The bot configs in ``directory`` (those whose name contains one of ``only``, if given)."""
    configs = sorted(directory.glob("*.yaml"))
    if only:
        configs = [c for c in configs if any(word in c.stem for word in only)]
    return configs


def train_bot(config_path: Path, runs: Path, install: bool = True, quiet: bool = False) -> Path:
    """Train one bot config into ``runs/<stem>``; returns the installed (or trained) policy file."""
    from kakurega.agents.training.trainer import train

    result = train(config_path, [f"output_dir={runs / config_path.stem}"], overwrite=True, quiet=quiet)
    if not install:
        return result.policy_path
    return install_bot(result.policy_path, result.config["env"], result.config["env_kwargs"])


def install_bot(policy_path: Path, env_name: str, env_kwargs: dict) -> Path:
    """Copy a trained policy file into the package, in half precision (where ``pretrained`` finds it)."""
    from kakurega.agents.policy import read_policy, save_policy
    from kakurega.agents.pretrained import DIRECTORY, file_name

    metadata, layers, value_layers = read_policy(policy_path, with_value=True)
    destination = DIRECTORY / file_name(env_name, env_kwargs)
    save_policy(destination, layers, metadata, value_layers=value_layers, precision="float16")
    print(f"installed {destination} ({destination.stat().st_size // 1024} KiB)")
    return destination


def main(argv=None) -> int:
    """Entry point of ``kakurega train-bots``."""
    repo = Path(__file__).resolve().parents[1]
    parser = argparse.ArgumentParser(prog="kakurega train-bots", description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", type=Path, default=repo / "configs" / "bots", help="folder of bot configs")
    parser.add_argument("--only", nargs="*", default=(), help="only configs whose name contains one of these words")
    parser.add_argument("--runs", type=Path, default=Path("runs/bots"), help="where the runs go (default runs/bots)")
    parser.add_argument("--no-install", action="store_true", help="train only; leave the shipped files alone")
    parser.add_argument("--quiet", action="store_true", help="no progress bars or tables")
    args = parser.parse_args(argv)
    configs = bot_configs(args.configs, args.only)
    if not configs:
        raise ValueError(f"no bot config in {args.configs} matches {list(args.only) or 'anything'}")
    for config in configs:
        print(f"== {config}")
        train_bot(config, args.runs, install=not args.no_install, quiet=args.quiet)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
