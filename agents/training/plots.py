"""Learning-curve plots from a training run's logs (matplotlib, Agg backend, imported lazily)."""

from __future__ import annotations

import csv
import errno
import io
import os
from pathlib import Path

from kakurega.agents.training.run_dir import atomic_write_bytes


def _read_csv(path: Path) -> list[dict]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text; a run writes its CSV logs as UTF-8: repair or remove it") from None


def _series(rows: list[dict], x_key: str, y_key: str) -> tuple[list[float], list[float]]:
    xs, ys = [], []
    for row in rows:
        x, y = row.get(x_key, ""), row.get(y_key, "")
        if x not in ("", None) and y not in ("", None):
            xs.append(float(x))
            ys.append(float(y))
    return xs, ys


def read_progress(run_dir) -> list[dict]:
    """SB3's progress.csv rows of every training segment of the run, in order."""
    rows = []
    for path in sorted(Path(run_dir).glob("logs/part*/progress.csv"), key=lambda p: int(p.parent.name[4:] or 0)):
        if path.stat().st_size:
            rows.extend(_read_csv(path))
    return rows


def plot_learning_curves(run_dir, output=None) -> Path | None:
    """Save ``plots/learning_curve.png`` of a run: training reward and score, evaluation score with CI.

    Returns the PNG path, or ``None`` when the run has no logs yet.
    """
    run_dir = Path(run_dir)
    progress = read_progress(run_dir)
    eval_path = run_dir / "eval.csv"
    evaluations = _read_csv(eval_path) if eval_path.is_file() else []
    if not progress and not evaluations:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    ax = axes[0]
    for key, label in (("rollout/ep_rew_mean", "mean episode reward"), ("rollout/score", "score (last 100 episodes)")):
        xs, ys = _series(progress, "time/total_timesteps", key)
        if xs:
            ax.plot(xs, ys, label=label)
    ax.set_xlabel("learner steps")
    ax.set_title("training episodes (vs the opponent pool)")
    ax.grid(alpha=0.3)
    ax.legend(loc="best")
    ax = axes[1]
    if evaluations:
        xs, ys = _series(evaluations, "timesteps", "score")
        _, low = _series(evaluations, "timesteps", "score_ci_low")
        _, high = _series(evaluations, "timesteps", "score_ci_high")
        opponent = evaluations[-1].get("opponent", "")
        ax.plot(xs, ys, marker="o", label=f"score vs {opponent} (a win 1, a shared win 1/k)")
        if len(low) == len(xs) and len(high) == len(xs):
            ax.fill_between(xs, low, high, alpha=0.25, label="95% CI")
        _, baseline = _series(evaluations, "timesteps", "baseline_score")
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
