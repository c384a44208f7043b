"""Long commands say how far they are on a terminal: ``kakurega replay --gif`` (slow per frame on a large map)
writes ``done/total frames`` to stderr, at most twice a second, and nothing when quiet or not on a terminal."""

import io
import time

import pytest

from kakurega.agents.base import AgentContext
from kakurega.agents.record import Record
from kakurega.agents.specs import make_agent
from kakurega.agents.tournament import play_game
from kakurega.envs.registry import make
from kakurega.scripts.cli import main
from kakurega.scripts.evaluate import PROGRESS_EVERY, progress_counter

ENV = "kakurenbo_v1"


class Terminal(io.StringIO):
    def isatty(self):
        return True


def _record(path):
    raw = make(ENV, wrapped=False)
    context = AgentContext.from_env(raw, ENV, {})
    agents = [make_agent("random", context, seed=seat) for seat in range(context.num_players)]
    record = Record.start(ENV, {}, 4, {agent: "random" for agent in raw.possible_agents})
    play_game(raw, agents, 4, moves=record.moves)
    record.finish(raw)
    return record, record.save(path)


@pytest.mark.parametrize("quiet, terminal", [(False, True), (True, True), (False, False)])
def test_a_gif_export_shows_its_progress_on_a_terminal(quiet, terminal, tmp_path, monkeypatch, capsys):
    record, path = _record(tmp_path / "game.json")
    stderr = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr("sys.stderr", stderr)
    gif = tmp_path / "game.gif"
    assert main(["replay", str(path), "--gif", str(gif)] + (["--quiet"] if quiet else [])) == 0
    frames = len(record.moves) + 1
    assert f"wrote {gif}: {frames} frames" in capsys.readouterr().out
    if quiet or not terminal:  # the controls: no progress when asked for none, nor into a log file
        assert stderr.getvalue() == ""
    else:
        assert stderr.getvalue().startswith(f"\r0/{frames} frames of {gif}")
        assert stderr.getvalue().endswith(f"\r{frames}/{frames} frames of {gif}\n")


def test_progress_is_written_at_most_every_half_second_and_at_the_end(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    stderr = Terminal()
    monkeypatch.setattr("sys.stderr", stderr)
    progress = progress_counter("frames")
    for done in range(10):
        progress(done, 10)
        now[0] += PROGRESS_EVERY / 2  # two calls per interval: every other one is written
    progress(10, 10)
    assert stderr.getvalue() == "".join(f"\r{done}/10 frames" for done in (0, 2, 4, 6, 8)) + "\r10/10 frames\n"
    assert progress_counter("frames", quiet=True) is None
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert progress_counter("frames") is None  # not a terminal
