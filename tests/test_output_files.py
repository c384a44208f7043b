"""What the commands write: never through a link, never into a FIFO, never over a record; errors in one line.

``kakurega plot`` (``<run>/plots``), ``kakurega evaluate --out`` (the tournament
files), ``--record-dir`` (game records) and ``Record.save``; and the messages of
bad ``--seat``, ``--seed`` and agent specs.
"""

from __future__ import annotations

import json
import os
import threading

import pytest
from run_logs import progress_run

from kakurega.scripts.cli import main

OUT_FILES = ("tournament.json", "tournament.csv", "tournament_head_to_head.csv", "tournament_heatmap.png")
EVALUATE = ["evaluate", "kakurenbo", "--agents", "random", "heuristic", "--games", "2", "--quiet"]


@pytest.fixture
def run(tmp_path):
    """A run directory with one training segment's progress log and no plots yet."""
    return progress_run(tmp_path)


@pytest.fixture
def outside(tmp_path):
    """A directory outside every output, holding a file that must never change."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "learning_curve.png").write_text("precious\n")
    (outside / "target.txt").write_text("precious\n")
    return outside


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0]


# ---------------------------------------------------------------------- plot
@pytest.mark.train
def test_plot_writes_the_learning_curve(run, capsys):
    """The control: a plain run directory gets its PNG."""
    assert main(["plot", str(run)]) == 0
    assert (run / "plots" / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert not list(run.rglob("*.tmp"))


@pytest.mark.train
def test_plot_refuses_a_plots_directory_that_is_a_symbolic_link(run, outside, capsys):
    (run / "plots").symlink_to(outside)
    assert main(["plot", str(run)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert f"{run / 'plots'} is a symbolic link" in line and "remove the link" in line
    assert (outside / "learning_curve.png").read_bytes() == b"precious\n"
    assert sorted(p.name for p in outside.iterdir()) == ["learning_curve.png", "target.txt"]


@pytest.mark.train
def test_plot_with_a_file_named_plots_says_so_in_one_line(run, capsys):
    (run / "plots").write_text("mine\n")
    assert main(["plot", str(run)]) == 1
    line = _one_line(capsys.readouterr().err)
    assert str(run / "plots") in line and "not a directory" in line
    assert (run / "plots").read_text() == "mine\n"


@pytest.mark.train
def test_plot_with_a_directory_at_the_png_says_so_and_leaves_no_temporary(run, capsys):
    (run / "plots" / "learning_curve.png").mkdir(parents=True)
    assert main(["plot", str(run)]) == 1
    line = _one_line(capsys.readouterr().err)
    assert str(run / "plots" / "learning_curve.png") in line and "directory" in line
    assert sorted(p.name for p in (run / "plots").iterdir()) == ["learning_curve.png"]


# ------------------------------------------------------------- evaluate --out
@pytest.fixture(scope="module")
def result():
    from kakurega.agents.tournament import run_tournament

    return run_tournament("kakurenbo_v1", ["random", "heuristic"], {}, 2, 0)


@pytest.mark.train
def test_evaluate_out_replaces_planted_links_and_never_writes_through_them(tmp_path, outside, capsys):
    out = tmp_path / "out"
    out.mkdir()
    for name in OUT_FILES:
        (out / name).symlink_to(outside / "target.txt")
    assert main([*EVALUATE, "--out", str(out)]) == 0
    assert (outside / "target.txt").read_bytes() == b"precious\n"
    for name in OUT_FILES:
        assert (out / name).is_file() and not (out / name).is_symlink(), name
    assert (out / "tournament_heatmap.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "tournament.csv").read_text().startswith("agent,games,score")
    assert sorted(p.name for p in out.iterdir()) == sorted(OUT_FILES)  # no temporary left


def test_a_fifo_at_a_tournament_file_is_replaced_without_blocking(tmp_path, result):
    out = tmp_path / "out"
    out.mkdir()
    for name in ("tournament.json", "tournament.csv", "tournament_head_to_head.csv"):
        os.mkfifo(out / name)
    done = threading.Event()

    def write():
        result.to_json(out / "tournament.json")
        result.to_csv(out / "tournament.csv")
        done.set()

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    thread.join(timeout=20)
    if not done.is_set():  # a writer stuck opening a FIFO: give it a reader so the thread ends
        for name in ("tournament.json", "tournament.csv", "tournament_head_to_head.csv"):
            if (out / name).exists():
                os.close(os.open(out / name, os.O_RDONLY | os.O_NONBLOCK))
    assert done.is_set(), "writing the results blocked on a FIFO"
    for name in ("tournament.json", "tournament.csv", "tournament_head_to_head.csv"):
        assert (out / name).is_file(), name
    assert '"agents"' in (out / "tournament.json").read_text()


@pytest.mark.train
def test_a_directory_at_a_tournament_file_raises_naming_it_and_leaves_no_temporary(tmp_path, result):
    out = tmp_path / "out"
    (out / "tournament_heatmap.png").mkdir(parents=True)
    with pytest.raises(IsADirectoryError) as raised:
        result.heatmap(out / "tournament_heatmap.png")
    assert raised.value.filename == str(out / "tournament_heatmap.png")
    assert sorted(p.name for p in out.iterdir()) == ["tournament_heatmap.png"]


def test_evaluate_refuses_a_directory_at_an_output_file_before_the_first_game(tmp_path, capsys):
    out = tmp_path / "out"
    (out / "tournament_heatmap.png").mkdir(parents=True)
    assert main([*EVALUATE, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    line = _one_line(captured.err)
    assert f"{out / 'tournament_heatmap.png'} is a directory" in line and "--out" in line
    assert "head to head" not in captured.out  # refused before the games, not after them
    assert main([*EVALUATE, "--out", str(out), "--no-plots"]) == 0  # control: no heatmap, nothing in the way


# -------------------------------------------------------------- game records
def _finished_record():
    from kakurega.agents.record import Record

    record = Record.start("kakurenbo_v1", {}, 1, {"player_0": "random", "player_1": "random"})
    record.end = "terminated"
    record.returns = {"player_0": 1.0, "player_1": -1.0}
    return record


def test_record_save_replaces_a_planted_partial_link_and_never_follows_it(tmp_path, outside):
    path = tmp_path / "game.json"
    (tmp_path / "game.json.partial").symlink_to(outside / "target.txt")
    assert _finished_record().save(path) == path
    assert (outside / "target.txt").read_bytes() == b"precious\n"
    assert path.read_text().startswith('{"format":"kakurega-game-record"')
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json", "outside"]


def test_record_save_without_replace_leaves_an_existing_file_alone(tmp_path):
    path = tmp_path / "game.json"
    path.write_text("mine\n")
    with pytest.raises(FileExistsError) as raised:
        _finished_record().save(path, replace=False)
    assert raised.value.filename == str(path)
    assert path.read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]
    assert _finished_record().save(tmp_path / "new.json", replace=False).is_file()  # control



def test_record_save_without_replace_refuses_on_a_file_system_without_hard_links(tmp_path, monkeypatch):
    """Where ``os.link`` cannot work (it raises a plain OSError), the name is checked before the rename: an existing
    record is still refused and left alone."""
    import errno

    from kakurega.agents import record as records

    def no_links(*args, **kwargs):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(records.os, "link", no_links)
    path = tmp_path / "game.json"
    path.write_text("mine\n")
    with pytest.raises(FileExistsError):
        _finished_record().save(path, replace=False)
    assert path.read_text() == "mine\n" and sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]
    assert _finished_record().save(tmp_path / "new.json", replace=False).is_file()  # control: renamed into place


@pytest.mark.parametrize("seed,accepted", [(0, True), (2**64 - 1, True), (-1, False), (2**64, False)])
def test_a_records_seed_is_any_integer_a_deal_takes(seed, accepted):
    """``kakurega play --seed 0 --record`` writes seed 0: read back; a seed no deal takes is refused."""
    from kakurega.agents.record import RecordError, parse_record

    data = {**_finished_record().to_dict(), "seed": seed}
    if accepted:
        assert parse_record(data).seed == seed
        assert parse_record(json.dumps(data)).seed == seed  # text and data already parsed read alike
    else:
        with pytest.raises(RecordError, match=r"seed: expected an integer in \[0, 2\*\*64\)"):
            parse_record(data)


def test_evaluate_record_dir_refuses_a_directory_with_records_and_overwrites_none(tmp_path, capsys):
    records = tmp_path / "records"
    assert main([*EVALUATE, "--record-dir", str(records)]) == 0  # control: a new directory, numbered from 1
    first = sorted(p.name for p in records.iterdir())
    assert first == [f"game-{n:06d}.json" for n in range(1, 9)]  # 2 deals x 4 seats
    kept = {name: (records / name).read_bytes() for name in first}
    capsys.readouterr()
    assert main([*EVALUATE, "--seed", "5", "--record-dir", str(records)]) == 2
    captured = capsys.readouterr()
    line = _one_line(captured.err)
    assert f"--record-dir {records}: already holds game records (game-000001.json, game-000002.json and 6 more)" in line
    assert "head to head" not in captured.out  # refused before the games
    assert {name: (records / name).read_bytes() for name in sorted(p.name for p in records.iterdir())} == kept


def test_evaluate_record_dir_never_writes_through_a_planted_record_link(tmp_path, outside, capsys):
    records = tmp_path / "records"
    records.mkdir()
    (records / "game-000001.json").symlink_to(outside / "target.txt")
    assert main([*EVALUATE, "--record-dir", str(records)]) == 2
    assert "already holds game records (game-000001.json)" in _one_line(capsys.readouterr().err)
    assert (outside / "target.txt").read_bytes() == b"precious\n"


def test_evaluate_record_dir_replaces_a_planted_partial_link(tmp_path, outside, capsys):
    records = tmp_path / "records"
    records.mkdir()
    (records / "game-000001.json.partial").symlink_to(outside / "target.txt")
    assert main([*EVALUATE, "--record-dir", str(records)]) == 0
    assert (outside / "target.txt").read_bytes() == b"precious\n"
    assert not list(records.glob("*.partial")) and (records / "game-000001.json").is_file()


# ------------------------------------------------------------------ messages
def test_play_seat_that_is_not_a_seat_names_the_option(capsys):
    assert main(["play", "kakurenbo", "--seat", "abc", "--seed", "1"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert ("--seat expects a seat number from 0 to 3, a seat name (player_0, player_1, player_2, player_3) or random; "
            "got 'abc'") in line
    assert main(["play", "kakurenbo", "--seat", "7", "--seed", "1"]) == 2
    assert "got '7'" in _one_line(capsys.readouterr().err)


def test_play_seat_accepts_a_number_a_name_or_random():
    import numpy as np

    from kakurega.scripts.cli import _seat_index

    agents = ["player_0", "player_1", "player_2"]
    rng = np.random.default_rng(0)
    assert [_seat_index(text, agents, rng) for text in ("0", "2", "player_1", " player_2 ")] == [0, 2, 1, 2]
    assert _seat_index("random", agents, rng) in (0, 1, 2)
    assert [_seat_index(text, agents, rng) for text in ("3", "-1", "1.0", "abc", "", "player_3", "٣")] == [None] * 7


@pytest.mark.parametrize("command", [EVALUATE, ["play", "kakurenbo"], ["demo"], ["balance", "kakurenbo"],
                                     ["tactics", "kakurenbo", "--agents", "random"],
                                     ["exploit", "kakurenbo", "--target", "random"]])
@pytest.mark.parametrize("seed", ["-1", "4294967296", "x"])
def test_a_seed_out_of_range_names_the_option_at_parse_time(command, seed, capsys):
    # one argparse type for every --seed (demo once printed numpy's words alone, naming no option)
    with pytest.raises(SystemExit) as refused:
        main([*command, "--seed", seed])
    assert refused.value.code == 2
    assert f"argument --seed: expected a whole number from 0 to 4294967295 (2**32 - 1), got '{seed}'" in (
        capsys.readouterr().err)


def test_a_policy_path_that_is_not_a_regular_file_says_so(tmp_path, capsys):
    fifo = tmp_path / "policy.fifo"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo)):
        assert main(["evaluate", "kakurenbo", "--agents", f"policy:{path}", "random", "--games", "2"]) == 2
        line = _one_line(capsys.readouterr().err)
        assert f"{path} is not a regular file" in line and "does not exist" not in line
    assert main(["evaluate", "kakurenbo", "--agents", f"policy:{tmp_path / 'none'}", "random", "--games", "2"]) == 2
    assert "does not exist" in _one_line(capsys.readouterr().err)  # control: a missing file is still called missing


def test_a_heuristic_option_it_does_not_take_is_named_with_what_it_takes(capsys):
    assert main(["evaluate", "kakurenbo", "--agents", "heuristic:foo=1", "random", "--games", "2"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "agent kind 'heuristic'" in line and "takes no option 'foo'" in line and "it takes no options" in line
    assert "unexpected keyword" not in line


def test_heuristic_options_are_listed_when_the_class_takes_some(monkeypatch):
    from kakurega.agents import specs

    class Tunable:
        def __init__(self, context, seed=None, depth: int = 2, *, width: int = 3):
            self.options = {"depth": depth, "width": width}

    class Anything:
        def __init__(self, context, seed=None, **options):
            self.options = options

    context = type("Context", (), {"env_name": "toy_v0"})()
    monkeypatch.setattr(specs, "load_heuristic_class", lambda name: Tunable)
    with pytest.raises(ValueError, match=r"takes no option 'foo'; it takes: depth, width"):
        specs._make_heuristic(context, 0, {"foo": "1"}, None)
    assert specs._make_heuristic(context, 0, {"depth": "4"}, None).options == {"depth": "4", "width": 3}
    monkeypatch.setattr(specs, "load_heuristic_class", lambda name: Anything)
    assert specs._make_heuristic(context, 0, {"foo": "1"}, None).options == {"foo": "1"}


def test_an_os_error_is_one_line_with_its_paths_and_reason(monkeypatch, capsys):
    import errno

    from kakurega.scripts import cli

    def fails(args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "out/a.json")

    monkeypatch.setattr(cli, "cmd_envs", fails)
    monkeypatch.delenv("KAKUREGA_DEBUG", raising=False)
    assert main(["envs"]) == 1
    assert _one_line(capsys.readouterr().err) == "error: out/a.json: No space left on device"
    assert cli.os_error_words(OSError(errno.EISDIR, "Is a directory", "a.tmp", None, "a.png")) == (
        "a.tmp -> a.png: Is a directory")
    assert cli.os_error_words(OSError(errno.EBADF, "Bad file descriptor", 3)) == "3: Bad file descriptor"
    assert cli.os_error_words(OSError("no errno")) == "no errno"


@pytest.mark.train
def test_the_exploit_curve_is_never_written_through_a_linked_plots_folder(tmp_path):
    from kakurega.agents.exploit import plot_curve

    report = {"env": "x", "target": "random", "learned": [
        {"learner_steps": 8, "score": 0.4, "score_ci95": [0.3, 0.5]},
        {"learner_steps": 16, "score": 0.6, "score_ci95": [0.5, 0.7]}]}
    outside = tmp_path / "outside"
    outside.mkdir()
    run = tmp_path / "run"
    run.mkdir()
    (run / "plots").symlink_to(outside)
    with pytest.raises(ValueError, match="plots is a symbolic link"):
        plot_curve(report, run / "plots" / "exploit_curve.png")
    assert list(outside.iterdir()) == []
    (run / "plots").unlink()  # the control: a real folder gets the picture
    assert plot_curve(report, run / "plots" / "exploit_curve.png").read_bytes()[:4] == b"\x89PNG"
