"""What a run directory's owner may count on: ``--overwrite`` deletes only what a run wrote (by kind and by name,
never a user's file beside it), a job of several trainings (``exploit``, ``harden``) holds one lock from start to
end, a Ctrl-C before anything worth keeping leaves nothing that blocks the rerun, a config.yaml that is no mapping
is refused in words, and a resume after a Ctrl-C within a PPO rollout trains to the steps of a run never
interrupted (Secret Nim, budgets of seconds)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from safetensors.numpy import load_file
from training_helpers import copy_run, tiny_config, train_template, tree_digest

pytestmark = pytest.mark.faults

#: a user's own files, named like a run's entries or put inside the directories a run writes into
FOREIGN = {
    "notes.txt": "my notes",
    "tb": "my tensorboard notes",
    "tournament/mine.txt": "my own tournament",
    "exploit.txt": "my exploit notes",
    "exploit.json": "{\"mine\": 1}",
    "plots/my_figure.png": "my own figure",
    "evaluation/my_table.csv": "a,b\n",
    "logs/my_log.txt": "my log",
    "logs/part0/my_note.txt": "beside the run's progress.csv",
}


def _config(out: Path, **overrides) -> dict:
    """PPO, two envs of 16 steps: a rollout is 32 steps."""
    from secret_nim import NAME

    settings = dict(total_timesteps=64, ppo={"n_steps": 16, "batch_size": 16, "n_epochs": 1},
                    checkpoint={"every": 32, "keep": 5}, evaluation={"every": 0, "games": 2, "final_games": 2,
                                                                     "final_opponents": ["random"]},
                    logging={"tensorboard": True, "progress_bar": False})
    settings.update(overrides)
    return tiny_config(NAME, "ppo", out, **settings)


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """One finished run (final evaluation, plots, TensorBoard events), trained once for the module."""
    return train_template(tmp_path_factory, _config)


@pytest.fixture
def run(finished_run, tmp_path, nim) -> Path:
    return copy_run(finished_run, tmp_path)


def _plant(out: Path) -> None:
    for name, text in FOREIGN.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text)


# ------------------------------------------------------------------ --overwrite
@pytest.mark.parametrize("manifest", ["written by the run", "format 1: every entry listed"])
def test_overwrite_deletes_the_runs_files_and_leaves_the_users_beside_them(run, manifest, capsys):
    from kakurega.agents.training import run_dir
    from kakurega.agents.training.trainer import train

    if manifest.startswith("format 1"):  # what runs wrote before the manifest named a kind
        (run / run_dir.MANIFEST).write_text(json.dumps({"format": "kakurega-run", "format_version": 1, "entries": [
            "config.yaml", "policy.safetensors", "checkpoints", "league", "logs", "tb", "eval.csv", "evaluation",
            "plots", "summary.json", "tournament", "exploit.json", "exploit.txt"]}))
    _plant(run)
    assert (run / "plots" / "learning_curve.png").is_file() and list((run / "logs" / "part0").glob("events.*"))
    old_checkpoints = sorted(p.name for p in (run / "checkpoints").iterdir())
    assert old_checkpoints == ["step_32", "step_64"]
    capsys.readouterr()
    train(_config(run, total_timesteps=32, evaluation={"final_games": 0}), overwrite=True)
    said = capsys.readouterr().out
    for name, text in FOREIGN.items():
        assert (run / name).read_text() == text, name  # the user's files: kept, unchanged
    left = said.partition("left alone: ")[2].partition(")")[0].split(", ")
    assert sorted(left) == sorted(["notes.txt", "tb", "tournament", "exploit.txt", "exploit.json", "plots/my_figure.png",
                                   "evaluation/my_table.csv", "logs/my_log.txt", "logs/part0/my_note.txt"])  # and named
    # the earlier run's own files are gone (its final evaluation, checkpoint 64, events), the new run's are there
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["step_32"]
    assert sorted(p.name for p in (run / "evaluation").iterdir()) == ["my_table.csv"]
    assert sorted(p.name for p in (run / "plots").iterdir()) == ["learning_curve.png", "my_figure.png"]
    assert sorted(p.name for p in (run / "logs").iterdir()) == ["my_log.txt", "part0", "part1"]
    assert sorted(p.name for p in (run / "logs" / "part0").iterdir()) == ["my_note.txt"]  # its events: gone
    manifest = json.loads((run / run_dir.MANIFEST).read_text())
    assert manifest["kind"] == "train" and "tournament" not in manifest["entries"]
    assert "exploit.json" not in manifest["entries"] and "tb" not in manifest["entries"]


def test_overwrite_deletes_what_the_kind_of_run_in_the_manifest_wrote(tmp_path):
    from kakurega.agents.training import run_dir

    out = tmp_path / "run"
    out.mkdir()
    (tmp_path / "outside.txt").write_text("outside")
    run_dir.write_manifest(out, "exploit")
    written = ["exploit.json", "exploit.txt", ".exploit.json.tmp", "config.yaml", "evaluation/exploit_stage_64.safetensors",
               "evaluation/vs_random.json", "evaluation/vs_random_heatmap.png", "plots/exploit_curve.png",
               "checkpoints/step_64/state.json", "checkpoints/.step_96.tmp/weights.safetensors",
               "league/snapshot_32.safetensors", "logs/part0/progress.csv"]
    foreign = ["tournament/tournament.json", "evaluation/exploit_stage_x.safetensors", "plots/curve.png",
               "checkpoints/step_64x", "league/mine.safetensors", "summary.json/inside.txt"]
    for name in written + foreign:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(name)
    (out / "plots" / "learning_curve.png").symlink_to(tmp_path / "outside.txt")  # a link: never the run's
    left = run_dir.remove_run_files(out)
    assert left == ["checkpoints/step_64x", "evaluation/exploit_stage_x.safetensors", "league/mine.safetensors",
                    "plots/curve.png", "plots/learning_curve.png", "summary.json", "tournament"]
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if not p.is_dir()) == sorted(
        foreign + ["plots/learning_curve.png"])
    assert (tmp_path / "outside.txt").read_text() == "outside"

    # the same files under a quickstart manifest: the tournament's files are its own, exploit.json is not
    out2 = tmp_path / "qs"
    out2.mkdir()
    run_dir.write_manifest(out2, "quickstart")
    for name in ("tournament/tournament.json", "tournament/tournament_heatmap.png", "exploit.json", "config.yaml"):
        (out2 / name).parent.mkdir(parents=True, exist_ok=True)
        (out2 / name).write_text(name)
    assert run_dir.remove_run_files(out2) == ["exploit.json"]
    assert sorted(p.name for p in out2.iterdir()) == ["exploit.json"]


# ------------------------------------------------------------------ one lock for a job
EXPLOIT_TINY = {
    "algorithm": "ppo", "env": "secret_nim_v0", "total_timesteps": 64, "n_envs": 2, "network": {"hidden": [16]},
    "ppo": {"n_steps": 16, "batch_size": 32, "n_epochs": 1},
    "opponents": [{"agent": "heuristic", "weight": 3.0}, {"agent": "random", "weight": 1.0}],
    "logging": {"tensorboard": False, "progress_bar": False},
    "evaluation": {"every": 0, "final_games": 0},
}


@pytest.fixture
def recipe(tmp_path):
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(EXPLOIT_TINY))
    return path


def test_exploit_holds_its_lock_between_stages_so_a_second_run_is_refused(nim, recipe, tmp_path, monkeypatch):
    import kakurega.agents.exploit as exploit_module
    from kakurega.agents.training.config import ConfigError

    out = tmp_path / "abr"
    # stages of 32, 64 and 128 learner steps: each past the one before (a rollout is 32 steps)
    settings = dict(budget=128, games=4, warm_start=0, config_path=recipe, output_dir=out, quiet=True)
    measure, answers, trying = exploit_module.measure, [], []

    def measure_while_another_tries(*args, **kwargs):
        if len(trying) < 2 and len(trying) == len(answers):  # between the stages: a second exploit on the directory
            trying.append("overwrite" if not trying else "resume")
            try:
                exploit_module.exploit(nim.NAME, "random", **settings, **{trying[-1]: True})
            except ConfigError as refused:
                answers.append(str(refused))
            else:
                answers.append("accepted")
        return measure(*args, **kwargs)

    monkeypatch.setattr(exploit_module, "measure", measure_while_another_tries)
    report = exploit_module.exploit(nim.NAME, "random", **settings)
    assert len(answers) == 2 and all("in use by another kakurega run" in answer for answer in answers), answers
    assert [row["budget"] for row in report["learned"]] == [32, 64, 128]
    assert all(Path(row["agent"].removeprefix("policy:")).is_file() for row in report["learned"])
    assert not (out / ".kakurega-lock").exists()  # given back at the end


def test_harden_holds_its_directory_and_its_rounds_runs_until_it_ends(nim, recipe, tmp_path, monkeypatch):
    import kakurega.agents.exploit as exploit_module
    from kakurega.agents.harden import harden
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    out = tmp_path / "h"
    small = dict(rounds=0, exploit_budget=32, games=4, warm_start=0, quiet=True)
    measure, answers, trying = exploit_module.measure, [], []

    def measure_while_others_try(*args, **kwargs):
        if not trying:  # round 0's bot is trained and about to be measured
            trying.append(True)
            for attempt in (lambda: harden(recipe, output_dir=out, overwrite=True, **small),
                            lambda: train({**EXPLOIT_TINY, "output_dir": str(out / "round_0" / "bot")},
                                          overwrite=True, quiet=True)):
                try:
                    attempt()
                except ConfigError as refused:
                    answers.append(str(refused))
                else:
                    answers.append("accepted")
        return measure(*args, **kwargs)

    monkeypatch.setattr(exploit_module, "measure", measure_while_others_try)
    report = harden(recipe, output_dir=out, **small)
    assert len(answers) == 2 and all("in use by another kakurega run" in answer for answer in answers), answers
    assert report["rounds"][0]["exploiter"]
    assert not list(out.rglob(".kakurega-lock"))


def test_a_training_given_a_held_lock_leaves_it_held(nim, tmp_path):
    from kakurega.agents.training import run_dir
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    out = tmp_path / "run"
    with run_dir.held(out) as lock:
        train(_config(out, total_timesteps=32, evaluation={"final_games": 0}), quiet=True, lock=lock)
        assert (out / run_dir.LOCK).is_file() and lock.held
        with pytest.raises(ConfigError, match="is not the run directory this job holds"):
            train(_config(tmp_path / "other", total_timesteps=32), quiet=True, lock=lock)
    assert not (out / run_dir.LOCK).exists() and (out / "policy.safetensors").is_file()
    with run_dir.held(tmp_path / "empty"):
        assert (tmp_path / "empty" / run_dir.LOCK).is_file()  # the lock made the directory to stand in
    assert not (tmp_path / "empty").exists()  # a directory the job created and left empty is removed


# ------------------------------------------------------------------ config.yaml
@pytest.mark.parametrize("text", ["just some text\n", "- a\n- b\n", ""])
def test_a_config_yaml_that_is_not_a_mapping_is_refused_in_words(run, text):
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    (run / "config.yaml").write_text(text)
    before = tree_digest(run)
    with pytest.raises(ConfigError, match=r"config\.yaml: expected a mapping of config keys"):
        train(_config(run, total_timesteps=96), resume=True, quiet=True)
    assert tree_digest(run) == before


# ------------------------------------------------------------------ Ctrl-C
@pytest.mark.parametrize("where", ["dump_config", "make_vec_env", "configure", "_build"])
def test_ctrl_c_before_the_model_exists_leaves_nothing_that_blocks_a_plain_rerun(nim, tmp_path, monkeypatch, where):
    import stable_baselines3.common.logger as sb3_logger

    from kakurega.agents.training import trainer
    from kakurega.agents.training.trainer import TrainingInterrupted, train

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    def stopped(config) -> str:
        with monkeypatch.context() as patch:
            patch.setattr(sb3_logger if where == "configure" else trainer, where, interrupted)
            try:
                train(config, quiet=True)
            except TrainingInterrupted as stop:
                return str(stop)
            except KeyboardInterrupt:
                # before training is set up (the manifest written, config.yaml not yet): the CLI says "interrupted
                # before training started; nothing to save"
                if where != "dump_config":
                    pytest.fail("Ctrl-C escaped train() as a bare KeyboardInterrupt")
                return "nothing of it is kept"
        pytest.fail("not interrupted")

    out = tmp_path / "run"
    config = _config(out, total_timesteps=32, evaluation={"final_games": 0})
    assert "nothing of it is kept" in stopped(config)
    assert not out.exists()  # the run made it: gone, with everything in it
    out.mkdir()
    stopped(config)
    assert out.is_dir() and not list(out.iterdir())  # a directory that was there: kept, as empty as it was
    train(config, quiet=True)  # the plain rerun
    assert (out / "policy.safetensors").is_file()


def test_resume_of_a_run_stopped_before_its_first_checkpoint_suggests_overwrite(nim, tmp_path):
    from kakurega.agents.training import run_dir
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    out = tmp_path / "run"
    out.mkdir()
    run_dir.write_manifest(out)  # a half-made run (as a kill -9 leaves it)
    (out / "logs" / "part0").mkdir(parents=True)
    with pytest.raises(ConfigError, match="stopped before its first checkpoint.*--overwrite"):
        train(_config(out), resume=True, quiet=True)
    train(_config(out, total_timesteps=32, evaluation={"final_games": 0}), overwrite=True, quiet=True)


def _stop_at(monkeypatch, step: int):
    """Ctrl-C (a KeyboardInterrupt) at the first env step whose count reaches ``step``."""
    from stable_baselines3.common.callbacks import BaseCallback

    from kakurega.agents.training import trainer

    class Stop(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps >= step:
                raise KeyboardInterrupt
            return True

    callbacks = trainer._callbacks
    monkeypatch.setattr(trainer, "_callbacks", lambda *args, **kwargs: callbacks(*args, **kwargs) + [Stop()])


def _progress_column(out: Path, key: str) -> list[str]:
    """``key``'s value in every progress.csv row of the run, part after part ("" where a row has none)."""
    return [row.get(key) or "" for path in sorted((out / "logs").glob("part*/progress.csv"))
            for row in csv.DictReader(path.open()) if row.get("time/total_timesteps")]


def _progress_steps(out: Path) -> list[int]:
    return [int(row["time/total_timesteps"]) for path in sorted((out / "logs").glob("part*/progress.csv"))
            for row in csv.DictReader(path.open()) if row.get("time/total_timesteps")]


def test_a_resume_after_ctrl_c_within_a_rollout_trains_to_the_steps_of_a_run_never_stopped(nim, tmp_path, monkeypatch):
    from kakurega.agents.training.trainer import TrainingInterrupted, train

    settings = dict(total_timesteps=128, evaluation={"every": 32, "games": 2, "final_games": 0})
    whole = tmp_path / "whole"
    train(_config(whole, **settings), quiet=True)
    out = tmp_path / "stopped"
    with monkeypatch.context() as patch:
        _stop_at(patch, 70)  # rollouts start at 0, 32, 64, 96: step 70 is within the third
        with pytest.raises(TrainingInterrupted, match=r"at step 70: checkpoint .*step_64 saved \(where the unfinished"):
            train(_config(out, **settings), quiet=True)
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["step_32", "step_64"]
    result = train(_config(out, **settings), resume=True, quiet=True)
    assert result.timesteps == 128 == json.loads((out / "summary.json").read_text())["timesteps"]
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == sorted(
        p.name for p in (whole / "checkpoints").iterdir())
    assert _progress_steps(out) == _progress_steps(whole)
    # the update before the checkpoint is logged with the next row, as in the run never stopped (its records were
    # held by the logger at the Ctrl-C: the checkpoint keeps them)
    assert _progress_column(out, "train/n_updates") == _progress_column(whole, "train/n_updates")
    assert _progress_column(out, "train/loss")[:3] == _progress_column(whole, "train/loss")[:3]
    assert _progress_column(whole, "train/loss")[2] != ""
    eval_steps = [row["timesteps"] for row in csv.DictReader((out / "eval.csv").open())]
    assert eval_steps == [row["timesteps"] for row in csv.DictReader((whole / "eval.csv").open())]


def test_ctrl_c_within_the_first_rollout_keeps_nothing_and_a_plain_rerun_starts_over(nim, tmp_path, monkeypatch):
    from kakurega.agents.training.trainer import TrainingInterrupted, train

    out = tmp_path / "run"
    with monkeypatch.context() as patch:
        _stop_at(patch, 10)
        with pytest.raises(TrainingInterrupted, match="before the first training step ended; nothing of it is kept"):
            train(_config(out), quiet=True)
    assert not out.exists()
    train(_config(out, total_timesteps=32, evaluation={"final_games": 0}), quiet=True)


def _weights(checkpoint: Path) -> dict:
    from safetensors.numpy import load_file

    return load_file(checkpoint / "weights.safetensors")


def test_ctrl_c_during_an_update_saves_the_rollouts_start_and_the_resume_loses_no_update(nim, tmp_path, monkeypatch):
    """An update cut short is undone: the checkpoint holds the weights, optimizer and update count the update started
    from (those of the rollout's start), so the resumed run updates as often as a run never stopped."""
    import torch

    from kakurega.agents.training.trainer import TrainingInterrupted, train

    settings = dict(total_timesteps=128, evaluation={"every": 0, "games": 2, "final_games": 0})
    whole = tmp_path / "whole"
    train(_config(whole, **settings), quiet=True)
    out = tmp_path / "stopped"
    step, calls = torch.optim.Adam.step, []

    def stop_in_the_third_update(self, *args, **kwargs):  # two minibatches per update: the 5th is the third's first
        result = step(self, *args, **kwargs)
        calls.append(1)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return result

    with monkeypatch.context() as patch:
        patch.setattr(torch.optim.Adam, "step", stop_in_the_third_update)
        with pytest.raises(TrainingInterrupted, match=r"at step 96: checkpoint .*step_64 saved \(where the unfinished"):
            train(_config(out, **settings), quiet=True)
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["step_32", "step_64"]
    state = json.loads((out / "checkpoints" / "step_64" / "state.json").read_text())
    assert state["n_updates"] == json.loads((whole / "checkpoints" / "step_64" / "state.json").read_text())["n_updates"]
    kept, before = _weights(out / "checkpoints" / "step_64"), _weights(whole / "checkpoints" / "step_64")
    assert kept.keys() == before.keys() and all((kept[k] == before[k]).all() for k in kept)
    train(_config(out, **settings), resume=True, quiet=True)
    final = json.loads((out / "checkpoints" / "step_128" / "state.json").read_text())
    assert final["n_updates"] == json.loads((whole / "checkpoints" / "step_128" / "state.json").read_text())["n_updates"]
    assert _progress_steps(out) == _progress_steps(whole)


def test_dqn_checkpoints_hold_whole_steps(nim, tmp_path):
    """A DQN checkpoint is taken between collections: every step before it is stored, counted and its games ended."""
    from kakurega.agents.training.trainer import train

    out = tmp_path / "dqn"
    train(tiny_config(nim.NAME, "dqn", out, total_timesteps=200, checkpoint={"every": 40, "keep": 10, "save_replay_buffer": True},
                      dqn={"train_freq": 1}), quiet=True)
    states = [json.loads(p.read_text()) for p in sorted((out / "checkpoints").glob("step_*/state.json"))]
    assert len(states) >= 5
    for state in states:
        steps = state["num_timesteps"]
        assert state["n_calls"] * 2 == steps, state  # two envs: a whole step is one call
        assert state["replay"]["pos"] * 2 == steps, state
        assert state["episode_num"] == len(state["ep_info_buffer"]), state  # (fewer than 100 games)


def test_a_dqn_run_continued_with_a_larger_budget_keeps_its_epsilon(nim, tmp_path):
    """SB3 stretches the epsilon schedule over the new total; a continued run keeps the epsilon it had reached."""
    from kakurega.agents.training.trainer import train

    out = tmp_path / "dqn"
    config = tiny_config(nim.NAME, "dqn", out, total_timesteps=200, checkpoint={"every": 100, "keep": 20},
                         dqn={"exploration_fraction": 0.5, "exploration_final_eps": 0.05})
    train(config, quiet=True)
    train({**config, "total_timesteps": 2000}, resume=True, quiet=True)
    rates = {int(p.parent.name[5:]): json.loads(p.read_text())["exploration_rate"]
             for p in (out / "checkpoints").glob("step_*/state.json")}
    assert max(rates) == 2000 and len(rates) >= 10
    assert all(rate == pytest.approx(0.05) for step, rate in rates.items() if step > 200), rates


def test_a_ctrl_c_keeps_the_snapshot_pool_of_the_step_it_goes_back_to(nim, tmp_path, monkeypatch):
    """Snapshots taken within the unfinished rollout rotate the pool; the files of the rollout's start (where the
    Ctrl-C checkpoint is) stay until no return point needs them, so the resumed run draws from the same pool as a
    run never stopped, and the envs are handed the pool only, not every file kept on disk."""
    from kakurega.agents.training.run_dir import snapshot_pool
    from kakurega.agents.training.trainer import TrainingInterrupted, train
    from kakurega.agents.training.view import SingleAgentView

    settings = dict(total_timesteps=128, evaluation={"every": 0, "games": 2, "final_games": 0},
                    league={"snapshot_every": 8, "max_snapshots": 2, "sync_every": 32},
                    opponents=[{"agent": "self", "weight": 1.0}, {"agent": "snapshots", "weight": 1.0}])
    handed = []
    set_league = SingleAgentView.set_league
    monkeypatch.setattr(SingleAgentView, "set_league",
                        lambda self, current=None, snapshots=None: (handed.append(snapshots),
                                                                    set_league(self, current, snapshots))[1])
    whole = tmp_path / "whole"
    train(_config(whole, **settings), quiet=True)
    assert max(len(pool) for pool in handed if pool is not None) == 2
    out = tmp_path / "stopped"
    with monkeypatch.context() as patch:
        _stop_at(patch, 90)  # snapshots at 72, 80 and 88 were taken in the rollout that started at 64
        with pytest.raises(TrainingInterrupted, match=r"checkpoint .*step_64 saved"):
            train(_config(out, **settings), quiet=True)
    names = [Path(p).name for p in snapshot_pool(out / "league", 64, 2)]
    assert names == ["snapshot_56.safetensors", "snapshot_64.safetensors"]  # the pool a run never stopped had at 64
    handed.clear()
    train(_config(out, **settings), resume=True, quiet=True)
    assert [Path(p).name for p in handed[0]] == names  # the resumed run starts from the pool of its step
    assert [Path(p).name for p in snapshot_pool(out / "league", 128, 2)] == \
        [Path(p).name for p in snapshot_pool(whole / "league", 128, 2)]
    assert len(list((out / "league").iterdir())) <= 6  # at most three pools' files


def test_a_dqn_ctrl_c_during_a_steps_callback_leaves_the_step_out_whole(nim, tmp_path, monkeypatch):
    """SB3 counts a step's transitions before its callbacks and stores them after: a Ctrl-C in a callback (a league
    snapshot being written) checkpoints the step before it, every counter whole, instead of a half-done step.
    (An evaluation is taken at a collection's start, a whole step: tests/training/test_evaluation_rows.py.)"""
    from kakurega.agents.training import export, trainer

    real = export.save_policy

    def interrupted(path, *args, **kwargs):
        if "snapshot_" in str(path):
            raise KeyboardInterrupt
        return real(path, *args, **kwargs)

    monkeypatch.setattr(export, "save_policy", interrupted)
    out = tmp_path / "dqn"
    config = tiny_config(nim.NAME, "dqn", out, total_timesteps=400, league={"snapshot_every": 100},
                         checkpoint={"every": 0, "keep": 2, "save_replay_buffer": True}, dqn={"train_freq": 1})
    with pytest.raises(trainer.TrainingInterrupted, match=r"at step 100: checkpoint .*step_98 saved \(where the "
                                                          r"unfinished collection started: its 2 steps are collected "
                                                          r"again\)"):
        trainer.train(config, quiet=True)
    state = json.loads((out / "checkpoints" / "step_98" / "state.json").read_text())
    assert state["num_timesteps"] == 98 == state["n_calls"] * 2 == state["replay"]["pos"] * 2
    assert state["episode_num"] == len(state["ep_info_buffer"])


def test_a_ppo_ctrl_c_while_the_checkpoint_of_a_rollouts_start_is_written_keeps_the_finished_rollout(nim, tmp_path,
                                                                                                monkeypatch):
    """The checkpoint at a rollout's start follows a whole rollout and its update: a Ctrl-C while it is written
    saves that step, not the start of the rollout before (which would collect a finished rollout again)."""
    from kakurega.agents.training import checkpoint as checkpoints
    from kakurega.agents.training.trainer import TrainingInterrupted, train

    real, stopped = checkpoints.save, []

    def save(model, *args, **kwargs):
        if model.num_timesteps == 64 and not stopped:
            stopped.append(64)
            raise KeyboardInterrupt
        return real(model, *args, **kwargs)

    monkeypatch.setattr(checkpoints, "save", save)
    out = tmp_path / "run"
    with pytest.raises(TrainingInterrupted, match=r"at step 64: checkpoint .*step_64 saved; continue"):
        train(_config(out, total_timesteps=128, evaluation={"every": 0, "games": 2, "final_games": 0}), quiet=True)
    assert stopped and sorted(p.name for p in (out / "checkpoints").iterdir()) == ["step_32", "step_64"]


def test_a_dqn_resume_after_ctrl_c_within_a_collection_stays_on_the_steps_of_a_run_never_stopped(nim, tmp_path,
                                                                                             monkeypatch):
    """DQN collects ``train_freq`` steps per env between its gradient steps: a Ctrl-C within a collection saves the
    checkpoint of the collection's start, so the resumed run's collections, checkpoints and end fall on the steps
    of a run never stopped (it once saved the step it stopped at, and every later checkpoint moved by the offset)."""
    from kakurega.agents.training.trainer import TrainingInterrupted, train

    def config(out):  # (the target network is updated every 34 calls: at call 34, within the dropped collection)
        return tiny_config(nim.NAME, "dqn", out, total_timesteps=200, evaluation={"every": 0, "games": 2,
                                                                                  "final_games": 0},
                           checkpoint={"every": 50, "keep": 10, "save_replay_buffer": True},
                           dqn={"train_freq": 8, "learning_starts": 16, "target_update_interval": 68, "tau": 0.5})
    whole = tmp_path / "whole"
    train(config(whole), quiet=True)
    out = tmp_path / "stopped"
    with monkeypatch.context() as patch:
        _stop_at(patch, 70)  # two envs, 8 steps each: collections start at 0, 16, ..., 64: step 70 is within one
        with pytest.raises(TrainingInterrupted, match=r"at step 70: checkpoint .*step_64 saved \(where the unfinished "
                                                      r"collection started: its 6 steps are collected again\)"):
            train(config(out), quiet=True)
    state = json.loads((out / "checkpoints" / "step_64" / "state.json").read_text())
    assert state["num_timesteps"] == 64 == state["n_calls"] * 2 == state["replay"]["pos"] * 2
    assert state["episode_num"] == len(state["ep_info_buffer"])
    # the checkpoint is the one the run never stopped saved at 64: the target network too, updated (a soft update)
    # at call 34, within the dropped steps, and put back
    saved, kept = (load_file(run / "checkpoints" / "step_64" / "weights.safetensors") for run in (out, whole))
    assert any(name.startswith("q_net_target") for name in saved) and saved.keys() == kept.keys()
    assert all(np.array_equal(saved[name], kept[name]) for name in saved)
    result = train(config(out), resume=True, quiet=True)
    assert result.timesteps == json.loads((whole / "summary.json").read_text())["timesteps"] == 208
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == sorted(
        p.name for p in (whole / "checkpoints").iterdir())




@pytest.mark.parametrize("algorithm,stops", [("ppo", (70, 90)), ("dqn", (65, 71))])
def test_two_ctrl_c_within_one_rollout_save_the_same_checkpoint(nim, tmp_path, monkeypatch, algorithm, stops):
    """Stopped at two moments of one rollout (PPO) or collection (DQN), a run saves the checkpoint of its start, the
    global generators' states included: the dropped steps drew from them (PPO's sampling from torch's, MaskedDQN's
    exploration from numpy's), and a resume from a checkpoint that kept those draws trained another policy. Both
    equal the checkpoint the run never stopped saved at that step."""
    from kakurega.agents.training.trainer import TrainingInterrupted, train

    settings = dict(total_timesteps=96)
    if algorithm == "dqn":
        settings.update(dqn={"learning_starts": 16, "buffer_size": 1000, "batch_size": 16,
                                              "train_freq": 4, "target_update_interval": 64})
    whole = tmp_path / "whole"
    config = (lambda out: _config(out, **settings)) if algorithm == "ppo" else (
        lambda out: {**_config(out, **settings), "algorithm": "dqn"})
    train(config(whole), quiet=True)
    saved = []
    for stop in stops:
        out = tmp_path / f"stopped_{stop}"
        with monkeypatch.context() as patch:
            _stop_at(patch, stop)
            with pytest.raises(TrainingInterrupted, match=r"checkpoint .*step_64 saved \(where the unfinished"):
                train(config(out), quiet=True)
        saved.append(out / "checkpoints" / "step_64")
    saved.append(whole / "checkpoints" / "step_64")

    def contents(checkpoint: Path) -> dict:
        state = json.loads((checkpoint / "state.json").read_text())
        state.pop("elapsed")  # the run's clock: when, not what
        for episode in state["ep_info_buffer"]:  # SB3's episode statistics: "t" is the wall time at its end
            episode["__items__"] = [item for item in episode["__items__"] if item[0] != "t"]
        return {"state": state, **{name: (checkpoint / name).read_bytes()
                                   for name in ("rng.safetensors", "weights.safetensors", "optimizer.safetensors")}}

    first, second, never_stopped = (contents(path) for path in saved)
    assert first == second == never_stopped
