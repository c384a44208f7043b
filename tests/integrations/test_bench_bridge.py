"""``kakurega bench --bridge`` runs on a tiny budget and prints its rows (no timing assertions)."""

import json

import pytest

pytest.importorskip("pyspiel")

from kakurega.scripts import bench, bench_bridge  # noqa: E402


def test_the_bridge_bench_prints_every_row_and_writes_json(tmp_path, capsys):
    out = tmp_path / "bridge.json"
    name = bench_bridge.newest_envs()[0]
    assert bench.main(["--bridge", "--only", name, "--seconds", "0.02", "--repeats", "2", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    report = json.loads(out.read_text())
    [row] = report["rows"]
    assert row["env"] == name
    for key in ("steps", "clone", "apply", "resample"):
        assert len(row[f"{key}_ratios"]) == 2 and row[f"{key}_ratio"] > 0
    assert row["outcome_sampling_it_per_s"] > 0
    for key, floor_key in (("clone", "clone"), ("apply", "apply"), ("resample", "clone")):
        bridge_us, engine_us, floor_us = row[f"bridge_{key}_us"], row[f"engine_{key}_us"], row[f"floor_{floor_key}_us"]
        assert floor_us > 0
        assert row[f"{key}_above_floor"] == pytest.approx((bridge_us - floor_us) / engine_us)
        assert row[f"{key}_least_possible"] == pytest.approx((floor_us + engine_us) / engine_us)
        assert f"{row[f'{key}_above_floor']:.1f}, {row[f'{key}_least_possible']:.1f}" in printed
    assert row["direct_steps_ratio"] == pytest.approx(row["direct_steps_per_s"] / row["engine_steps_per_s"])
    assert f"| {name} | {row['direct_steps_ratio']:.2f} |" in printed
    assert f"| {name} | {row['steps_ratio']:.2f} | {row['clone_ratio']:.1f} |" in printed
    if row["external_sampling_env"]:
        assert row["external_sampling_it_per_s"] > 0 and row["external_sampling_env"] in printed


def test_the_ismcts_rows_time_both_searches_at_the_same_positions():
    name = bench_bridge.newest_envs()[0]
    row = bench_bridge.ismcts_row(name, {}, simulations=4, moves=2)
    assert row["moves"] == 2 and row["simulations"] == 4
    assert row["kakurega_s_per_move"] > 0 and row["openspiel_s_per_move"] > 0
    assert row["openspiel_over_kakurega"] == pytest.approx(row["openspiel_s_per_move"] / row["kakurega_s_per_move"])
    table = bench_bridge.format_tables({"rows": [], "ismcts": [row]})
    assert f"| {name} | 4 |" in table


def test_no_game_matched_says_so(tmp_path, capsys):
    assert bench.main(["--bridge", "--only", "no_such_game", "--json", str(tmp_path / "b.json")]) == 1
    assert "no game matched --only 'no_such_game'" in capsys.readouterr().out


def test_the_floor_game_clones_its_history_and_steps():
    floor = bench_bridge.floor_game()
    state = floor.new_initial_state()
    for _ in range(5):
        state.apply_action(0)
    copy = state.clone()
    assert copy.history() == [0] * 5 and copy.current_player() == 0 and copy.legal_actions() == [0]
    [twin] = bench_bridge._floor_states(floor, [copy])
    assert len(twin.history()) == 5
