"""KAKURENBO's picture: the end of a game told in full, the seat titles clear of the scores."""

from __future__ import annotations

import numpy as np
import pytest

from kakurega.envs.core.picture import Text, text_box
from kakurega.envs.registry import make


def finished_game(num_players: int, seed: int):
    env = make("kakurenbo_v1", wrapped=False, num_players=num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(int(rng.choice(env.legal_actions())))
    return env


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_the_final_scores_and_every_winner_are_drawn_in_full(num_players):
    for seed in range(3):
        env = finished_game(num_players, seed)
        game, state = env.unwrapped.game, env.game_state
        for view in [None, *env.possible_agents]:
            words = " ".join(s.text for s in env.scene(view).shapes if isinstance(s, Text))
            final = game.final_scores(state)
            assert "final: " + ", ".join(f"p{s} {final[s]}" for s in range(num_players)) in words
            winners = ", ".join(game.seat_name(s) for s in game.winners(state)) or "nobody"
            assert "winners: " + winners in words.replace("\n", " ")
            assert "…" not in words  # nothing cut short


def test_a_long_seat_title_shrinks_to_clear_the_score():
    env = finished_game(5, 0)
    state = env.game_state
    state.curse_holder, state.open_hand[2], state.scores[2] = 2, True, 12
    scene = env.scene("player_0")
    title = next(s for s in scene.shapes if isinstance(s, Text) and "holds the Curse" in s.text)
    score = next(s for s in scene.shapes if isinstance(s, Text) and s.text == "12 pts")
    assert "open hand" in title.text and title.size < 15
    assert text_box(title)[2] < text_box(score)[0]
