"""Shared helpers of the training tests: tiny configs and the list of envs to sweep."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from kakurega.envs.registry import ENV_SPECS

#: every registered env (the toy game is added by tests that want it)
REGISTERED = list(ENV_SPECS)


def tiny_config(env: str, algorithm: str, output_dir, **overrides) -> dict:
    """A config that trains for a few hundred steps with tiny networks and no periodic extras."""
    config = {
        "env": env,
        "algorithm": algorithm,
        "total_timesteps": 256,
        "n_envs": 2,
        "seed": 0,
        "output_dir": str(output_dir),
        "network": {"hidden": [16]},
        "opponents": [{"agent": "random", "weight": 1.0}, {"agent": "self", "weight": 1.0}],
        "league": {"sync_every": 64, "snapshot_every": 128, "max_snapshots": 1},
        "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
        "dqn": {"learning_starts": 32, "buffer_size": 1000, "batch_size": 16, "train_freq": 4, "target_update_interval": 64},
        "evaluation": {"every": 0, "games": 2, "final_games": 0},
        "checkpoint": {"every": 0, "keep": 1},
        "logging": {"tensorboard": False, "progress_bar": False},
    }
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            config[key] = {**config[key], **value}
        else:
            config[key] = value
    return config


def tree_digest(root: Path, skip: Path | None = None) -> dict:
    """``{relative path: sha256}`` of every file under ``root`` except under ``skip``."""
    digest = {}
    for path in sorted(root.rglob("*")):
        if skip is not None and (path == skip or skip in path.parents):
            continue
        if path.is_file():
            digest[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest


class PickledTasks:
    """Stands in for Ray tasks: every work item crosses a pickle (plain data only) and runs on its own."""

    backend = "ray"
    cpus = 2

    def __init__(self):
        self.items = 0

    def map(self, fn, items):
        import pickle

        for item in items:
            self.items += 1
            yield pickle.loads(pickle.dumps(fn(pickle.loads(pickle.dumps(item)))))


def train_template(tmp_path_factory, config_of) -> Path:
    """One finished Secret Nim run of config ``config_of(out)``, trained once (a module fixture's); tests copy it."""
    from secret_nim import toy_registered

    from kakurega.agents.training.trainer import train

    out = tmp_path_factory.mktemp("template") / "run"
    with toy_registered():
        train(config_of(out), quiet=True)
    return out


def copy_run(template: Path, tmp_path: Path) -> Path:
    """A copy of the run ``template`` at ``tmp_path / 'run'`` (a moved run resumes)."""
    out = tmp_path / "run"
    shutil.copytree(template, out)
    return out
