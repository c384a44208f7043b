"""``kakurega playthroughs --dir DIR``: only playthrough files are written, read and removed there.

``--regenerate`` removed every ``.txt`` file of ``--dir`` that no configuration names (``--dir .`` took a
``requirements.txt`` with it) and wrote through a link at a playthrough's name; the check opened a FIFO at one
and waited for ever for a writer.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kakurega.scripts import playthroughs


def test_regenerate_removes_stale_playthroughs_only_and_never_writes_through_a_link(tmp_path):
    (tmp_path / "notes.txt").write_text("my notes\n")
    (tmp_path / "old_game_v0.txt").write_text(f"{playthroughs.HEADER}old_game_v0 {{}}\n")  # the control: removed
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("precious\n")
    name, config = playthroughs.configurations()[0]
    link = playthroughs.path_of(tmp_path, name, config)
    link.symlink_to(outside)
    assert playthroughs.main(["--dir", str(tmp_path), "--regenerate"]) == 0
    assert (tmp_path / "notes.txt").read_text() == "my notes\n"
    assert not (tmp_path / "old_game_v0.txt").exists()
    assert outside.read_text() == "precious\n"
    assert not link.is_symlink() and link.read_text() == playthroughs.play(name, config)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_at_a_playthroughs_name_is_refused_in_words_not_waited_on(tmp_path):
    name, config = playthroughs.configurations()[0]
    os.mkfifo(playthroughs.path_of(tmp_path, name, config))
    try:  # a child whose open of the FIFO would wait for a writer for ever
        done = subprocess.run([sys.executable, "-m", "kakurega.scripts.cli", "playthroughs", "--dir", str(tmp_path),
                               "--env", name], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("the check waited on the FIFO")
    assert done.returncode == 2 and "a FIFO (named pipe), not a regular file" in done.stderr, done.stderr[-2000:]
