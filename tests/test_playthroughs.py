"""Golden playthroughs: every registered configuration replays exactly as its committed file says.

A failure prints the unified diff from the committed file to the game played
now. If the change of behaviour is meant, regenerate the files with
``kakurega playthroughs --regenerate`` and commit them with the change.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conformance import registry_cases

from kakurega.scripts import playthroughs

DIRECTORY = Path(__file__).parent / "playthroughs"


@pytest.mark.parametrize("name, config", registry_cases())
def test_playthrough_matches_committed_file(name, config):
    path = playthroughs.path_of(DIRECTORY, name, config)
    assert path.exists(), f"{path} is missing: run `kakurega playthroughs --regenerate` and commit it"
    expected = path.read_text(encoding="utf-8")
    actual = playthroughs.play(name, config)
    if actual != expected:
        pytest.fail(
            "the game played now differs from the committed playthrough (a change of behaviour; if it is "
            "meant, run `kakurega playthroughs --regenerate` and commit the files):\n"
            + playthroughs.diff(expected, actual, path),
            pytrace=False,
        )


def test_one_file_per_configuration():
    expected = {playthroughs.path_of(DIRECTORY, name, config).name for name, config in playthroughs.configurations()}
    assert {path.name for path in DIRECTORY.glob("*.txt")} == expected


def test_a_change_of_behaviour_shows_as_a_diff():
    """Control: another game (seed) of the same configuration gives a diff naming the steps that differ."""
    name, config = playthroughs.configurations()[0]
    path = playthroughs.path_of(DIRECTORY, name, config)
    other = playthroughs.play(name, config, seed=playthroughs.SEED + 1)
    text = playthroughs.diff(path.read_text(encoding="utf-8"), other, path)
    assert text.startswith(f"--- {path.name} (committed)\n+++ {path.name} (replayed now)\n")
    assert "\n-  action: " in text and "\n+  action: " in text


def test_observations_are_written_by_piece_name_with_runs_and_stable_numbers():
    from kakurega.envs.core.layout import ObservationLayout

    layout = ObservationLayout([("total", (1,)), ("hand", (6,)), ("board", (2, 3)), ("empty", (2,))])
    obs = layout.zeros()
    layout.view(obs, "total")[0] = 0.1
    layout.view(obs, "hand")[[1, 2, 3, 5]] = 1
    layout.view(obs, "board")[1] = [1 / 3, 1 / 3, 2]
    assert playthroughs.describe_observation(layout, obs) == [
        "total=0.1",  # the float32 0.1 (0.100000001...) in six significant digits
        "hand: [1..3]=1 [5]=1",
        "board: [1,0..1]=0.333333 [1,2]=2",
    ]


def test_pure_python_build_writes_the_same_playthroughs():
    """The compiled and the pure-Python modules play the same games, to the last written digit."""
    env = {**os.environ, "KAKUREGA_PURE_PYTHON": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "kakurega.scripts.playthroughs", "--dir", str(DIRECTORY)],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]


def test_the_script_reports_a_difference(tmp_path):
    name, config = playthroughs.configurations()[0]
    path = playthroughs.path_of(tmp_path, name, config)
    path.write_text(playthroughs.play(name, config).replace("action:", "action was:", 1), encoding="utf-8")
    assert playthroughs.main(["--dir", str(tmp_path), "--env", name]) == 1
    assert playthroughs.main(["--dir", str(tmp_path), "--env", name, "--regenerate"]) == 0
    assert playthroughs.main(["--dir", str(tmp_path), "--env", name]) == 0
    with pytest.raises(ValueError, match="not a registered env"):
        playthroughs.main(["--dir", str(tmp_path), "--env", "no_such_v0"])
