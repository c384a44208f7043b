"""Animal Chain in a narrow terminal: the board rows stay whole, a base row's label moves below it, prose wraps."""

from __future__ import annotations

import re

import numpy as np

from kakurega.envs.registry import latest_version, make

NAME = latest_version("animal_chain")


def test_at_40_columns_only_the_board_rows_stay_wider_and_their_labels_move_below():
    env = make(NAME, wrapped=False)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(40):
        env.step(int(rng.choice(env.legal_actions())))
    for viewer in [None, *env.possible_agents]:
        full, narrow = env.render_text(viewer).splitlines(), env.render_text(viewer, width=40).splitlines()
        rows = [line for line in full if re.match(r"r\d+ \| ", line)]
        assert len(rows) == env.game.shape.num_rows
        for row in rows:
            cells, _, label = row.partition("   <- ")
            assert cells in narrow  # the row itself, cell by cell, as the full render draws it
            if label:  # the base rows: the label on the next line, under the cells
                assert narrow[narrow.index(cells) + 1] == "     <- " + label
        wider = [line for line in narrow if len(line) > 40]
        assert wider and all(re.match(r"r\d+ \| ", line) and "<-" not in line for line in wider), wider
        # a legend sign stays with its first word
        legend = "\n".join(narrow[next(i for i, line in enumerate(narrow) if line.startswith("legend:")):])
        for sign in ("[L|R] face", "[#####] face", "( ) hole"):
            assert sign in legend


def test_at_80_columns_the_board_is_drawn_as_in_full():
    env = make(NAME, wrapped=False)
    env.reset(seed=3)
    full, narrow = env.render_text("player_0"), env.render_text("player_0", width=80)
    rows = [line for line in full.splitlines() if line.startswith("r")]
    assert rows and all(len(row) <= 80 and row in narrow.splitlines() for row in rows)
    assert all(len(line) <= 80 for line in narrow.splitlines())
