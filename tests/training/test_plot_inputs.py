"""``kakurega plot`` reads a run's CSV logs within bounds and names the file in every refusal.

A field over csv's limit, a header of thousands of columns, a row longer than
any a run writes, a file over the size limit and a cell that is not a number
are each one line naming the file (exit status 2), never a traceback or gigabytes
of memory; a folder beside ``logs/part<K>`` and a row cut short by a crash are
passed over.
"""

from __future__ import annotations

import pytest
from run_logs import PROGRESS, progress_run

from kakurega.agents.training import plots
from kakurega.scripts.cli import main

EVAL_HEADER = "timesteps,score,score_ci_low,score_ci_high,baseline_score,opponent\n"


@pytest.fixture
def run(tmp_path):
    return progress_run(tmp_path)


def _refused(run, capsys, path) -> str:
    """``kakurega plot run`` refuses with one line naming ``path``; that line."""
    assert main(["plot", str(run)]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}") and "Traceback" not in err, err
    assert not (run / "plots").exists()
    return lines[0]


def test_a_field_over_the_csv_limit_is_refused_naming_the_file(run, capsys):
    progress = run / "logs" / "part0" / "progress.csv"
    progress.write_text(PROGRESS + '"' + "x" * 200_000 + '",1,2\n')
    line = _refused(run, capsys, progress)
    assert "field larger than field limit" in line and "line 4" in line


def test_a_non_numeric_cell_is_refused_naming_the_file_line_and_column(run, capsys):
    (run / "eval.csv").write_text(EVAL_HEADER + "100,abc,0.1,0.9,0.5,heuristic\n")
    line = _refused(run, capsys, run / "eval.csv")
    assert "line 2" in line and "score is 'abc', expected a number" in line


def test_a_header_of_thousands_of_columns_is_refused(run, capsys):
    """The reader used to build a dict of every column for every row (500,000 columns: 4.6 GB)."""
    (run / "eval.csv").write_text(",".join(f"c{i}" for i in range(plots.MAX_LOG_COLUMNS + 1)) + "\n" + "1\n" * 300)
    assert f"a header of {plots.MAX_LOG_COLUMNS + 1:,} columns" in _refused(run, capsys, run / "eval.csv")


def test_a_row_longer_than_any_run_writes_is_refused_before_it_is_parsed(run, capsys):
    (run / "eval.csv").write_text(",".join(f"c{i}" for i in range(500_000)) + "\n" + "1\n" * 300)
    assert "a row longer than" in _refused(run, capsys, run / "eval.csv")


def test_a_row_spread_over_many_lines_counts_as_one_row(run, capsys):
    """Quoted fields may hold line breaks: the row's length, not the line's, is bounded."""
    (run / "eval.csv").write_text(EVAL_HEADER + '"1\n",' * (plots.MAX_ROW_CHARS // 5 + 1) + "1\n")
    assert "a row longer than" in _refused(run, capsys, run / "eval.csv")


def test_a_log_over_the_size_limit_is_refused(run, capsys, monkeypatch):
    monkeypatch.setattr(plots, "MAX_LOG_BYTES", 100)
    (run / "eval.csv").write_text(EVAL_HEADER + "100,0.5,0.1,0.9,0.5,heuristic\n" * 5)
    assert "a run's CSV log is at most 100 bytes" in _refused(run, capsys, run / "eval.csv")


def test_a_folder_that_is_not_a_training_segment_is_passed_over(run, capsys):
    for name in ("partX", "part0.old", "part²"):
        (run / "logs" / name).mkdir()
        (run / "logs" / name / "progress.csv").write_text(PROGRESS)
    assert main(["plot", str(run)]) == 0
    assert (run / "plots" / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"


def test_segments_are_read_in_number_order_and_rows_cut_short_are_skipped(run):
    for part, steps in ((10, (1064, 1128)), (2, (564, 628))):
        (run / "logs" / f"part{part}").mkdir()
        (run / "logs" / f"part{part}" / "progress.csv").write_text(PROGRESS.replace("64,", f"{steps[0]},", 1)
                                                                   .replace("128,", f"{steps[1]},", 1))
    with open(run / "logs" / "part2" / "progress.csv", "a") as log:
        log.write("700,0.5\n\n")  # a row cut short by a crash, and a blank line
    series, rows = plots.read_progress(run, plots.TRAINING_SERIES)
    assert rows == 6
    assert list(series["rollout/score"][0]) == [64, 128, 564, 628, 1064, 1128]
    assert list(series["rollout/score"][1]) == [0.2, 0.4] * 3


def test_the_evaluation_panel_reads_the_last_opponent_and_skips_empty_cells(run):
    (run / "eval.csv").write_text(EVAL_HEADER + "100,0.5,0.1,0.9,,random\n200,0.6,0.2,,0.5,heuristic\n")
    series, last, rows = plots._read_csv(run / "eval.csv", plots.EVALUATION_SERIES, ("opponent",))
    assert rows == 2 and last == {"opponent": "heuristic"}
    assert list(series["score"][0]) == [100, 200] and list(series["score_ci_high"][1]) == [0.9]
    assert plots.plot_learning_curves(run) == run / "plots" / "learning_curve.png"


def test_a_run_with_evaluations_but_no_logged_episodes_plots_without_a_warning(run):
    """A short DQN run logs its episodes every 100 games: progress.csv may hold evaluation rows only. The training
    panel then says so, instead of matplotlib warning on the run's terminal that the legend has nothing in it."""
    import warnings

    (run / "logs" / "part0" / "progress.csv").write_text("time/total_timesteps,eval/score\n64,0.5\n128,0.6\n")
    (run / "eval.csv").write_text(EVAL_HEADER + "64,0.5,0.1,0.9,0.4,random\n128,0.6,0.2,0.95,0.4,random\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert plots.plot_learning_curves(run) == run / "plots" / "learning_curve.png"
