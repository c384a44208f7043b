"""KAKURENBO in a narrow terminal: a hand is wrapped between cards, never inside one."""

from __future__ import annotations

import numpy as np

from kakurega.envs.kakurenbo.render import hand_pictures
from kakurega.envs.registry import latest_version, make

NAME = latest_version("kakurenbo")


def test_at_40_columns_hands_wrap_between_cards():
    env = make(NAME, wrapped=False, num_players=4)
    env.reset(seed=6)
    rng = np.random.default_rng(6)
    for _ in range(3):
        env.step(int(rng.choice(env.legal_actions())))
    game, state = env.game, env.game_state
    for viewer in [None, *range(game.num_players)]:
        full = env.render_state(state, viewer)
        narrow = env.render_state(state, viewer, width=40)
        assert max(map(len, full.splitlines())) > 40 and all(len(line) <= 40 for line in narrow.splitlines())
        known = game.known_row(state, viewer) if viewer is not None else None
        for seat in range(game.num_players):
            lines = narrow.splitlines()
            start = next(i for i, line in enumerate(lines) if line.startswith(f"  {game.seat_name(seat)}"))
            end = next(i for i in range(start + 1, len(lines) + 1) if i == len(lines) or lines[i][:6] != " " * 6)
            seat_lines = lines[start:end]  # the seat's line and its continuation lines
            words = " ".join(" ".join(seat_lines).split())
            shown = hand_pictures(state, seat, known)
            assert words.endswith("; hand " + (" ".join(shown) or "(empty)"))
            for card in shown:  # every card whole on one line
                assert any(card in line for line in seat_lines), (card, seat_lines)
