"""``kakurega harden`` and ``kakurega exploit`` keep what an interrupted run wrote, and read back their reports
only when they hold what the loop wrote (Secret Nim, tiny budgets)."""

from __future__ import annotations

import json

import pytest
import yaml

from kakurega.agents.exploit import exploit
from kakurega.agents.harden import harden
from kakurega.agents.training.config import ConfigError
from kakurega.agents.training.trainer import TrainingInterrupted
from kakurega.scripts.cli import main

TINY = {
    "algorithm": "ppo", "env": "secret_nim_v0", "total_timesteps": 64, "n_envs": 2, "network": {"hidden": [32]},
    "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 2, "learning_rate": 3e-3, "ent_coef": 0.0},
    "opponents": [{"agent": "heuristic", "weight": 3.0}, {"agent": "random", "weight": 1.0}],
    "logging": {"tensorboard": False, "progress_bar": False},
    "evaluation": {"every": 0, "final_games": 0},
}
SMALL = {"rounds": 0, "exploit_budget": 32, "games": 4, "warm_start": 0, "quiet": True}


@pytest.fixture
def recipe(tmp_path):
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(TINY))
    return path


def _interrupt_the_first_measurement(monkeypatch):
    """Ctrl-C once round 0's bot is trained, before it is measured: its run holds checkpoints, no harden.json."""
    import kakurega.agents.exploit as exploit_module

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(exploit_module, "measure", stop)


def test_an_interrupted_round_0_is_kept_without_flags_and_continued_by_resume(nim, recipe, tmp_path, monkeypatch):
    out = tmp_path / "h"
    bot = out / "round_0" / "bot"
    with monkeypatch.context() as patch:
        _interrupt_the_first_measurement(patch)
        with pytest.raises(KeyboardInterrupt):
            harden(recipe, output_dir=out, **SMALL)
    kept = sorted(p.name for p in (bot / "checkpoints").iterdir())
    logged = (bot / "logs" / "part0" / "progress.csv").read_bytes()
    assert kept and not (out / "harden.json").exists()  # the case the harden.json guard cannot see
    with pytest.raises(ConfigError, match=r"already holds a harden run .*round_0.*--resume.*--overwrite"):
        harden(recipe, output_dir=out, **SMALL)
    assert sorted(p.name for p in (bot / "checkpoints").iterdir()) == kept  # nothing was deleted
    report = harden(recipe, output_dir=out, resume=True, **SMALL)
    assert [row["round"] for row in report["rounds"]] == [0] and report["rounds"][0]["exploiter"]
    # the bot's run was resumed, not started again: finished, it trained nothing (no log part of its own) and its
    # logs and checkpoints are the ones it had
    assert sorted(p.name for p in (bot / "logs").iterdir()) == ["part0"]
    assert (bot / "logs" / "part0" / "progress.csv").read_bytes() == logged
    assert set(kept) <= {p.name for p in (bot / "checkpoints").iterdir()}


def test_overwrite_still_replaces_an_interrupted_round(nim, recipe, tmp_path, monkeypatch):
    out = tmp_path / "h"
    with monkeypatch.context() as patch:
        _interrupt_the_first_measurement(patch)
        with pytest.raises(KeyboardInterrupt):
            harden(recipe, output_dir=out, **SMALL)
    report = harden(recipe, output_dir=out, overwrite=True, **SMALL)
    assert report["rounds"][0]["exploiter"]
    assert not (out / "round_0" / "bot" / "logs" / "part1").exists()  # started again: one part of logs


def test_an_exploit_run_interrupted_inside_harden_is_resumed_not_replaced(nim, recipe, tmp_path, monkeypatch):
    import kakurega.agents.exploit as exploit_module

    out = tmp_path / "h"
    real = exploit_module.measure
    calls = []

    def measure_then_stop(*args, **kwargs):  # round 0's bot is measured; Ctrl-C at the exploiter's first stage
        calls.append(args)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(exploit_module, "measure", measure_then_stop)
        with pytest.raises(KeyboardInterrupt):
            harden(recipe, output_dir=out, **SMALL)
    responder = out / "round_0" / "exploit"
    kept = sorted(p.name for p in (responder / "checkpoints").iterdir())
    logged = (responder / "logs" / "part0" / "progress.csv").read_bytes()
    assert kept
    harden(recipe, output_dir=out, resume=True, **SMALL)
    # the responder's run went on from its checkpoint, not from scratch: its stage had finished training, so the
    # resume trained nothing (no log part of its own) and its logs and checkpoints are the ones it had
    assert sorted(p.name for p in (responder / "logs").iterdir()) == ["part0"]
    assert (responder / "logs" / "part0" / "progress.csv").read_bytes() == logged
    assert set(kept) <= {p.name for p in (responder / "checkpoints").iterdir()}


def _harden_cli(recipe, out, *flags):
    return main(["harden", str(recipe), "--rounds", "0", "--exploit-budget", "32", "--games", "4", "--warm-start", "0",
                 "--output", str(out), "--quiet", *flags])


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), TrainingInterrupted(
    "interrupted at step 64: checkpoint /x/step_64 saved; continue with --resume")])
def test_ctrl_c_during_harden_is_one_line_saying_how_to_continue(nim, recipe, tmp_path, monkeypatch, capsys, stop):
    import kakurega.agents.training.trainer as trainer

    def interrupted(*args, **kwargs):
        raise stop

    monkeypatch.setattr(trainer, "train", interrupted)
    try:
        status = _harden_cli(recipe, tmp_path / "h", "--overwrite")
    except (KeyboardInterrupt, TrainingInterrupted) as escaped:  # a traceback for the user
        pytest.fail(f"Ctrl-C escaped kakurega harden as {type(escaped).__name__}")
    assert status == 130
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(tmp_path / "h") in err and "--resume (in place of --overwrite)" in err
    if isinstance(stop, TrainingInterrupted):
        assert "interrupted at step 64" in err and "checkpoint /x/step_64 saved" in err


def test_ctrl_c_during_exploit_is_one_line_saying_how_to_continue(nim, tmp_path, monkeypatch, capsys):
    import kakurega.agents.training.trainer as trainer

    def interrupted(*args, **kwargs):
        raise TrainingInterrupted("interrupted at step 8: checkpoint /x/step_8 saved; continue with --resume")

    monkeypatch.setattr(trainer, "train", interrupted)
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(TINY))
    assert main(["exploit", "secret_nim_v0", "--target", "random", "--budget", "32", "--games", "4", "--warm-start",
                 "0", "--config", str(config), "--output", str(tmp_path / "x"), "--quiet"]) == 130
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "interrupted at step 8" in err and "--resume" in err


# ------------------------------------------------------------------ malformed reports on --resume
@pytest.fixture
def finished(nim, recipe, tmp_path):
    """A finished harden run (round 0) and its report."""
    out = tmp_path / "h"
    harden(recipe, output_dir=out, **SMALL)
    return out, json.loads((out / "harden.json").read_text())


@pytest.mark.parametrize("rounds, words", [
    ([{"round": 0, "bot": "policy:x", "exploiter": "random"}], r"rounds\[0\] lacks 'bot_vs_heuristic'"),
    ([{"round": 0, "bot": "policy:x", "bot_vs_heuristic": {"score": 0.5, "score_ci95": [0.4, 0.6]},
       "exploiter": "random"}], r"rounds\[0\] lacks 'exploiter_vs_bot'"),
    ([7], r"rounds\[0\] must be a mapping"),
    (5, r"'rounds' must be a list"),
    ([{"round": 3}], r"rounds\[0\]: expected round: 0"),
    ([{"round": 0, "bot": 5}], r"rounds\[0\]: 'bot' must be an agent spec"),
    ([{"round": 0, "bot": "policy:x", "bot_vs_heuristic": {"score": "high"}}],
     r"rounds\[0\].bot_vs_heuristic: expected a measured figure"),
    ([{"round": 0}, {"round": 1}], r"rounds\[0\] lacks 'bot' though a later round follows"),
])
def test_a_malformed_harden_json_is_refused_in_words(finished, recipe, capsys, rounds, words):
    out, report = finished
    report["rounds"] = rounds
    (out / "harden.json").write_text(json.dumps(report))
    with pytest.raises(ConfigError, match=words) as caught:
        harden(recipe, output_dir=out, resume=True, **SMALL)
    assert str(out / "harden.json") in str(caught.value)
    assert _harden_cli(recipe, out, "--resume") == 2  # on the command line: one line, no traceback
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and "harden.json" in err


def test_a_harden_json_that_is_not_a_mapping_is_refused_in_words(finished, recipe):
    out, _ = finished
    (out / "harden.json").write_text("[1, 2]")
    with pytest.raises(ConfigError, match="expected a mapping"):
        harden(recipe, output_dir=out, resume=True, **SMALL)


def test_the_finished_report_reads_back(finished, recipe):
    out, report = finished  # control: what the loop wrote passes the checks
    again = harden(recipe, output_dir=out, resume=True, **SMALL)
    assert again["rounds"] == report["rounds"]


EXPLOIT_SETTINGS = {"env": "secret_nim_v0", "env_kwargs": {}, "target": "random", "games": 4, "eval_seed": 12345,
                    "seed": 0, "warm_start": 0, "imitate": "random"}
STAGE = {"agent": "policy:x", "budget": 16, "learner_steps": 16, "cpu_seconds_training": 0.1, "games": 4,
         "score": 0.5, "score_ci95": [0.2, 0.8], "wins": 2, "shared_wins": 0, "draws": 0, "losses": 2,
         "mean_reward": 0.0}


@pytest.mark.parametrize("learned, words", [
    ([{"budget": 16}], r"learned\[0\] lacks 'agent'"),
    ([{k: v for k, v in STAGE.items() if k != "cpu_seconds_training"}], r"learned\[0\] lacks 'cpu_seconds_training'"),
    ([3], r"learned\[0\] must be a mapping"),
    ("many", r"'learned' must be a list"),
    ([{**STAGE, "budget": "16"}], r"learned\[0\].budget must be a whole number"),
    ([{**STAGE, "score_ci95": [0.2]}], r"learned\[0\].score_ci95 must be \[low, high\]"),
])
def test_a_malformed_exploit_json_is_refused_in_words(nim, tmp_path, capsys, learned, words):
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(TINY))
    out = tmp_path / "x"
    out.mkdir()
    (out / "exploit.json").write_text(json.dumps({**EXPLOIT_SETTINGS, "learned": learned}))
    with pytest.raises(ConfigError, match=words) as caught:
        exploit("secret_nim_v0", "random", budget=32, games=4, warm_start=0, config_path=config, output_dir=out,
                resume=True, quiet=True)
    assert str(out / "exploit.json") in str(caught.value)
    assert main(["exploit", "secret_nim_v0", "--target", "random", "--budget", "32", "--games", "4", "--warm-start",
                 "0", "--config", str(config), "--output", str(out), "--quiet", "--resume"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and "exploit.json" in err


def test_an_exploit_json_that_is_not_a_mapping_is_refused_in_words(nim, tmp_path):
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(TINY))
    out = tmp_path / "x"
    out.mkdir()
    (out / "exploit.json").write_text("7")
    with pytest.raises(ConfigError, match="expected a mapping"):
        exploit("secret_nim_v0", "random", budget=32, games=4, warm_start=0, config_path=config, output_dir=out,
                resume=True, quiet=True)
