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
    assert "x tictactoe" in capsys.readouterr().out


def test_bench_rejects_bad_budget(capsys):
    import pytest

    with pytest.raises(SystemExit):
        bench.main(["--seconds", "0"])
    assert "--seconds" in capsys.readouterr().err
