"""What a resumed run continues and what it does not: new deals, one window of training games, a refilled DQN
replay buffer, and every periodic evaluation written at its own step."""

from __future__ import annotations

import copy
import csv

import pytest
from training_helpers import tiny_config

from kakurega.agents.training import masked_dqn
from kakurega.agents.training import view as view_module
from kakurega.agents.training.trainer import train


def _rows(path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture
def deals(monkeypatch):
    """The seed of every game the training views deal, in order (the seed decides the whole deal)."""
    dealt = []
    original = view_module.SingleAgentView._deal

    def recording(self):
        dealt.append(int(copy.deepcopy(self.np_random).integers(2**31 - 1)))  # the draw _deal makes first
        original(self)

    monkeypatch.setattr(view_module.SingleAgentView, "_deal", recording)
    return dealt


def test_a_resumed_run_deals_new_games(nim, deals, tmp_path):
    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", total_timesteps=128, checkpoint={"every": 64, "keep": 2})
    train(config, quiet=True)
    first = list(deals)
    deals.clear()
    train(tiny_config(nim.NAME, "ppo", tmp_path / "again", total_timesteps=128), quiet=True)
    # the control: the same seed deals the same games, so a repeated seed is a repeated game
    assert deals == first and len(first) > 40
    deals.clear()
    train(dict(config, total_timesteps=256), resume=True, quiet=True)
    resumed = list(deals)
    assert len(resumed) > 40
    assert not set(resumed) & set(first), f"{len(set(resumed) & set(first))} of {len(resumed)} deals repeated"
    # a second resume (from step 256) deals games of its own too
    deals.clear()
    train(dict(config, total_timesteps=320), resume=True, quiet=True)
    assert deals and not set(deals) & (set(first) | set(resumed))


def test_resume_env_seed_depends_on_the_run_and_the_step():
    from kakurega.agents.training.trainer import resume_env_seed

    seeds = {resume_env_seed(seed, step) for seed in range(3) for step in (64, 128, 10**6)}
    assert len(seeds) == 9 and all(0 <= s < 2**31 for s in seeds)
    assert resume_env_seed(2**32 - 1, 2**53) == resume_env_seed(2**32 - 1, 2**53)


def test_rollout_score_and_mean_reward_describe_the_same_games_after_a_resume(nim, tmp_path):
    """In a 2-player zero-sum game of rewards +1/-1 (0 for a cut-off draw), score = (mean reward + 1) / 2."""
    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", total_timesteps=256, env_kwargs={"num_players": 2},
                         checkpoint={"every": 128, "keep": 2})
    train(config, quiet=True)
    train(dict(config, total_timesteps=512), resume=True, quiet=True)
    for part in ("part0", "part1"):  # part0, uninterrupted, is the control
        rows = [r for r in _rows(tmp_path / "run" / "logs" / part / "progress.csv") if r.get("rollout/score")]
        assert len(rows) >= 3
        for row in rows:
            score, mean = float(row["rollout/score"]), float(row["rollout/ep_rew_mean"])
            assert score == pytest.approx((mean + 1) / 2, abs=1e-6), (part, row["time/total_timesteps"], score, mean)
            assert 0 <= float(row["rollout/win_rate"]) <= score <= 1


@pytest.fixture
def updates(monkeypatch):
    """``(num_timesteps, transitions in the replay buffer)`` at every MaskedDQN.train call that took gradient steps."""
    seen = []
    original = masked_dqn.MaskedDQN.train

    def spying(self, gradient_steps, batch_size=100):
        before = self._n_updates
        held = self.replay_buffer.size() * self.replay_buffer.n_envs
        original(self, gradient_steps, batch_size)
        if self._n_updates > before:
            seen.append((self.num_timesteps, held))

    monkeypatch.setattr(masked_dqn.MaskedDQN, "train", spying)
    return seen


@pytest.mark.parametrize("save_replay", [False, True])
def test_a_resumed_dqn_run_learns_from_a_refilled_buffer(nim, updates, tmp_path, save_replay):
    config = tiny_config(nim.NAME, "dqn", tmp_path / "run", total_timesteps=128,
                         dqn={"learning_starts": 64, "buffer_size": 1000, "batch_size": 16, "train_freq": 4},
                         checkpoint={"every": 0, "keep": 1, "save_replay_buffer": save_replay})
    train(config, quiet=True)
    fresh = list(updates)
    assert fresh and fresh[0][0] > 64 and fresh[0][1] > 64  # SB3's learning_starts in a fresh run: unchanged
    updates.clear()
    train(dict(config, total_timesteps=256), resume=True, quiet=True)
    assert updates, "the resumed run never learned"
    steps, held = updates[0]
    if save_replay:  # the control: the restored buffer (128 transitions) is enough at once
        assert steps <= 128 + 8 and held > 128
    else:  # the buffer starts empty: no gradient step before it holds learning_starts transitions again
        assert held > 64 and steps > 128 + 64
        assert all(h > 64 for _, h in updates)


def _event_steps(directory, tag: str) -> list[int]:
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    steps = []
    for path in sorted(directory.glob("events.out.tfevents.*")):
        for event in EventFileLoader(str(path)).Load():
            if event.HasField("summary") and any(v.tag == tag for v in event.summary.value):
                steps.append(event.step)
    return steps


@pytest.mark.parametrize("algorithm, every, expected", [("dqn", 64, [64, 128, 192, 256]), ("ppo", 96, [128, 192])])
def test_every_periodic_evaluation_is_logged_at_its_step(nim, tmp_path, algorithm, every, expected):
    """DQN writes its logs every 100 games, PPO after each rollout (64 steps here): each evaluation is written at
    once, at its step, in a row of its own. An evaluation is taken once the steps before it are learned from: at
    the first rollout start after each multiple of ``every`` (PPO's 96 at 128), and after the last update (256)."""
    config = tiny_config(nim.NAME, algorithm, tmp_path / "run", total_timesteps=256,
                         evaluation={"every": every, "games": 2, "final_games": 0},
                         logging={"tensorboard": True, "progress_bar": False})
    train(config, quiet=True)
    evaluations = _rows(tmp_path / "run" / "eval.csv")
    assert [int(r["timesteps"]) for r in evaluations] == expected  # the control: the evaluations ran
    part = tmp_path / "run" / "logs" / "part0"
    progress = _rows(part / "progress.csv")
    logged = [r for r in progress if r.get("eval/score")]
    assert [int(float(r["time/total_timesteps"])) for r in logged] == expected
    for row, evaluation in zip(logged, evaluations):
        assert float(row["eval/score"]) == pytest.approx(float(evaluation["score"]), abs=5e-5)
        assert float(row["eval/win_rate"]) == pytest.approx(float(evaluation["win_rate"]), abs=5e-5)
    steps = [int(float(r["time/total_timesteps"])) for r in progress if r.get("time/total_timesteps")]
    assert steps == sorted(steps)
    assert _event_steps(part, "eval/score") == expected
    # a row of its own holds the evaluation and its step only: the other records stay in their regular row
    for row in logged:
        assert {k for k, v in row.items() if v} <= {k for k in row if k.startswith("eval/")} | {"time/total_timesteps"}
    if algorithm == "ppo":  # each update's train/* (pending at the evaluation of step 128) is in the next rollout's row
        regular = [r for r in progress if r.get("rollout/ep_rew_mean")]
        assert len(regular) == 4 and all(r.get("train/loss") for r in regular[1:])


def _forge_elapsed(checkpoint, elapsed, key="elapsed") -> None:
    """Set ``key`` (``elapsed``) in ``checkpoint``'s state.json (None: remove it) and write the manifest to match
    (a checkpoint that verifies)."""
    import hashlib
    import json

    state = json.loads((checkpoint / "state.json").read_text())
    if elapsed is None:
        state.pop(key, None)
    else:
        state[key] = elapsed
    data = json.dumps(state).encode()
    (checkpoint / "state.json").write_bytes(data)
    manifest = json.loads((checkpoint / "manifest.json").read_text())
    manifest["files"]["state.json"] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (checkpoint / "manifest.json").write_text(json.dumps(manifest))


def test_a_resumed_run_counts_its_training_time_on_from_the_checkpoint(nim, tmp_path):
    """eval.csv's wall_seconds, the policy's and summary.json's training time go on across a resume: a run that
    recorded 5,000 s at its checkpoint reports more than that after it; an older checkpoint (no time recorded) is
    the control, counting from 0 as before."""
    import json

    from kakurega.agents.policy import read_policy

    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", total_timesteps=128, checkpoint={"every": 64, "keep": 1},
                         evaluation={"every": 64, "games": 2, "final_games": 0})
    train(config, quiet=True)
    checkpoint = tmp_path / "run" / "checkpoints" / "step_128"
    state = json.loads((checkpoint / "state.json").read_text())
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert 0 < state["elapsed"]["wall_seconds"] <= summary["wall_seconds_training"] + 0.05
    assert 0 < state["elapsed"]["cpu_seconds"] <= summary["cpu_seconds_training"] + 0.05
    first = _rows(tmp_path / "run" / "eval.csv")
    assert [int(r["timesteps"]) for r in first] == [64, 128]
    assert float(first[0]["wall_seconds"]) <= float(first[1]["wall_seconds"]) <= state["elapsed"]["wall_seconds"] + 0.05

    _forge_elapsed(checkpoint, {"wall_seconds": 5000.0, "cpu_seconds": 4000.0})
    result = train(dict(config, total_timesteps=256), resume=True, quiet=True)
    rows = _rows(tmp_path / "run" / "eval.csv")
    assert [int(r["timesteps"]) for r in rows] == [64, 128, 192, 256]
    assert rows[:2] == first
    assert 5000 <= float(rows[2]["wall_seconds"]) <= float(rows[3]["wall_seconds"]) < 5000 + 600
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert 5000 < summary["wall_seconds_training"] <= summary["wall_seconds_total"] and summary["cpu_seconds_training"] > 4000
    assert 5000 < float(read_policy(result.policy_path)[0]["wall_seconds_training"]) < 5600
    saved = json.loads((tmp_path / "run" / "checkpoints" / "step_256" / "state.json").read_text())["elapsed"]
    assert 5000 < saved["wall_seconds"] < 5600 and 4000 < saved["cpu_seconds"] < 4600

    # the control: a checkpoint without a recorded time (written before it was) counts from 0
    _forge_elapsed(tmp_path / "run" / "checkpoints" / "step_256", None)
    train(dict(config, total_timesteps=320), resume=True, quiet=True)
    last = _rows(tmp_path / "run" / "eval.csv")[-1]
    assert int(last["timesteps"]) == 320 and float(last["wall_seconds"]) < 600


@pytest.mark.parametrize("elapsed", [{"wall_seconds": -1.0, "cpu_seconds": 0.0}, {"wall_seconds": 1.0},
                                     {"wall_seconds": float("nan"), "cpu_seconds": 0.0}, [1, 2],
                                     {"wall_seconds": 1.0, "cpu_seconds": 1e11}, {"wall_seconds": True, "cpu_seconds": 0}])
def test_a_checkpoint_with_a_malformed_training_time_is_refused(nim, tmp_path, elapsed, capsys):
    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", total_timesteps=64, checkpoint={"every": 64, "keep": 1})
    train(config, quiet=True)
    _forge_elapsed(tmp_path / "run" / "checkpoints" / "step_64", elapsed)
    from kakurega.agents.training.checkpoint import CheckpointError, verify

    with pytest.raises(CheckpointError, match="elapsed = .*expected \\{wall_seconds, cpu_seconds\\}"):
        verify(tmp_path / "run" / "checkpoints" / "step_64")


def test_a_resume_on_another_torch_thread_count_says_so(nim, tmp_path, capsys):
    """A checkpoint records the torch threads its run computed on, and summary.json the run's; a resume on
    another count warns that the last bits will differ (a config of torch_threads 0 on another machine passes the
    config check). Controls: the same count, and an older checkpoint that recorded none, say nothing."""
    import json

    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", total_timesteps=64, checkpoint={"every": 64, "keep": 1},
                         torch_threads=1)
    train(config, quiet=True)
    checkpoint = tmp_path / "run" / "checkpoints" / "step_64"
    assert json.loads((checkpoint / "state.json").read_text())["torch_threads"] == 1
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["torch_threads"] == 1

    train(dict(config, total_timesteps=128), resume=True)
    assert "thread" not in capsys.readouterr().out
    checkpoint = tmp_path / "run" / "checkpoints" / "step_128"
    _forge_elapsed(checkpoint, 3, key="torch_threads")
    train(dict(config, total_timesteps=192), resume=True)
    assert "saved this checkpoint with torch on 3 threads, this process uses 1" in capsys.readouterr().out
    checkpoint = tmp_path / "run" / "checkpoints" / "step_192"
    _forge_elapsed(checkpoint, None, key="torch_threads")
    train(dict(config, total_timesteps=256), resume=True)
    assert "thread" not in capsys.readouterr().out


@pytest.mark.parametrize("threads", [0, -1, 1025, 2.0, True, "4"])
def test_a_checkpoint_with_a_malformed_thread_count_is_refused(nim, tmp_path, threads):
    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", total_timesteps=64, checkpoint={"every": 64, "keep": 1})
    train(config, quiet=True)
    _forge_elapsed(tmp_path / "run" / "checkpoints" / "step_64", threads, key="torch_threads")
    from kakurega.agents.training.checkpoint import CheckpointError, verify

    with pytest.raises(CheckpointError, match="torch_threads = .*expected an integer from 1 to 1024"):
        verify(tmp_path / "run" / "checkpoints" / "step_64")


def test_a_resume_of_a_finished_run_trains_nothing_and_changes_nothing_of_it(nim, tmp_path):
    """``--resume`` of a run at its total_timesteps writes the policy and the report again, and no new log part,
    checkpoint or time: summary.json's training time and the checkpoint stay the run's (they grew by the resume's
    build and report before). The control: a resume that trains on adds its part and its time."""
    import json

    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", total_timesteps=128, checkpoint={"every": 64, "keep": 2})
    train(config, quiet=True)
    run = tmp_path / "run"

    def state():
        checkpoints = sorted(p.name for p in (run / "checkpoints").iterdir())
        newest = run / "checkpoints" / checkpoints[-1] / "state.json"
        summary = json.loads((run / "summary.json").read_text())
        return (sorted(p.name for p in (run / "logs").iterdir()), checkpoints, newest.read_bytes(),
                summary["wall_seconds_training"], summary["cpu_seconds_training"], summary["timesteps"])

    before = state()
    train(config, resume=True, quiet=True)
    assert state() == before
    assert (run / "policy.safetensors").is_file()
    train(dict(config, total_timesteps=192), resume=True, quiet=True)
    after = state()
    assert after[0] == [*before[0], "part1"] and after[1] != before[1] and (before[5], after[5]) == (128, 192)
