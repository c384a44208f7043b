"""KAKURENBO's outcomes follow the rules' ``winners`` whatever the reward: with ``reward=points`` a Kurayami game
nobody won is a draw, not a win of the seat with the most points (``agents/outcome.py``); and the zero-sum
rewards' mean-reward interval is the score's through their affine relation (``agents/tournament.py``)."""

from __future__ import annotations

import pytest

from kakurega.agents.outcome import DRAW, classify_outcome
from kakurega.agents.tournament import run_tournament
from kakurega.envs.registry import make


def test_kurayami_points_nobody_won_is_a_draw_not_the_top_points_seat():
    options = {"num_players": 3, "variant": "kurayami", "reward": "points"}
    game = make("kakurenbo_v1", wrapped=False, **options).game
    games = []

    def on_game(record):
        assert record.winners == tuple(sorted(game.winners(record.final_state)))
        games.append((record.winners, list(record.returns), record.focal_seat))

    points = run_tournament("kakurenbo_v1", ["random", "heuristic"], options, 60, 0, on_game=on_game)
    nobody = [g for g in games if not g[0]]
    assert nobody and any(len(set(ret)) > 1 for _, ret, _ in nobody)  # points differ, yet nobody won
    assert all(classify_outcome(ret, seat, winners) == DRAW for winners, ret, seat in nobody)
    assert sum(row["draws"] for row in points.per_agent) == len(nobody)  # each game counts its focal seat once
    # the figures are those of the default zero-sum reward on the same games (it pays exactly the rules' winners)
    zero_sum = run_tournament("kakurenbo_v1", ["random", "heuristic"], {**options, "reward": "zero_sum"}, 60, 0)
    for a, b in zip(points.per_agent, zero_sum.per_agent):
        assert {k: a[k] for k in ("wins", "shared_wins", "draws", "losses", "score")} == {
            k: b[k] for k in ("wins", "shared_wins", "draws", "losses", "score")}
    assert points.head_to_head == zero_sum.head_to_head and points.ties == zero_sum.ties


def test_score_like_rewards_get_the_scores_interval_through_the_affine_relation():
    result = run_tournament("kakurenbo_v1", ["heuristic", "random"], {"num_players": 3}, 30, 1)
    for row in result.per_agent:  # zero-sum rewards: reward = -1/2 + 3/2 * share
        assert row["mean_reward_ci95"] == pytest.approx([-0.5 + 1.5 * x for x in row["score_ci95"]])
