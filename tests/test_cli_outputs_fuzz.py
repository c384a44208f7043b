"""Bad input to ``train-bots`` and ``bench`` is one line (exit status 2), and ``--json`` of ``balance``, ``tactics``
and ``bench`` is checked before the work and written without opening what is there (a FIFO never hangs them).

Each FIFO test holds the FIFO's read end open, so a writer that opens the FIFO
instead of replacing it fails the test instead of hanging it.
"""

from __future__ import annotations

import os
import stat

import pytest

from kakurega.scripts.cli import main


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0]


@pytest.fixture
def fifo(tmp_path):
    """A FIFO with a reader (so opening it for writing does not block); removed with its reader afterwards."""
    path = tmp_path / "report.json"
    os.mkfifo(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    yield path
    os.close(reader)


def _replaced(path) -> dict:
    """The JSON written at ``path``, which must now be a regular file (the FIFO replaced, not written into)."""
    import json

    assert stat.S_ISREG(os.lstat(path).st_mode), f"{path} is still not a regular file"
    return json.loads(path.read_text())


# ------------------------------------------------------------------ train-bots
def test_train_bots_with_only_matching_nothing_is_one_line(capsys):
    assert main(["train-bots", "--only", "zzzz", "--no-install"]) == 2
    line = _one_line(capsys)
    assert "no bot config" in line and "zzzz" in line and "animal_chain" in line  # the configs it has


def test_train_bots_with_a_bad_config_is_one_line(tmp_path, capsys):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "bad.yaml").write_text("env: animal_chain_v1\nbogus_key: 1\n")
    assert main(["train-bots", "--configs", str(tmp_path / "bots"), "--runs", str(tmp_path / "runs"),
                 "--no-install", "--quiet"]) == 2
    line = _one_line(capsys)
    assert "bad.yaml" in line and "bogus_key" in line and "unknown key" in line


def test_train_bots_with_configs_that_is_not_a_directory_is_one_line(tmp_path, capsys):
    assert main(["train-bots", "--configs", str(tmp_path / "missing"), "--no-install"]) == 2
    assert "not a directory; expected the folder of bot configs" in _one_line(capsys)


# ----------------------------------------------------------------------- bench
def test_bench_json_that_is_a_directory_is_refused_before_measuring(tmp_path, capsys, monkeypatch):
    from kakurega.scripts import bench

    monkeypatch.setattr(bench, "run", lambda *a, **k: pytest.fail("measured before checking --json"))
    assert main(["bench", "--json", str(tmp_path), "--seconds", "0.01", "--repeats", "1", "--chunks", "1"]) == 2
    assert f"--json {tmp_path}: is a directory" in _one_line(capsys)


def test_bench_json_replaces_a_fifo(fifo, capsys):
    assert main(["bench", "--json", str(fifo), "--seconds", "0.01", "--repeats", "1", "--chunks", "1",
                 "--only", "zzzz"]) == 0
    assert "rows" in _replaced(fifo)


# --------------------------------------------------------------------- balance
BALANCE = ["balance", "animal_chain", "--games", "2", "--ismcts-budget", "0", "--quiet"]


def test_balance_json_replaces_a_fifo(fifo, capsys):
    assert main([*BALANCE, "--json", str(fifo)]) == 0
    assert _replaced(fifo)


def test_balance_json_that_is_a_directory_is_refused_before_the_games(tmp_path, capsys, monkeypatch):
    from kakurega.scripts import balance

    monkeypatch.setattr(balance, "balance_report", lambda *a, **k: pytest.fail("played before checking --json"))
    assert main([*BALANCE, "--json", str(tmp_path)]) == 2
    assert f"--json {tmp_path}: is a directory" in _one_line(capsys)


# --------------------------------------------------------------------- tactics
TACTICS = ["tactics", "animal_chain", "--agents", "random", "--quiet"]


def test_tactics_json_replaces_a_fifo(fifo, capsys):
    assert main([*TACTICS, "--json", str(fifo)]) == 0
    assert _replaced(fifo)


def test_tactics_json_that_is_a_directory_is_refused_before_the_positions(tmp_path, capsys, monkeypatch):
    from kakurega.agents.tactics import score

    monkeypatch.setattr(score, "score_agents", lambda *a, **k: pytest.fail("scored before checking --json"))
    assert main([*TACTICS, "--json", str(tmp_path)]) == 2
    assert f"--json {tmp_path}: is a directory" in _one_line(capsys)


def test_a_json_link_is_replaced_not_followed(tmp_path, capsys):
    outside = tmp_path / "outside.json"
    outside.write_text("precious\n")
    link = tmp_path / "report.json"
    link.symlink_to(outside)
    assert main([*TACTICS, "--json", str(link)]) == 0
    assert outside.read_text() == "precious\n" and _replaced(link)


def test_the_report_writer_of_the_benchmarks_replaces_a_fifo_or_a_link(tmp_path):
    """write_text_file (the benchmarks' and balance scripts' --json): a FIFO at the name is replaced, not opened
    (once open() waited for ever for a reader), a link is replaced, not followed."""
    import os

    from kakurega.scripts.destination import write_text_file

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    assert write_text_file(fifo, "{}").read_text() == "{}" and fifo.is_file()
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    link = tmp_path / "new" / "link.json"
    link.parent.mkdir()
    link.symlink_to(outside)
    write_text_file(link, "[]")
    assert outside.read_text() == "precious" and link.read_text() == "[]" and not link.is_symlink()
