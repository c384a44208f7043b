"""Outcomes follow the rules' winners where the rules say who won (``agents/outcome.py``; the games' own cases
are tested beside each game: ``test_outcome_*.py``), and the mean reward's interval stays within the game's bounds
and never collapses (``agents/tournament.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kakurega.agents.outcome import DRAW, LOSS, SHARED, WIN, classify_outcome, win_share
from kakurega.agents.tournament import mean_interval, run_tournament, wilson_interval
from kakurega.envs.registry import make


# ------------------------------------------------------------------ outcomes from the rules
def test_winners_decide_over_returns():
    assert classify_outcome([0.0], 0, winners=(0,)) == WIN  # a Hidden Rooms match won 2 escapes to 2 fails
    assert classify_outcome([1.5], 0, winners=()) == LOSS  # a lost match whose shaped return is positive
    assert win_share([0.0], 0, winners=(0,)) == 1.0 and win_share([1.5], 0, winners=()) == 0.0
    # nobody won (Kurayami): a draw for all, however the points fell
    assert [classify_outcome([7.0, 2.0, 0.0], s, winners=()) for s in range(3)] == [DRAW] * 3
    assert [win_share([7.0, 2.0, 0.0], s, winners=()) for s in range(3)] == [1 / 3] * 3
    # the rules' winner is not the seat with the most points (the Curse-free emptied hand wins)
    assert [classify_outcome([7.0, 2.0, 0.0], s, winners=(1,)) for s in range(3)] == [LOSS, WIN, LOSS]
    assert [classify_outcome([7.0, 2.0, 2.0], s, winners=(1, 2)) for s in range(3)] == [LOSS, SHARED, SHARED]
    assert [win_share([7.0, 2.0, 2.0], s, winners=(1, 2)) for s in range(3)] == [0.0, 0.5, 0.5]
    # control: without winners the returns decide, as before
    assert classify_outcome([0.0], 0) == DRAW and win_share([0.0], 0) == 0.5
    assert [classify_outcome([7.0, 2.0, 0.0], s) for s in range(3)] == [WIN, LOSS, LOSS]


@pytest.mark.parametrize("scheme", ["zero_sum", "shared_win"])
@pytest.mark.parametrize("winners", [(0,), (1,), (0, 2), (0, 1, 2), ()])
def test_the_default_rewards_give_the_same_outcome_either_way(scheme, winners):
    from kakurega.envs.core.rewards import win_returns

    returns = win_returns(scheme, 3, winners).tolist()
    for seat in range(3):
        assert classify_outcome(returns, seat, winners) == classify_outcome(returns, seat)
        assert win_share(returns, seat, winners) == pytest.approx(win_share(returns, seat))


# ------------------------------------------------------------------ the mean reward's interval
def _old_normal(rewards):
    r = np.asarray(rewards, dtype=float)
    half = 1.96 * r.std(ddof=1) / math.sqrt(r.size)
    return r.mean() - half, r.mean() + half


def _default_configs():
    from kakurega.envs.registry import ENV_SPECS

    return sorted(ENV_SPECS)


@pytest.mark.parametrize("env", _default_configs())
def test_default_rewards_judged_by_the_rules_or_by_returns_agree_on_every_game(env):
    """With every env's default options the rules' winners change no outcome (the tables stay as they were)."""
    checked = []

    def on_game(record):
        for seat in range(len(record.returns)):
            assert classify_outcome(record.returns, seat, record.winners) == classify_outcome(record.returns, seat)
            assert win_share(record.returns, seat, record.winners) == pytest.approx(win_share(record.returns, seat))
        checked.append(record.winners)

    rows = run_tournament(env, ["heuristic", "random"], {}, 12, 3, on_game=on_game).per_agent
    assert checked
    bounds = make(env, wrapped=False).game.return_bounds()
    for row in rows:  # the mean reward's interval: within the game's bounds, never of zero width
        low, high = row["mean_reward_ci95"]
        assert bounds[0] <= low < high <= bounds[1]


def test_every_reward_equal_gives_an_interval_of_positive_width_within_the_bounds():
    low, high = mean_interval([1.0] * 20, (-1.0, 1.0))
    assert high == 1.0 and -1.0 < low < 1.0
    assert (low + 1) / 2 == pytest.approx(wilson_interval(20, 20)[0])
    assert _old_normal([1.0] * 20) == (1.0, 1.0)  # control: the normal interval collapsed


def test_the_interval_is_clipped_to_the_bounds():
    rewards = [-1.0] * 7 + [1.0]  # -0.750 on a +/-1 game, 8 games
    old = _old_normal(rewards)
    assert old[0] < -1.0  # control: the normal interval left the reward range ([-1.240, -0.260])
    low, high = mean_interval(rewards, (-1.0, 1.0))
    assert -1.0 <= low < -0.75 < high <= 1.0
    # three values or more, not the score: the normal interval, clipped
    many = [-3.0, -3.0, -3.0, -2.0, -1.0, -3.0]
    assert _old_normal(many)[0] < -3.0 and mean_interval(many, (-3.0, 2.0))[0] == -3.0
    assert mean_interval(many, (-3.0, 2.0))[1] == pytest.approx(_old_normal(many)[1])
    assert mean_interval([], (-1.0, 1.0)) == (-1.0, 1.0)


def _coverage(draw, bounds, score_like, truth, n, reps=3000, seed=0):
    rng = np.random.default_rng(seed)
    hits_new = hits_old = 0
    for _ in range(reps):
        rewards = draw(rng, n)
        low, high = mean_interval(rewards, bounds, score_like)
        hits_new += low <= truth <= high
        if np.ptp(rewards) > 0:
            low, high = _old_normal(rewards)
            hits_old += low <= truth <= high
    return hits_new / reps, hits_old / reps


def test_coverage_in_a_small_simulation():
    # a +/-1 game won 95% of the time, 20 games: the normal interval covered the mean about 64% of the time
    def wins(rng, n):
        return np.where(rng.random(n) < 0.95, 1.0, -1.0)

    new, old = _coverage(wins, (-1.0, 1.0), False, 0.9, 20)
    assert new >= 0.90 and old < 0.70
    # win / draw / loss (+1 / 0 / -1) at 0.80 / 0.15 / 0.05: score-like, the Wilson interval of the score
    def chess(rng, n):
        return rng.choice([1.0, 0.0, -1.0], size=n, p=[0.80, 0.15, 0.05])

    new, old = _coverage(chess, (-1.0, 1.0), True, 0.75, 20)
    assert new >= 0.93 and old < new
