"""``kakurega bench --evaluate``: the evaluation-speed rows are measured, not made up."""

from __future__ import annotations

import json

from kakurega.scripts import bench
from kakurega.scripts.bench_evaluate import Lineup, configurations, evaluation_speed


def test_the_configurations_are_the_shipped_bots_of_the_newest_versions():
    from kakurega.envs.registry import latest_envs

    names = {name for name, _ in configurations()}
    assert names and names <= set(latest_envs())
    assert configurations("no such env") == []


def test_a_lineup_plays_whole_games_and_counts_its_cpu_time():
    name, config = configurations()[0]
    lineup = Lineup(name, config, ("random", "random"))
    lineup.play(0.05)
    assert lineup.games >= 1 and lineup.seconds > 0
    assert lineup.games_per_s == lineup.games / lineup.seconds


def test_the_ratio_is_the_bot_rate_over_the_random_rate(tmp_path):
    name, _ = configurations()[0]
    report = evaluation_speed(seconds=0.1, repeats=1, chunks=1, only=name)
    row = report["rows"][0]
    assert row["ratio"] == row["bot_vs_heuristic_games_per_s"] / row["random_games_per_s"]
    assert 0 < row["ratio"] < 1  # two agents that think cost more than two that do not
    path = tmp_path / "bench.json"
    assert bench.main(["--evaluate", "--seconds", "0.1", "--repeats", "1", "--only", name, "--json", str(path)]) == 0
    assert json.loads(path.read_text())["rows"][0]["env"].startswith(name)
