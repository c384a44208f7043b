"""Hidden Rooms in a narrow terminal: the path grid goes below the room, prose is wrapped (play and replay)."""

from __future__ import annotations

import numpy as np

from kakurega.agents.base import AgentContext
from kakurega.agents.record import Record
from kakurega.agents.specs import make_agent
from kakurega.agents.tournament import play_game
from kakurega.envs.core import text_layout
from kakurega.envs.hidden_rooms.booklet import GRID
from kakurega.envs.registry import latest_version, make
from kakurega.scripts.cli import main

NAME = latest_version("hidden_rooms")


def test_at_40_columns_the_path_grid_is_stacked_below_the_room():
    env = make(NAME, wrapped=False)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(9):
        env.step(int(rng.choice(env.legal_actions())))
    full, narrow = env.render_text(None).splitlines(), env.render_text(None, width=40).splitlines()
    top = next(i for i, line in enumerate(full) if line.startswith("      0    1"))
    block = full[top:top + GRID + 1]  # column numbers, then one line per row: room, 6 spaces, path grid
    start = narrow.index(block[0][: len(block[0]) // 2 - 3])
    room, gap, path = narrow[start:start + GRID + 1], narrow[start + GRID + 1], narrow[start + GRID + 2:]
    assert gap == "" and [a + "      " + b for a, b in zip(room, path[:GRID + 1])] == block
    assert all(len(line) <= 40 for line in narrow), [line for line in narrow if len(line) > 40]
    # at 80 columns room and path grid fit side by side, as in the full render
    assert all(line in env.render_text(None, width=80).splitlines() for line in block)


def test_replay_fits_the_table_to_the_terminal(monkeypatch, capsys, tmp_path):
    raw = make(NAME, wrapped=False)
    context = AgentContext.from_env(raw, NAME, {})
    agents = [make_agent("random", context, seed=5 + seat) for seat in range(context.num_players)]
    record = Record.start(NAME, {}, 5, {agent: "random" for agent in raw.possible_agents})
    play_game(raw, agents, 5, moves=record.moves)
    record.finish(raw)
    path = record.save(tmp_path / "game.json")
    assert main(["replay", str(path)]) == 0
    full = capsys.readouterr().out  # printed to a file (here a capture): every table at its full width
    assert any(len(line) > 60 for line in full.splitlines())
    monkeypatch.setattr(text_layout, "terminal_width", lambda stream=None: 40)
    assert main(["replay", str(path)]) == 0
    narrow = capsys.readouterr().out
    lines = [line for line in narrow.splitlines() if str(path) not in line]  # a long file name is one word
    assert all(len(line) <= 40 for line in lines), [line for line in lines if len(line) > 40]
    assert sorted(narrow.split()) == sorted(full.split())
