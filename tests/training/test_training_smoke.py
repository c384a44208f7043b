"""Tiny-budget training of MaskablePPO and MaskedDQN on every registered env, end to end.

Each run trains a few hundred steps with a 16-unit network and a league
(random + self + snapshots), writes its files, and the policy it exports then
plays a thousand learner steps without ever choosing an illegal action.
"""

import os
import subprocess
import sys

import numpy as np
import pytest
import yaml
from training_helpers import REGISTERED, tiny_config

import kakurega.agents
from kakurega.agents.training.trainer import train
from kakurega.agents.training.view import SingleAgentView


def _play_policy(env_name, env_kwargs, agent, steps, seed=0):
    """Learner steps of ``agent`` in the view; the view raises on any illegal action."""
    view = SingleAgentView(env_name, env_kwargs, ["random"], illegal_action="raise")
    obs, _ = view.reset(seed=seed)
    for _ in range(steps):
        action = agent.act({"observation": obs, "action_mask": view.action_masks()})
        obs, _, terminated, truncated, _ = view.step(action)
        if terminated or truncated:
            obs, _ = view.reset()


@pytest.mark.parametrize("algorithm", ["ppo", "dqn"])
@pytest.mark.parametrize("env_name", REGISTERED)
def test_tiny_training_run(env_name, algorithm, tmp_path):
    config = tiny_config(env_name, algorithm, tmp_path / "run")
    result = train(config, quiet=True)
    out = tmp_path / "run"
    assert result.timesteps >= 256
    assert (out / "config.yaml").is_file() and (out / "policy.safetensors").is_file()
    written = yaml.safe_load((out / "config.yaml").read_text())
    assert written["ppo"]["n_steps"] == 32 and written["evaluation"]["opponent"] == "heuristic"  # resolved defaults
    assert [p.name for p in (out / "checkpoints").iterdir()] == [f"step_{result.timesteps}"]  # keep: 1
    assert not list(out.rglob("*.zip")) and not list(out.rglob("*.pkl"))  # nothing that holds pickles
    assert len(list((out / "league").glob("snapshot_*.safetensors"))) == 1  # max_snapshots bounds the pool
    agent = kakurega.agents.load(result.policy_path)
    assert agent.metadata["algorithm"] == algorithm and agent.metadata["training_steps"] == result.timesteps
    _play_policy(env_name, {}, agent, steps=1000)


def test_training_with_heuristic_opponents_and_evaluation(nim, tmp_path):
    config = tiny_config(
        nim.NAME, "ppo", tmp_path / "run", total_timesteps=512,
        opponents=[{"agent": "heuristic", "weight": 1.0}, {"agent": "snapshots", "weight": 1.0}],
        evaluation={"every": 256, "games": 10, "final_games": 10, "final_opponents": ["random", "heuristic"]},
        checkpoint={"every": 256, "keep": 2},
    )
    result = train(config, quiet=True)
    out = tmp_path / "run"
    rows = (out / "eval.csv").read_text().strip().splitlines()
    assert rows[0].startswith("timesteps,") and len(rows) == 3  # header + evaluations at 256 and 512
    assert [(r["opponent"], r["agent"]) for r in result.evaluation] == [
        ("random", "policy"), ("random", "random (baseline)"), ("heuristic", "policy"), ("heuristic", "random (baseline)"),
        ("heuristic", "heuristic (itself)"),
    ]
    assert (out / "evaluation" / "vs_heuristic_heatmap.png").is_file()
    assert (out / "plots" / "learning_curve.png").is_file()
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["step_256", "step_512"]


def test_resume_continues_from_the_last_checkpoint(nim, tmp_path):
    config = tiny_config(nim.NAME, "dqn", tmp_path / "run", checkpoint={"every": 128, "keep": 2, "save_replay_buffer": True})
    first = train(config, quiet=True)
    assert first.timesteps == 256
    longer = dict(config, total_timesteps=512)
    second = train(longer, resume=True, quiet=True)
    assert second.timesteps == 512
    assert sorted(p.name for p in (tmp_path / "run" / "logs").iterdir()) == ["part0", "part1"]
    replay = tmp_path / "run" / "checkpoints" / "step_512" / "replay.safetensors"
    assert replay.is_file() and not list((tmp_path / "run").rglob("*.pkl"))


def test_resume_refuses_a_changed_config_and_rerun_needs_overwrite(nim, tmp_path):
    from kakurega.agents.training.config import ConfigError

    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", total_timesteps=64, ppo={"n_steps": 32, "batch_size": 32, "n_epochs": 1})
    train(config, quiet=True)
    changed = dict(config, seed=5)
    with pytest.raises(ConfigError, match=r"seed: 0 -> 5") as refused:
        train(changed, resume=True, quiet=True)
    # the refusal names every key that may change (it once left out five of them, vec_env among them)
    from kakurega.agents.training.trainer import RESUMABLE_CHANGES

    assert all(key in str(refused.value) for key in RESUMABLE_CHANGES), str(refused.value)
    with pytest.raises(ConfigError, match="already holds files"):
        train(config, quiet=True)
    train(config, overwrite=True, quiet=True)
    with pytest.raises(ConfigError, match="no usable checkpoint"):
        train(tiny_config(nim.NAME, "ppo", tmp_path / "empty"), resume=True, quiet=True)


def test_a_run_made_with_the_old_default_resumes_only_with_exact_set(nim, tmp_path):
    """A run whose resolved config says exact (the default before compact) is refused with the key and the way out."""
    from kakurega.agents.training.config import ConfigError

    exact = {"hidden": [16], "masked_distribution": "exact"}
    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", total_timesteps=64, network=exact,
                         ppo={"n_steps": 32, "batch_size": 32, "n_epochs": 1}, checkpoint={"every": 32, "keep": 2})
    train(config, quiet=True)
    default = dict(config, network={"hidden": [16]}, total_timesteps=128)
    with pytest.raises(ConfigError, match=r"masked_distribution: 'exact' -> 'compact'.*set it to exact to resume"):
        train(default, resume=True, quiet=True)
    assert train(dict(config, total_timesteps=128), resume=True, quiet=True).timesteps == 128


def test_a_run_of_an_older_kakurega_resumes_where_its_config_lacks_later_keys(nim, tmp_path):
    """A run's config.yaml written before ``serves`` and ``mix`` existed resumes: a key the run lacks is what it
    did at its default; the same key set to something else is a change and is refused (the control)."""
    import yaml

    from kakurega.agents.training.config import ConfigError

    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", total_timesteps=64,
                         ppo={"n_steps": 32, "batch_size": 32, "n_epochs": 1}, checkpoint={"every": 32, "keep": 2})
    train(config, quiet=True)
    written = tmp_path / "run" / "config.yaml"
    old = yaml.safe_load(written.read_text())
    assert old["serves"] == [] and old["mix"] is False
    for key in ("serves", "mix", "seed"):  # seed 0 is the default too
        del old[key]
    written.write_text(yaml.safe_dump(old))
    with pytest.raises(ConfigError, match=r"seed: None -> 5"):
        train(dict(config, seed=5, total_timesteps=128), resume=True, quiet=True)
    assert train(dict(config, total_timesteps=128), resume=True, quiet=True).timesteps == 128


def test_subprocess_vec_env_trains(tmp_path):
    config = tiny_config("animal_chain_v0", "ppo", tmp_path / "run", vec_env="subproc", total_timesteps=128)
    result = train(config, quiet=True)
    assert result.timesteps >= 128


def test_same_seed_same_policy(nim, tmp_path):
    weights = []
    for run in ("a", "b"):
        config = tiny_config(nim.NAME, "ppo", tmp_path / run)
        result = train(config, quiet=True)
        weights.append(kakurega.agents.load(result.policy_path).layers)
    for (w1, b1), (w2, b2) in zip(*weights):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)


#: a run's first progress.csv rows: the warm start's, then PPO's (which brings columns of its own)
LOG_ROWS = """
import sys
from kakurega.agents.training.trainer import run_logger
logger = run_logger(sys.argv[1], ["csv"])
for step, keys in enumerate([
    ["pretrain/samples", "pretrain/accuracy", "pretrain/loss", "pretrain/teacher_win_rate"],
    ["time/fps", "time/iterations", "rollout/ep_rew_mean", "rollout/ep_len_mean", "rollout/score", "rollout/win_rate",
     "opponents/random", "opponents/self", "train/loss", "train/entropy_loss", "train/value_loss", "train/approx_kl"],
]):
    for key in keys:
        logger.record(key, step)
    logger.record("time/total_timesteps", step)
    logger.dump(step)
logger.close()
"""


def test_progress_csv_has_the_same_columns_in_every_process(tmp_path):
    """A seeded run's progress.csv is the same file in every process: SB3 adds a row's new columns as a set, in an
    order that followed the process's string hashes (PYTHONHASHSEED); the run's logger adds them in name order."""
    headers = set()
    for hash_seed in ("1", "2"):
        folder = tmp_path / hash_seed
        subprocess.run([sys.executable, "-c", LOG_ROWS, str(folder)], check=True,
                       env={**os.environ, "PYTHONHASHSEED": hash_seed})
        lines = (folder / "progress.csv").read_text().splitlines()
        assert len(lines) == 3
        headers.add(lines[0])
    assert len(headers) == 1, headers
    assert headers.pop().split(",")[:5] == ["pretrain/accuracy", "pretrain/loss", "pretrain/samples",
                                            "pretrain/teacher_win_rate", "time/total_timesteps"]


def test_pure_self_play_league(nim, tmp_path):
    """Only 'self' and 'snapshots' opponents: the trainer must push weights before the first reset."""
    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", learner_seat=1,
                         opponents=[{"agent": "self", "weight": 1.0}, {"agent": "snapshots", "weight": 1.0}])
    assert train(config, quiet=True).timesteps >= 256


def test_behaviour_cloning_warm_start_imitates_the_demonstrator(nim, tmp_path):
    from kakurega.agents.tournament import run_tournament

    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", total_timesteps=64, network={"hidden": [32]},
                         opponents=[{"agent": "random", "weight": 1.0}],
                         pretrain={"agent": "heuristic", "steps": 3000, "epochs": 20, "batch_size": 64},
                         ppo={"n_steps": 32, "batch_size": 32, "n_epochs": 1, "learning_rate": 1e-5})
    result = train(config, quiet=True)
    progress = (tmp_path / "run" / "logs" / "part0" / "progress.csv").read_text().splitlines()
    header, first = progress[0].split(","), progress[1].split(",")
    accuracy = float(first[header.index("pretrain/accuracy")])
    assert accuracy > 0.9
    # the imitation plays like the heuristic: it beats random as clearly as the heuristic does
    policy = f"policy:{result.policy_path}"
    table = run_tournament(nim.NAME, [policy, "random"], games=200, seed=3)
    assert table.per_agent[0]["win_rate"] > 0.75


def test_pretrain_is_refused_for_dqn(tmp_path):
    from kakurega.agents.training.config import ConfigError, validate_config

    with pytest.raises(ConfigError, match="'pretrain.steps': the behaviour-cloning warm start is for algorithm ppo only"):
        validate_config(tiny_config("kakurenbo_v0", "dqn", tmp_path, pretrain={"steps": 10}))


@pytest.mark.parametrize("algorithm", ["ppo", "dqn"])
def test_the_opponent_mix_is_logged_over_the_games_behind_the_score(nim, tmp_path, algorithm):
    """``opponents/<kind>``: the share of the opponents' seats each kind held in the last 100 training games (the
    games of ``rollout/score``), the config's kinds from the first row on (a user could not check the mix before).
    With 3 seats, 2 opponents a game: the shares follow the weights (3:1) and sum to 1."""
    import csv

    config = tiny_config(nim.NAME, algorithm, tmp_path / "run", total_timesteps=1024, env_kwargs={"num_players": 3},
                         opponents=[{"agent": "random", "weight": 3.0}, {"agent": "heuristic", "weight": 1.0},
                                    {"agent": "snapshots", "weight": 0.0}])
    train(config, quiet=True)
    with open(tmp_path / "run" / "logs" / "part0" / "progress.csv") as file:
        rows = [row for row in csv.DictReader(file) if row.get("rollout/score")]
    assert rows
    last = rows[-1]
    shares = {key: float(last[key]) for key in ("opponents/random", "opponents/heuristic", "opponents/snapshots")}
    assert sum(shares.values()) == pytest.approx(1.0) and shares["opponents/snapshots"] == 0.0
    assert 0.6 < shares["opponents/random"] < 0.9  # 0.75 expected: the weights' 3:1
