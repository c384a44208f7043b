"""A run directory as ``kakurega plot`` reads it: one training segment's progress log, no plots yet (shared by
``tests/test_output_files.py`` and ``tests/training/test_plot_inputs.py``)."""

from __future__ import annotations

from pathlib import Path

#: a progress log of two rows, as SB3's CSV logger writes it
PROGRESS = "time/total_timesteps,rollout/ep_rew_mean,rollout/score\n64,0.1,0.2\n128,0.3,0.4\n"


def progress_run(tmp_path: Path) -> Path:
    """``tmp_path / 'run'`` holding ``logs/part0/progress.csv`` (:data:`PROGRESS`)."""
    run = tmp_path / "run"
    (run / "logs" / "part0").mkdir(parents=True)
    (run / "logs" / "part0" / "progress.csv").write_text(PROGRESS)
    return run
