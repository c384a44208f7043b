"""Learning-curve plots from a training run's logs (matplotlib, Agg backend, imported lazily)."""

from __future__ import annotations

import csv
import errno
import io
import os
import re
from array import array
from pathlib import Path

from kakurega.agents.training.run_dir import atomic_write_bytes
from kakurega.envs.core.safe_load import open_regular

#: the largest CSV log ``kakurega plot`` reads: a run writes a few hundred bytes a row, one row per PPO update
#: (a run of 10**8 steps logs a few MB), so a bigger file is not a run's log
MAX_LOG_BYTES = 32 * 2**20
#: the most columns a CSV log may have (SB3's progress.csv has a few dozen, eval.csv about ten)
MAX_LOG_COLUMNS = 1000
#: the longest row of a CSV log, in characters (a row of a run's log is well under 2,000)
MAX_ROW_CHARS = 2**18


def _rows(handle, path: Path):
    """``(line number, row)`` of the CSV text ``handle``, each row at most :data:`MAX_ROW_CHARS` long.

    The rows are read one by one (a row spans lines where a quoted field holds a
    line break), so neither a long row nor a long file is ever held whole; text
    that is not UTF-8 CSV raises :class:`ValueError` naming the file and line.
    """
    size = 0

    def lines():
        nonlocal size
        while line := handle.readline(MAX_ROW_CHARS + 1):
            size += len(line)
            if size > MAX_ROW_CHARS:
                raise ValueError(f"{path}, line {reader.line_num + 1}: a row longer than {MAX_ROW_CHARS:,} characters; "
                                 "a run's log rows are far shorter: repair or remove the file")
            yield line

    reader = csv.reader(lines())
    try:
        for row in reader:
            yield reader.line_num, row
            size = 0
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text; a run writes its CSV logs as UTF-8: repair or remove it") from None
    except csv.Error as error:
        raise ValueError(f"{path}, line {reader.line_num}: not readable CSV ({str(error)[:200]}); "
                         "repair or remove the file") from None


def _read_csv(path: Path, series: dict[str, tuple[str, str]], texts: tuple[str, ...] = ()) -> tuple[dict, dict, int]:
    """The ``series`` of CSV log ``path``, the last value of its columns ``texts`` and its number of rows.

    ``series`` maps a name to its ``(x column, y column)``; the result maps it to
    ``(xs, ys)``, the rows where both are filled (numbers: a cell that is not one
    raises :class:`ValueError` naming the file, line and column). Rows of another
    length than the header (cut short by a crash) are skipped, as ``--resume``
    drops them. Only the plotted columns are kept, and the file must be a regular
    file of at most :data:`MAX_LOG_BYTES` with at most :data:`MAX_LOG_COLUMNS`
    columns (a FIFO or a device is refused at once, never waited on).
    """
    descriptor, info = open_regular(path)
    with open(descriptor, newline="", encoding="utf-8") as handle:
        if info.st_size > MAX_LOG_BYTES:
            raise ValueError(f"{path}: {info.st_size:,} bytes; a run's CSV log is at most {MAX_LOG_BYTES:,} bytes "
                             "here (a long run's is a few MB): is it a run's log?")
        result = {name: (array("d"), array("d")) for name in series}
        last, count = dict.fromkeys(texts, ""), 0
        rows = _rows(handle, path)
        _, header = next(rows, (0, []))
        if len(header) > MAX_LOG_COLUMNS:
            raise ValueError(f"{path}: a header of {len(header):,} columns; a run's CSV log has at most "
                             f"{MAX_LOG_COLUMNS:,}: repair or remove the file")
        column = {key: index for index, key in enumerate(header)}
        for line, row in rows:
            if len(row) != len(header):
                continue  # cut short by a crash (or a blank line)
            count += 1
            for name, (x_key, y_key) in series.items():
                if x_key in column and y_key in column and row[column[x_key]] and row[column[y_key]]:
                    for values, key in zip(result[name], (x_key, y_key)):
                        values.append(_number(row[column[key]], path, line, key))
            for key in texts:
                if key in column:
                    last[key] = row[column[key]]
    return result, last, count


def _number(text: str, path: Path, line: int, key: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{path}, line {line}: {key} is {text[:50]!r}, expected a number; repair or remove the file") \
            from None


#: the training segments' folders, ``logs/part<K>`` (others, e.g. a copy named ``part0.old``, are not the run's)
_PART = re.compile(r"part([0-9]+)")


def read_progress(run_dir, series: dict[str, tuple[str, str]]) -> tuple[dict, int]:
    """The ``series`` (as :func:`_read_csv`) of SB3's progress.csv of every training segment of the run, in order,
    and their number of rows."""
    parts = [(int(match[1]), path) for path in Path(run_dir).glob("logs/part*/progress.csv")
             if (match := _PART.fullmatch(path.parent.name))]
    result = {name: (array("d"), array("d")) for name in series}
    count = 0
    for _, path in sorted(parts):
        if path.stat().st_size:
            part, _, rows = _read_csv(path, series)
            count += rows
            for name, (xs, ys) in part.items():
                result[name][0].extend(xs)
                result[name][1].extend(ys)
    return result, count


#: the curves of the training panel: ``name: (x column, y column)`` of progress.csv
TRAINING_SERIES = {key: ("time/total_timesteps", key) for key in ("rollout/ep_rew_mean", "rollout/score")}
#: the curves of the evaluation panel, from eval.csv
EVALUATION_SERIES = {key: ("timesteps", key) for key in ("score", "score_ci_low", "score_ci_high", "baseline_score")}


def plot_learning_curves(run_dir, output=None) -> Path | None:
    """Save ``plots/learning_curve.png`` of a run: training reward and score, evaluation score with CI.

    Returns the PNG path, or ``None`` when the run has no logs yet.
    """
    run_dir = Path(run_dir)
    progress, progress_rows = read_progress(run_dir, TRAINING_SERIES)
    eval_path = run_dir / "eval.csv"
    evaluations, last, eval_rows = (_read_csv(eval_path, EVALUATION_SERIES, ("opponent",)) if eval_path.is_file()
                                    else ({}, {}, 0))
    if not progress_rows and not eval_rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    ax = axes[0]
    for key, label in (("rollout/ep_rew_mean", "mean episode reward"), ("rollout/score", "score (last 100 episodes)")):
        xs, ys = progress[key]
        if xs:
            ax.plot(xs, ys, label=label)
    if ax.lines:
        ax.legend(loc="best")
    else:  # e.g. a short DQN run, which logs its episodes every 100 games
        ax.text(0.5, 0.5, "no training episodes logged yet", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("learner steps")
    ax.set_title("training episodes (vs the opponent pool)")
    ax.grid(alpha=0.3)
    ax = axes[1]
    if eval_rows:
        xs, ys = evaluations["score"]
        _, low = evaluations["score_ci_low"]
        _, high = evaluations["score_ci_high"]
        opponent = last["opponent"]
        ax.plot(xs, ys, marker="o", label=f"score vs {opponent} (a win 1, a shared win 1/k)")
        if len(low) == len(xs) and len(high) == len(xs):
            ax.fill_between(xs, low, high, alpha=0.25, label="95% CI")
        _, baseline = evaluations["baseline_score"]
        if len(baseline) == len(xs):
            ax.plot(xs, baseline, linestyle="--", color="grey", label=f"random vs {opponent}")
        ax.set_ylim(0, 1)
        ax.legend(loc="best")
    else:
        ax.text(0.5, 0.5, "no periodic evaluation", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("learner steps")
    ax.set_title("periodic evaluation")
    ax.grid(alpha=0.3)
    fig.suptitle(run_dir.name)
    fig.tight_layout()
    output = Path(output) if output else run_dir / "plots" / "learning_curve.png"
    image = io.BytesIO()
    fig.savefig(image, format="png", dpi=100)
    plt.close(fig)
    write_plot(output, image.getvalue())
    return output


def write_plot(output: Path, data: bytes) -> None:
    """Write PNG bytes ``data`` to ``output``, creating its directory; never through a link, never into a FIFO.

    A symbolic link as the directory (``<run>/plots`` pointing elsewhere) is
    refused with :class:`ValueError`, so a plot is never written outside the
    run; a file or a directory in the way raises :class:`OSError` naming it
    (and leaves no temporary file behind).
    """
    directory = output.parent
    if directory.is_symlink():
        raise ValueError(
            f"{directory} is a symbolic link (to {os.readlink(directory)[:200]}); plots are written only into a real "
            "directory, never outside the run: remove the link and try again"
        )
    if directory.exists() and not directory.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "exists and is not a directory; remove or rename it", str(directory))
    directory.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(output, data)  # a new file renamed into place: a link or FIFO there is replaced, not followed
