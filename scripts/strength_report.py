"""Bot strength report: the default PPO bot of every game against random and heuristic players.

    python -m kakurega.scripts.strength_report --train      # train every registered env's default config, then report
    python -m kakurega.scripts.strength_report              # report from existing runs

Each game's bot is trained with its default config and budget into
``runs/strength/<game>_ppo`` (the training run's own final evaluation: greedy
policy, seats rotated, paired deals, ``evaluation.final_games`` games per
opponent, with a random player's result on the same deals as the baseline).
The report is written as Markdown (default ``docs/strength.md``). It is a
benchmark, not a test: the figures are whatever the runs produced.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def config_for(env_name: str) -> Path:
    """The default PPO config of a registered env (``EnvSpec.train_config``), e.g. ``configs/kakurenbo_ppo.yaml``."""
    from kakurega.envs.registry import get_spec

    spec = get_spec(env_name)
    if not spec.train_config:
        raise ValueError(f"{spec.name} has no default training config (EnvSpec.train_config)")
    return ROOT / spec.train_config


def _fmt_ci(row: dict) -> str:
    lo, hi = row["score_ci95"]
    return f"{row['score']:.3f} [{lo:.3f}, {hi:.3f}]"


def _fmt_reward(row: dict) -> str:
    lo, hi = row["mean_reward_ci95"]
    return f"{row['mean_reward']:+.3f} [{lo:+.3f}, {hi:+.3f}]"


def game_section(env_name: str, run_dir: Path) -> str:
    """The Markdown section of one game, from its run directory."""
    from kakurega.envs.core.safe_load import load_file

    summary_path = run_dir / "summary.json"
    if not summary_path.is_file():
        return f"### {env_name}\n\nNo finished run in `{run_dir}`.\n"
    summary = load_file(summary_path)
    config = load_file(run_dir / "config.yaml")
    wall = summary.get("wall_seconds_training", summary.get("wall_seconds_total"))
    cpu = summary.get("cpu_seconds_training")
    lines = [
        f"### {env_name} {config['env_kwargs'] or ''}",
        "",
        f"Config `configs/{config_for(env_name).name}`: {summary['timesteps']} learner steps, "
        f"network {config['network']['hidden']} {config['network']['activation']}, opponents "
        + ", ".join(f"{o['agent']} {o['weight']:g}" for o in config["opponents"])
        + f". Training wall time **{wall / 60:.1f} min**"
        + (f" (CPU time of the training process {cpu / 60:.1f} min)" if cpu else "")
        + ".",
        "",
        "| opponent | player | games | score [95% CI] | mean reward [95% CI] |",
        "|---|---|---|---|---|",
    ]
    for row in summary["evaluation"]:
        lines.append(f"| {row['opponent']} | {row['agent']} | {row['games']} | {_fmt_ci(row)} | {_fmt_reward(row)} |")
    lines.append("")
    return "\n".join(lines)


def write_report(runs_dir: Path, out: Path, env_names: list[str], note: str = "") -> str:
    """Write the Markdown report for ``env_names`` from ``runs_dir``; returns its text."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    header = [
        "# Bot strength report",
        "",
        "The PPO bot of each game, trained with its default config and budget "
        "(`python -m kakurega.scripts.strength_report --train`), then evaluated greedily against "
        "uniformly random and heuristic opponents: seats rotated, the same deals for the bot and for "
        "the random baseline, 95% Wilson intervals for scores (a win 1, a win shared by k seats 1/k, a loss 0) "
        "and for mean rewards that pay the score or take two values (the score's interval placed on the game's "
        "return bounds), normal intervals clipped to the bounds for other mean rewards "
        "(`kakurega.agents.tournament.mean_interval`). "
        "With more than two seats the bot plays against a table of copies of the opponent, so the "
        "\"random (baseline)\" row — a random player at the same table on the same deals — is the bar "
        "to clear; who won is the rules' call where they say it, else the highest final return at the table "
        "(see `kakurega.agents.outcome`).",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPU cores, Python {platform.python_version()}, "
        f"torch CPU. Written {time.strftime('%Y-%m-%d %H:%M')}"
        + (f"; load average at writing {load[0]:.1f}" if load else "")
        + ".",
        "",
    ]
    if note:
        header += [note, ""]
    body = [game_section(name, runs_dir / config_for(name).stem) for name in env_names]
    text = "\n".join(header + body)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kakurega.scripts.strength_report", description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", action="store_true", help="train every game's default PPO config first (replaces earlier runs)")
    parser.add_argument("--runs-dir", default="runs/strength", help="where the runs live (default runs/strength)")
    parser.add_argument("--out", default=None, help="Markdown file to write (default docs/strength.md of this checkout)")
    parser.add_argument("--env", action="append", help="only these envs (repeatable; default: every env with a default training config)")
    parser.add_argument("--reevaluate", action="store_true", help="redo the final evaluation of existing runs with the current code")
    parser.add_argument("--note", default="", help="a paragraph added under the header (e.g. machine conditions)")
    args = parser.parse_args(argv)
    from kakurega.envs.registry import ENV_SPECS
    from kakurega.scripts.destination import checkout_path

    args.out = args.out or checkout_path("docs/strength.md", "--out")

    names = args.env or [name for name, spec in ENV_SPECS.items() if spec.train_config]
    runs_dir = Path(args.runs_dir)
    if args.train:
        from kakurega.agents.training.trainer import train

        for name in names:
            config = config_for(name)
            print(f"training {name} with {config}", flush=True)
            train(config, [f"output_dir={runs_dir / config.stem}", "logging.progress_bar=false"], overwrite=True)
    if args.reevaluate:
        from kakurega.agents.training.trainer import final_evaluation
        from kakurega.envs.core.safe_load import load_file

        for name in names:
            run_dir = runs_dir / config_for(name).stem
            config = load_file(run_dir / "config.yaml")
            rows, table = final_evaluation(config, run_dir / "policy.safetensors", run_dir)
            summary = load_file(run_dir / "summary.json")
            summary["evaluation"] = rows
            (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
            print(table)
    print(write_report(runs_dir, Path(args.out), names, args.note))
    return 0


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
