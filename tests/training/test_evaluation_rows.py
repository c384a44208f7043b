"""What an eval.csv row is: the policy as trained up to the row's step. Its weights are those of the checkpoint of
that step, the last row's those of policy.safetensors, and its figures what an evaluation of that file on the same
deals gives; a Ctrl-C or a kill leaves no evaluation out and none twice (Secret Nim, budgets of seconds)."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from safetensors.numpy import load_file
from training_helpers import tiny_config

from kakurega.agents.training import trainer


def _rows(path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture
def evaluated(monkeypatch):
    """``{step: the weights of the acting network's last layer}`` of every periodic evaluation, as it ran."""
    seen = {}
    real = trainer.periodic_evaluation

    def recording(config, out, metadata, layers, timesteps, *args, **kwargs):
        seen[timesteps] = np.array(layers[-1][0], copy=True)
        return real(config, out, metadata, layers, timesteps, *args, **kwargs)

    monkeypatch.setattr(trainer, "periodic_evaluation", recording)
    return seen


def _acting_tensors(checkpoint) -> list[np.ndarray]:
    """The tensors of a checkpoint's acting network (not PPO's critic, not DQN's target network)."""
    weights = load_file(checkpoint / "weights.safetensors")
    return [t for name, t in weights.items() if name.startswith(("action_net.", "q_net.q_net."))]


def _holds(checkpoint, weight: np.ndarray) -> bool:
    return any(t.shape == weight.shape and np.array_equal(t, weight) for t in _acting_tensors(checkpoint))


@pytest.mark.parametrize("algorithm", ["ppo", "dqn"])
def test_each_row_evaluates_the_weights_of_its_steps_checkpoint_and_the_last_the_final_policy(nim, tmp_path,
                                                                                              evaluated, algorithm):
    """PPO updates after each rollout of 64 steps, DQN takes gradient steps after each collection of 8: an
    evaluation at step N once played the weights from before the update that ends at N, so the last row was not
    the figure of the policy the run saved."""
    from kakurega.agents.policy import read_policy
    from kakurega.agents.specs import with_path
    from kakurega.agents.tournament import run_tournament

    out = tmp_path / "run"
    config = tiny_config(nim.NAME, algorithm, out, total_timesteps=256, ppo={"n_steps": 32, "batch_size": 32,
                                                                              "n_epochs": 2, "learning_rate": 0.01},
                         evaluation={"every": 64, "games": 20, "opponent": "random", "final_games": 0},
                         checkpoint={"every": 64, "keep": 10})
    result = trainer.train(config, quiet=True)
    rows = _rows(out / "eval.csv")
    steps = [int(r["timesteps"]) for r in rows]
    assert steps == [64, 128, 192, 256] == sorted(evaluated)
    assert steps[-1] == result.timesteps == json.loads((out / "summary.json").read_text())["timesteps"]
    checkpoints = out / "checkpoints"
    for step in steps:
        assert _holds(checkpoints / f"step_{step}", evaluated[step]), f"the row of step {step}"
    # the control: every update changes the weights, so holding those of the step's own checkpoint says something
    for before, after in zip(steps, steps[1:]):
        assert not any(np.array_equal(a, b) for a, b in zip(_acting_tensors(checkpoints / f"step_{before}"),
                                                           _acting_tensors(checkpoints / f"step_{after}")))
    _, final = read_policy(result.policy_path)
    assert np.array_equal(np.asarray(final[-1][0]), evaluated[steps[-1]])
    # the last row's figures are those of the saved policy, evaluated on its own on the same deals
    spec = with_path("policy", result.policy_path)
    alone = run_tournament(nim.NAME, [spec, "random"], result.config["env_kwargs"], 20, 12345, focal=spec).per_agent[0]
    last = rows[-1]
    assert (int(last["games"]), float(last["score"]), float(last["win_rate"]), float(last["mean_reward"])) == (
        alone["games"], round(alone["score"], 4), round(alone["win_rate"], 4), round(alone["mean_reward"], 4))


def _stop_in_evaluation(monkeypatch, step: int) -> list:
    """Ctrl-C inside the periodic evaluation of ``step`` (once)."""
    real, stopped = trainer.periodic_evaluation, []

    def stopping(config, out, metadata, layers, timesteps, *args, **kwargs):
        if timesteps == step and not stopped:
            stopped.append(step)
            raise KeyboardInterrupt
        return real(config, out, metadata, layers, timesteps, *args, **kwargs)

    monkeypatch.setattr(trainer, "periodic_evaluation", stopping)
    return stopped


@pytest.mark.parametrize("algorithm,step", [("ppo", 128), ("ppo", 256), ("dqn", 64), ("dqn", 256)])
def test_a_ctrl_c_during_an_evaluation_keeps_its_step_and_the_resume_takes_it_once(nim, tmp_path, monkeypatch,
                                                                                  algorithm, step):
    """Stopped while it evaluates (at a rollout's start, or the final policy after training), a run saves the
    checkpoint of that step, whole; the resumed run takes that evaluation first, and its rows are those of a run
    never stopped, each once (256: the final policy, evaluated after the last update)."""
    def config(out):
        return tiny_config(nim.NAME, algorithm, out, total_timesteps=256,
                           evaluation={"every": 64, "games": 2, "opponent": "random", "final_games": 0},
                           checkpoint={"every": 128, "keep": 10, "save_replay_buffer": True})

    whole = tmp_path / "whole"
    trainer.train(config(whole), quiet=True)
    out = tmp_path / "stopped"
    with monkeypatch.context() as patch:
        stopped = _stop_in_evaluation(patch, step)
        with pytest.raises(trainer.TrainingInterrupted, match=rf"at step {step}: checkpoint .*step_{step} saved; "):
            trainer.train(config(out), quiet=True)
    assert stopped == [step]
    state = json.loads((out / "checkpoints" / f"step_{step}" / "state.json").read_text())
    assert state["num_timesteps"] == step
    if algorithm == "dqn":  # whole steps: counted, stored, their games ended
        assert state["n_calls"] * 2 == step == state["replay"]["pos"] * 2
    assert [int(r["timesteps"]) for r in _rows(out / "eval.csv")] == [s for s in (64, 128, 192) if s < step]
    trainer.train(config(out), resume=True, quiet=True)
    assert [r["timesteps"] for r in _rows(out / "eval.csv")] == [r["timesteps"] for r in _rows(whole / "eval.csv")] \
        == ["64", "128", "192", "256"]


def test_a_dqn_ctrl_c_in_the_gradient_steps_after_an_evaluation_step_loses_no_row(nim, tmp_path, monkeypatch):
    """A Ctrl-C in the gradient steps after the collection that reaches step 64 saves step 64, before the
    evaluation of step 64 (due at the next collection's start) has run: the resumed run takes it."""
    import torch

    def config(out):
        return tiny_config(nim.NAME, "dqn", out, total_timesteps=128,
                           evaluation={"every": 64, "games": 2, "opponent": "random", "final_games": 0},
                           dqn={"learning_starts": 16, "buffer_size": 1000, "batch_size": 16, "train_freq": 4,
                                "gradient_steps": 2, "target_update_interval": 64})

    out = tmp_path / "run"
    real, calls = torch.optim.Adam.step, []

    def step(self, *args, **kwargs):  # collections of 8 steps; learning from step 24 on, 2 gradient steps each
        calls.append(1)
        if len(calls) == 11:  # the first of the gradient steps after the collection that ends at step 64
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(torch.optim.Adam, "step", step)
        with pytest.raises(trainer.TrainingInterrupted, match=r"at step 64: checkpoint .*step_64 saved; continue"):
            trainer.train(config(out), quiet=True)
    assert [int(r["timesteps"]) for r in _rows(out / "eval.csv")] in ([], [64])
    trainer.train(config(out), resume=True, quiet=True)
    assert [int(r["timesteps"]) for r in _rows(out / "eval.csv")] == [64, 128]
