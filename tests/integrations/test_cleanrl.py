"""The CleanRL-style single-file PPO example trains a few steps (sync and process vector envs),
never plays an illegal move, and exports a policy file that kakurega evaluate plays."""

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("torch")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cleanrl_ppo.py"


def _example():
    spec = importlib.util.spec_from_file_location("cleanrl_ppo_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("vector", [[], ["--async-envs"]], ids=["sync", "async"])
def test_cleanrl_ppo_trains_and_exports(vector, tmp_path, capsys):
    from kakurega.scripts.cli import main

    path = tmp_path / "policy.safetensors"
    stats = _example().main([
        "--env-id", "kakurega.envs:kakurega/animal_chain-v0", "--total-timesteps", "256", "--num-envs", "2",
        "--num-steps", "64", "--update-epochs", "1", "--hidden", "16", "--export", str(path), *vector,
    ])
    assert stats["steps"] == 256 and stats["episodes"] > 0 and stats["illegal"] == 0
    assert main(["evaluate", "animal_chain_v0", "--agents", f"policy:{path}", "random", "--games", "4", "--quiet"]) == 0
    assert "policy" in capsys.readouterr().out
