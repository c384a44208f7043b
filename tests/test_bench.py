"""The benchmark command runs on a tiny budget and writes a valid report (no timing assertions)."""

import json

from kakurega.scripts import bench


def test_bench_runs_and_writes_json(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert bench.main(["--seconds", "0.02", "--repeats", "1", "--json", str(out), "--only", "kakurenbo"]) == 0
    report = json.loads(out.read_text())
    labels = [row["env"] for row in report["rows"]]
    assert labels[0] == bench.REFERENCE
    assert any(label.startswith("kakurenbo_v0") for label in labels)
    for row in report["rows"]:
        assert row["steps_per_s"] > 0 and row["games_per_s"] > 0 and row["observe_us"] > 0
        assert row["memory_kib"] > 0
        assert len(row["repeats"]) == 1
    reference = report["rows"][0]
    assert reference["ratio_vs_tictactoe"] == 1.0
    printed = capsys.readouterr().out
    assert "x tictactoe" in printed
    # the report says which kakurega modules ran compiled (what the run measured)
    from kakurega.envs import compiled

    assert report["compiled_modules"] == compiled.compiled_modules()
    assert all(name.startswith("kakurega.envs.") for name in report["compiled_modules"])
    assert f"compiled (setup.py): {len(report['compiled_modules'])}" in printed


def test_the_driver_seeds_the_env_once_and_plays_whole_games():
    """drive_env seeds on the first reset only (Gymnasium's advice); later resets continue the stream."""
    from kakurega.envs import make

    class Recording:
        def __init__(self, env):
            self.env, self.seeds = env, []

        def reset(self, seed=None):
            self.seeds.append(seed)
            self.env.reset(seed=seed)

        def __getattr__(self, name):
            return getattr(self.env, name)

    env = Recording(make("kakurenbo_v0", num_players=3))
    steps_per_s, games_per_s = bench.drive_env(env, 0.05, seed=7)
    assert env.seeds[0] == 7 and len(env.seeds) >= 2 and set(env.seeds[1:]) == {None}
    assert steps_per_s > games_per_s > 0


def test_bench_rejects_bad_budget(capsys):
    import pytest

    with pytest.raises(SystemExit):
        bench.main(["--seconds", "0"])
    assert "--seconds" in capsys.readouterr().err
