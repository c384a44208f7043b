"""Summer Hide-and-Seek in a narrow terminal: the overlay panel goes below the map, prose is wrapped."""

from __future__ import annotations

import numpy as np
from terminal_player import typist

from kakurega.envs.core import text_layout
from kakurega.envs.registry import latest_version, make
from kakurega.scripts.cli import main

NAME = latest_version("summer_hide_and_seek")


def table_after(steps: int, seed: int = 1):
    env = make(NAME, wrapped=False)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        env.step(int(rng.choice(env.legal_actions())))
    return env


def test_at_40_columns_the_panel_is_stacked_below_the_map():
    env = table_after(12)
    height = env.game.map.height
    for viewer in [None, *env.possible_agents]:
        full, narrow = env.render_text(viewer).splitlines(), env.render_text(viewer, width=40).splitlines()
        top = next(i for i, line in enumerate(full) if line.startswith("map "))
        block = full[top:top + height + 2]  # the title line, the column numbers, one line per map row
        start = narrow.index("map")
        left, gap, right = narrow[start:start + height + 2], narrow[start + height + 2], narrow[start + height + 3:]
        right = right[:height + 2]
        assert gap == "" and right[0] in ("belief (? may be here, x guessed)", "stroke (order, @ = here)")
        column = max(map(len, left))
        assert [a.ljust(column) + "    " + b for a, b in zip(left, right)] == block  # the same cells, stacked
        assert all(len(line) <= 40 for line in narrow), [line for line in narrow if len(line) > 40]


def test_at_80_columns_map_and_panel_stay_side_by_side():
    env = table_after(12)
    full, narrow = env.render_text(None), env.render_text(None, width=80)
    grid = [line for line in full.splitlines() if line.startswith(("map ", "    ", "  "))]
    assert grid and all(line in narrow.splitlines() for line in grid)
    assert all(len(line) <= 80 for line in narrow.splitlines())


def test_play_fits_the_table_to_a_40_column_terminal(monkeypatch, capsys):
    monkeypatch.setattr(text_layout, "terminal_width", lambda stream=None: 40)
    typed = typist(capsys, ["q", "q"])
    monkeypatch.setattr("builtins.input", typed)
    assert main(["play", NAME, "--seat", "0", "--seed", "1"]) == 130
    out = "".join(typed.printed) + capsys.readouterr().out
    assert all(len(line) <= 40 for line in out.split("Your moves", 1)[0].splitlines())  # the header lines too
    table = out.split("\n" + "-" * 40 + "\n", 1)[1].split("Your moves", 1)[0]  # the separator fits as well
    assert "\nmap\n" in table and "belief" not in table.split("\nmap\n")[0]
    assert all(len(line) <= 40 for line in table.splitlines()), [line for line in table.splitlines() if len(line) > 40]
    assert "Your moves (type a [key] or a move's\n    words" in out  # the prompt's words wrapped too


def test_play_fits_the_seekers_menu_and_its_hints_to_a_40_column_terminal(monkeypatch, capsys):
    """The table fitted 40 columns but the moves below it did not: the seeker's squares, row beside row, and the
    hints after a wrong answer ran past the edge, and the terminal broke them inside a square."""
    monkeypatch.setattr(text_layout, "terminal_width", lambda stream=None: 40)
    typed = typist(capsys, ["place", "zz", "q", "q"])
    monkeypatch.setattr("builtins.input", typed)
    assert main(["play", NAME, "--seat", "1", "--seed", "1"]) == 130  # a seeker first
    out = "".join(typed.printed) + capsys.readouterr().out
    menu = out.split("Your moves", 1)[1]
    assert "place piece on" in menu and "fits 56 moves" in menu and "'zz' is not a legal move" in menu
    assert all(len(line) <= 40 for line in out.splitlines()), [line for line in out.splitlines() if len(line) > 40]
