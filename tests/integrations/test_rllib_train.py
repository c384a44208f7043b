"""`kakurega train --backend rllib` on a local Ray: what the SB3 backend writes (league, warm start, evaluation,
checkpoints, resume, config.yaml, logs, plots), keys it cannot honour refused before any work, more env runners
than CPUs refused at once, a failed run that leaves nothing behind, and league weights reaching the env runners as
data."""

import json

import numpy as np
import pytest
import yaml

pytest.importorskip("ray.rllib")

from kakurega.agents.training.config import ConfigError  # noqa: E402
from kakurega.integrations import rllib_train  # noqa: E402

TINY = {
    "env": "animal_chain_v0", "algorithm": "ppo", "total_timesteps": 256, "n_envs": 2, "seed": 0,
    "network": {"hidden": [16]},
    "opponents": [{"agent": "random", "weight": 1.0}, {"agent": "self", "weight": 1.0},
                  {"agent": "snapshots", "weight": 1.0}],
    "league": {"sync_every": 64, "snapshot_every": 128, "max_snapshots": 2},
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
    "pretrain": {"steps": 100, "epochs": 1},
    "evaluation": {"every": 128, "games": 4, "final_games": 4, "final_opponents": ["random"]},
    "checkpoint": {"every": 128},
    "logging": {"progress_bar": False},
}


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)  # never a cluster found here
    yield
    ray.shutdown()


def _progress_rows(run) -> list[dict]:
    """The rows of SB3's progress.csv of every training segment of ``run``, in order (as the logs hold them)."""
    import csv

    rows = []
    for path in sorted(run.glob("logs/part*/progress.csv"), key=lambda p: int(p.parent.name[4:])):
        with open(path, newline="") as file:
            rows.extend(csv.DictReader(file))
    return rows


def _config_file(tmp_path, **changes):
    config = {**TINY, "output_dir": str(tmp_path / "run"), **changes}
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_keys_it_cannot_honour_are_refused_by_name_before_any_work(tmp_path):
    config = {**TINY, "output_dir": str(tmp_path / "run"), "vec_env": "subproc",
              "ppo": {**TINY["ppo"], "target_kl": 0.02}, "checkpoint": {"sb3_zip": True}}
    with pytest.raises(ConfigError) as caught:
        rllib_train.train(config, quiet=True)
    for words in ("vec_env='subproc'", "ppo.target_kl=0.02", "checkpoint.sb3_zip=True"):
        assert words in str(caught.value)
    with pytest.raises(ConfigError, match="per_seat"):
        rllib_train.train({**TINY, "output_dir": str(tmp_path / "run")}, mapping="per_seat", quiet=True)
    with pytest.raises(ConfigError, match=r"opponents \['random', 'snapshots'\] with --policy-mapping shared"):
        rllib_train.train({**TINY, "output_dir": str(tmp_path / "run")}, mapping="shared", quiet=True)
    assert not (tmp_path / "run").exists()
    rllib_train.check_supported(rllib_train.validate_config(TINY), "learner")  # the control: TINY itself is fine


def test_more_env_runners_than_cpus_fail_at_once_and_leave_no_run_behind(local_ray, tmp_path, capsys):
    import time

    from kakurega.scripts.cli import main

    path = _config_file(tmp_path)
    began = time.perf_counter()
    assert main(["train", str(path), "--backend", "rllib", "--env-runners", "3", "--quiet"]) == 2
    assert time.perf_counter() - began < 30
    assert "--env-runners 3: each env runner takes a CPU and the Ray cluster has 2" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()  # the rerun needs no --overwrite


def test_a_run_has_what_an_sb3_run_has_and_resumes(local_ray, tmp_path, capsys):
    from kakurega.agents.policy import read_policy
    from kakurega.scripts.cli import main

    path = _config_file(tmp_path)
    run = tmp_path / "run"
    assert main(["train", str(path), "--backend", "rllib", "--env-runners", "2", "--quiet"]) == 0
    assert yaml.safe_load((run / "config.yaml").read_text())["league"]["snapshot_every"] == 128
    rows = _progress_rows(run)
    assert float(rows[0]["pretrain/samples"]) >= 100  # the imitation warm start ran first
    assert [int(r["time/total_timesteps"]) for r in rows if r.get("time/total_timesteps")] == [128, 256]
    assert list((run / "logs" / "part0").glob("events.out.tfevents.*"))
    assert [line.split(",")[0] for line in (run / "eval.csv").read_text().splitlines()[1:]] == ["128", "256"]
    assert sorted(p.name for p in (run / "league").iterdir()) == ["snapshot_128.safetensors", "snapshot_256.safetensors"]
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["step_128", "step_256"]
    assert (run / "plots" / "learning_curve.png").is_file() and (run / "evaluation" / "evaluation.txt").is_file()
    summary = json.loads((run / "summary.json").read_text())
    assert summary["backend"] == "rllib" and summary["mapping"] == "learner" and summary["timesteps"] == 256
    assert set(summary["opponent_draws"]) == {"random", "self", "snapshots"}  # every entry of the pool drawn
    assert all(count > 0 for count in summary["opponent_draws"].values())
    # the CPU time counts the env runners' processes (they play the games) beside the driver's
    assert summary["cpu_seconds_env_runners"] > 0 and summary["cpu_seconds_driver"] > 0
    assert summary["cpu_seconds_training"] == pytest.approx(
        summary["cpu_seconds_driver"] + summary["cpu_seconds_env_runners"], abs=0.11)
    meta, layers = read_policy(run / "policy.safetensors")
    assert meta["trained_with"] == "rllib" and meta["training_steps"] == 256
    # the file is the checkpoint's network: the RLlib module copied through the shadow model, nothing lost
    from safetensors.numpy import load_file

    weights = load_file(run / "checkpoints" / "step_256" / "weights.safetensors")
    assert np.array_equal(weights["action_net.weight"], layers[-1][0])
    assert np.array_equal(weights["mlp_extractor.policy_net.0.weight"], layers[0][0])

    assert main(["train", str(path), "--backend", "rllib", "--env-runners", "2", "--quiet", "--resume",
                 "--total-timesteps", "384"]) == 0
    assert "resuming" not in capsys.readouterr().err
    assert [line.split(",")[0] for line in (run / "eval.csv").read_text().splitlines()[1:]] == ["128", "256", "384"]
    assert sorted(p.name for p in (run / "logs").iterdir()) == ["part0", "part1"]
    assert json.loads((run / "summary.json").read_text())["timesteps"] == 384
    # a new run into the same directory is refused without --overwrite, as with the SB3 backend
    assert main(["train", str(path), "--backend", "rllib", "--quiet"]) == 2
    assert "already holds files" in capsys.readouterr().err


def test_resume_puts_the_checkpoint_into_the_learner_and_the_env_runners(local_ray):
    """The shadow model's weights and Adam moments go into the RLlib learner and on to every env runner."""
    import torch

    from kakurega.agents.training.config import validate_config
    from kakurega.integrations.rllib import algorithm_config

    config = validate_config({**TINY, "pretrain": {"steps": 0}})
    algo = algorithm_config(config["env"], {}, "learner", num_env_runners=1, hidden=(16,),
                            ppo=rllib_train._ppo_settings(config)).build_algo()
    try:
        algo.train()
        shadow = rllib_train.ShadowModel(algo, "learner", config)
        model = shadow.pull(64)
        first = next(iter(model.policy.optimizer.state.values()))
        assert float(first["step"]) > 0  # Adam's moments came across
        with torch.no_grad():
            for parameter in model.policy.parameters():
                parameter.add_(0.5)
        expected = [p.detach().clone() for p in model.policy.parameters()]
        shadow.push()
        assert all(torch.equal(a, b) for a, b in zip(expected, shadow.module.parameters()))
        remote = algo.env_runner_group.foreach_env_runner(
            lambda runner: runner.module["learner"].encoder.actor_encoder.net.mlp[0].weight.detach().numpy().copy(),
            local_env_runner=False)
        assert np.allclose(remote[0], expected[0].numpy())
    finally:
        algo.stop()


def test_league_snapshots_reach_the_env_runners_as_data(local_ray, tmp_path):
    """A snapshot pushed as data is drawn by a runner's pool after its file is gone (no node reads the driver's
    files); before the push only the other entries are drawn (the control)."""
    from kakurega.agents.training.config import validate_config
    from kakurega.integrations.rllib import algorithm_config
    from kakurega.integrations.rllib_league import League

    config = validate_config({**TINY, "pretrain": {"steps": 0}, "output_dir": str(tmp_path),
                              "opponents": [{"agent": "random", "weight": 1.0}, {"agent": "snapshots", "weight": 9.0}],
                              "league": {"snapshot_every": 64}})
    algo = algorithm_config(config["env"], {}, "learner", config["opponents"], num_env_runners=1, hidden=(16,),
                            ppo=rllib_train._ppo_settings(config)).build_algo()

    def counts():
        return algo.env_runner_group.foreach_env_runner(
            lambda runner: [dict(env.unwrapped.pool.draw_counts) for env in runner.env.envs], local_env_runner=False)[0][0]

    try:
        league = League(config, tmp_path, algo)
        shadow = rllib_train.ShadowModel(algo, "learner", config)
        algo.train()
        assert counts()["snapshots"] == 0 and counts()["random"] > 0
        league.after_iteration(0, 64, shadow.pull(64))
        (tmp_path / "league" / "snapshot_64.safetensors").unlink()
        before = counts()["snapshots"]
        algo.train()
        assert counts()["snapshots"] > before
    finally:
        algo.stop()


def test_the_env_pre_check_is_off_and_an_illegal_move_still_ends_the_game_with_a_warning():
    from pettingzoo.utils.env_logger import EnvLogger

    from kakurega.integrations.rllib import KakuregaMultiAgentEnv, algorithm_config

    assert algorithm_config("animal_chain_v0", num_env_runners=0).disable_env_checking
    env = KakuregaMultiAgentEnv({"env": "animal_chain_v0", "mapping": "shared", "seed": 0})
    obs, _ = env.reset(seed=0)
    (agent, observation), = obs.items()
    EnvLogger.flush()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, rewards, terminated, _, _ = env.step({agent: illegal})
    assert terminated["__all__"] and rewards[agent] == -1
    assert any("Illegal move made" in str(message) for message in EnvLogger.mqueue)


def test_without_an_address_a_run_starts_a_ray_of_its_own():
    """The cluster this machine last started (RAY_TMPDIR/ray/ray_current_cluster, written by `ray start` or any
    test's cluster) is not joined without --address: here it names an address nobody listens on, which
    ``ray.init()`` alone would keep trying to reach."""
    import os
    import shutil
    import socket
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    temp = Path(tempfile.mkdtemp(prefix="kr", dir="/tmp"))  # short: Ray's socket paths must fit 107 bytes
    try:
        (temp / "ray").mkdir()
        (temp / "ray" / "ray_current_cluster").write_text(f"127.0.0.1:{dead}")
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        env.update(RAY_TMPDIR=str(temp), RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
        code = ("import ray; from kakurega.integrations.rllib_train import connect; "
                "print('started', connect(None, 1, True), ray.cluster_resources().get('CPU')); ray.shutdown()")
        try:
            done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=90)
        except subprocess.TimeoutExpired:
            pytest.fail("connect() without an address waited for the cluster named in ray_current_cluster")
        assert done.returncode == 0 and "started True" in done.stdout, done.stderr[-2000:]
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def test_the_logs_count_every_finished_game_once_with_its_outcome(local_ray, tmp_path, monkeypatch):
    """rollout/score and the rates are those of the last 100 games the env runners finished, each taken once (as
    many as RLlib counted), and on this zero-sum 2-player game the score is RLlib's own mean return mapped to
    [0, 1] (score = (return + 1) / 2) while every game so far is in both windows."""

    taken, counted = [], []
    take, record = rllib_train._take_outcomes, rllib_train._record_outcomes

    def spy_take(algo):
        games = take(algo)
        taken.append(games)
        return games

    def spy_record(logger, outcomes):
        counted.append(list(outcomes))
        record(logger, outcomes)

    monkeypatch.setattr(rllib_train, "_take_outcomes", spy_take)
    monkeypatch.setattr(rllib_train, "_record_outcomes", spy_record)
    config = {**TINY, "output_dir": str(tmp_path / "run"), "total_timesteps": 384, "n_envs": 2,
              "opponents": [{"agent": "random", "weight": 1.0}], "pretrain": {"steps": 0},
              "evaluation": {"every": 0, "final_games": 0}, "checkpoint": {"every": 0}}
    rllib_train.train(config, num_env_runners=1, quiet=True)
    rows = [r for r in _progress_rows(tmp_path / "run") if r.get("rollout/score")]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert len(rows) == len(taken) == 3 and all(taken)
    everything = [game for games in taken for game in games]
    for row, window in zip(rows, counted):
        n = len(window)
        assert window == everything[:sum(map(len, taken[:counted.index(window) + 1]))][-100:]
        assert float(row["rollout/score"]) == pytest.approx(sum(share for _, share in window) / n)
        assert float(row["rollout/win_rate"]) == pytest.approx(sum(o == "win" for o, _ in window) / n)
        assert float(row["rollout/draw_rate"]) == pytest.approx(sum(o == "draw" for o, _ in window) / n)
        assert float(row["rollout/shared_win_rate"]) == 0.0  # two seats: a tie at the top is a draw
    # as many games as RLlib counted, iteration by iteration
    assert [entry["episodes"] for entry in summary["history"]] == list(np.cumsum([len(games) for games in taken]))
    first = rows[0]
    assert float(first["rollout/score"]) == pytest.approx((float(first["rollout/ep_rew_mean"]) + 1) / 2)


def test_a_failed_connection_names_the_servers_reason():
    """Ray Client reports a server-side failure as 'Initialization failure from server:' and the server's traceback
    after it: the error keeps the traceback's last line, the cause."""
    error = ConnectionError("Initialization failure from server:\nTraceback (most recent call last):\n  File \"x\"\n"
                            "RuntimeError: the node's Python has no module kakurega\n")
    assert rllib_train._reason(error) == ("Initialization failure from server: ... RuntimeError: the node's Python has "
                                          "no module kakurega")
    assert rllib_train._reason(ConnectionError("refused")) == "refused"


def test_with_every_seat_learning_the_logs_are_player_0s_figures_once_per_game(local_ray, tmp_path, monkeypatch):
    """--policy-mapping shared: every seat learns, so every seat's outcome together made rollout/score 1/n and
    RLlib's episode return (all seats summed) 0 at every iteration of a zero-sum game. Now both are player_0's:
    one outcome per game (as many as RLlib counted), its score, and its mean return."""

    taken = []
    take = rllib_train._take_outcomes

    def spy_take(algo):
        games = take(algo)
        taken.append(games)
        return games

    monkeypatch.setattr(rllib_train, "_take_outcomes", spy_take)
    config = {**TINY, "env": "kakurenbo_v1", "env_kwargs": {"num_players": 3}, "output_dir": str(tmp_path / "run"),
              "total_timesteps": 300, "opponents": [{"agent": "self", "weight": 1.0}], "pretrain": {"steps": 0},
              "ppo": {"n_steps": 150, "batch_size": 64, "n_epochs": 1},
              "evaluation": {"every": 0, "final_games": 0}, "checkpoint": {"every": 0}}
    rllib_train.train(config, num_env_runners=0, mapping="shared", quiet=True)
    rows = [r for r in _progress_rows(tmp_path / "run") if r.get("rollout/score")]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert [entry["episodes"] for entry in summary["history"]] == list(np.cumsum([len(games) for games in taken]))
    first, games = rows[0], taken[0]
    assert float(first["rollout/score"]) == pytest.approx(sum(share for _, share in games) / len(games))
    # 3 players, zero-sum: player_0's return is 1.5 x its score - 0.5 (a win 1, a loss -1/2, a win shared by two
    # 1/4); the summed return would be 0 and the score of every seat's outcomes 1/3
    assert float(first["rollout/ep_rew_mean"]) == pytest.approx(1.5 * float(first["rollout/score"]) - 0.5)
    assert float(first["rollout/ep_rew_mean"]) != 0.0 and float(first["rollout/score"]) != pytest.approx(1 / 3)
