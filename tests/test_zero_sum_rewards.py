"""Zero-sum rewards of KAKURENBO v1 and Summer Hide-and-Seek v2, and the old scheme kept exactly.

Rules pages: "[decision, next version — zero-sum rewards]": with n players and
k tied winners each winner gets n/(n-1) * (1/k - 1/n), every other player
n/(n-1) * (-1/n); the old reward stays as ``reward="shared_win"``.
"""

from __future__ import annotations

import numpy as np
import pytest

from kakurega.envs import make
from kakurega.envs.core.rewards import shared_win_returns, zero_sum_returns
from kakurega.envs.kakurenbo.rules import KakurenboGame
from kakurega.envs.summer_hide_and_seek.rules import OVER, SummerHideAndSeekGame


def expected_zero_sum(n: int, winners) -> list[float]:
    """The rules page's formula, written out independently of ``envs.core.rewards``."""
    if not winners:
        return [0.0] * n
    k = len(winners)
    return [n / (n - 1) * ((1 / k if seat in winners else 0.0) - 1 / n) for seat in range(n)]


# ------------------------------------------------------------------ the formula
@pytest.mark.parametrize("n, winners, expected", [
    (2, [0], [1.0, -1.0]),
    (2, [0, 1], [0.0, 0.0]),
    (3, [1], [-0.5, 1.0, -0.5]),
    (4, [2], [-1 / 3, -1 / 3, 1.0, -1 / 3]),
    (4, [0, 3], [1 / 3, -1 / 3, -1 / 3, 1 / 3]),
    (4, [0, 1, 2, 3], [0.0, 0.0, 0.0, 0.0]),
    (5, [], [0.0] * 5),
])
def test_the_rules_pages_examples(n, winners, expected):
    assert zero_sum_returns(n, winners).tolist() == pytest.approx(expected)
    assert zero_sum_returns(n, winners).tolist() == pytest.approx(expected_zero_sum(n, winners))


def test_a_lone_winner_gets_more_than_a_shared_win_and_every_scheme_sums_to_zero():
    for n in range(2, 6):
        lone = zero_sum_returns(n, [0])[0]
        for k in range(1, n + 1):
            rewards = zero_sum_returns(n, list(range(k)))
            assert rewards.sum() == pytest.approx(0.0, abs=1e-12)
            if 1 < k:
                assert rewards[0] < lone
        # the control: the old scheme pays a tie like a win and does not sum to zero
        assert shared_win_returns(n, [0, 1])[0] == shared_win_returns(n, [0])[0] == 1.0
        assert any(shared_win_returns(n, list(range(k))).sum() != 0 for k in range(1, n + 1))


# ------------------------------------------------------------------ KAKURENBO
def kakurenbo_end(n: int, variant: str, reward: str, scores, curse_holder: int, empty=(), truncated=False):
    """A finished KAKURENBO game: these scores, the Curse with ``curse_holder``, ``empty`` seats without cards."""
    game = KakurenboGame(variant=variant, num_players=n, reward=reward)
    state = game.initial_state(np.random.default_rng(0))
    state.scores = list(scores)
    state.curse_holder = curse_holder
    state.hands = [[] if seat in empty else [0] for seat in range(n)]
    if curse_holder >= 0:
        state.hands[curse_holder] = [14]
    if truncated:
        state.steps = game.max_steps  # cut off by the step limit: scored as if it had ended
    else:
        state.over = True
    return game, state


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("truncated", [False, True], ids=["ended", "truncated"])
def test_kakurenbo_endings(n, truncated):
    others = list(range(1, n))
    cases = [
        # (scores, Curse holder, winners): a lone winner
        ([3] + [1] * (n - 1), n - 1, [0]),
        # a two-way tie at the top
        ([4, 4] + [0] * (n - 2), n - 1, [0, 1]),
        # the final Curse holder has the most points: they are void, so it never wins
        ([9] + [2] + [1] * (n - 2), 0, [1]),
        # every final score 0: the players without the Curse share the win
        ([0] * n, 0, others),
    ]
    for scores, holder, winners in cases:
        game, state = kakurenbo_end(n, "kakurenbo", "zero_sum", scores, holder, truncated=truncated)
        assert game.winners(state) == winners
        rewards = game.returns(state)
        assert rewards.tolist() == pytest.approx(expected_zero_sum(n, winners))
        assert rewards.sum() == pytest.approx(0.0, abs=1e-12)
        assert rewards[holder] == pytest.approx(-1 / (n - 1))  # the Curse holder always loses
        if len(winners) > 1:
            assert rewards[winners[0]] < 1.0  # a shared win pays less than a win
        for old in ("shared_win", "win"):
            game, state = kakurenbo_end(n, "kakurenbo", old, scores, holder, truncated=truncated)
            assert game.returns(state).tolist() == [1.0 if s in winners else -1.0 for s in range(n)]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_kurayami_endings_winners_only_among_empty_hands(n):
    # seats 1 and 2 have emptied their hands with equal scores: they share the win, even against seat 0's more points
    game, state = kakurenbo_end(n, "kurayami", "zero_sum", [5, 2, 2] + [0] * (n - 3), 0, empty=(1, 2))
    assert game.returns(state).tolist() == pytest.approx(expected_zero_sum(n, [1, 2]))
    # nobody emptied a hand (a cut-off game): nobody wins; zero-sum pays 0 to all, the old scheme -1 to all
    game, state = kakurenbo_end(n, "kurayami", "zero_sum", [5] * n, 0, truncated=True)
    assert game.winners(state) == [] and game.returns(state).tolist() == [0.0] * n
    game, state = kakurenbo_end(n, "kurayami", "shared_win", [5] * n, 0, truncated=True)
    assert game.returns(state).tolist() == [-1.0] * n


def test_no_reward_before_the_end_and_points_mode_unchanged():
    game = KakurenboGame(reward="zero_sum")
    state = game.initial_state(np.random.default_rng(1))
    assert game.returns(state).tolist() == [0.0] * 4
    _, state = kakurenbo_end(4, "kakurenbo", "points", [3, 2, 1, 7], 3)
    assert KakurenboGame(reward="points").returns(state).tolist() == [3.0, 2.0, 1.0, 0.0]


# ------------------------------------------------------------------ Summer
def summer_end(n: int, reward: str, vp, truncated=False):
    game = SummerHideAndSeekGame(num_players=n, reward=reward, must_move=True, score_truncation=True,
                                 paced_turns=True)
    state = game.initial_state(np.random.default_rng(0))
    state.vp = list(vp)
    if truncated:
        state.steps = game.max_steps
    else:
        state.phase = OVER
    return game, state


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("truncated", [False, True], ids=["ended", "truncated"])
def test_summer_endings(n, truncated):
    cases = [([30] + [10] * (n - 1), [0]), ([20, 20] + [5] * (n - 2), [0, 1]), ([12] * n, list(range(n)))]
    for vp, winners in cases:
        game, state = summer_end(n, "zero_sum", vp, truncated)
        rewards = game.returns(state)
        assert rewards.tolist() == pytest.approx(expected_zero_sum(n, winners))
        assert rewards.sum() == pytest.approx(0.0, abs=1e-12)
        game, state = summer_end(n, "shared_win", vp, truncated)
        assert game.returns(state).tolist() == [1.0 if s in winners else -1.0 for s in range(n)]
    # two players: a win +1/-1, a tie 0/0 (the shared-win scheme paid +1 to both)
    if n == 2:
        game, state = summer_end(2, "zero_sum", [7, 7], truncated)
        assert game.returns(state).tolist() == [0.0, 0.0]
        game, state = summer_end(2, "shared_win", [7, 7], truncated)
        assert game.returns(state).tolist() == [1.0, 1.0]


# ------------------------------------------------------------------ whole games through the env
GAMES = [
    ("kakurenbo_v1", "kakurenbo_v0", {"variant": v, "num_players": n}) for v in ("kakurenbo", "kurayami") for n in (3, 4, 5)
] + [("summer_hide_and_seek_v2", "summer_hide_and_seek_v1", {"num_players": n}) for n in (2, 3, 4)]


def play(env, seed: int) -> list[float]:
    """A random game through the AEC loop; every seat's summed rewards."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"])))
        env.step(action)
    return [totals[a] for a in env.possible_agents]


@pytest.mark.parametrize("new, old, options", GAMES, ids=lambda x: str(x))
def test_random_games_zero_sum_by_default_and_the_old_option_reproduces_the_old_version(new, old, options):
    default = make(new, **options)
    assert default.unwrapped.options["reward"] == "zero_sum"
    shared, previous = make(new, reward="shared_win", **options), make(old, **options)
    n = len(default.possible_agents)
    for seed in range(12):
        rewards = play(default, seed)
        assert sum(rewards) == pytest.approx(0.0, abs=1e-9)
        winners = default.unwrapped.game.winners(default.unwrapped.game_state)
        assert rewards == pytest.approx(expected_zero_sum(n, winners))
        # the old scheme: bit for bit the previous version's rewards on the same game
        assert play(shared, seed) == play(previous, seed)


@pytest.mark.parametrize("n, winners", [(1, []), (1, [0]), (0, [])])
def test_zero_sum_returns_refuses_fewer_than_two_players(n, winners):
    """The zero-sum formula divides by n - 1 (rules pages, "zero-sum rewards": each winner gets
    n/(n-1) x (1/k - 1/n)): it is defined for 2 players or more, and refuses fewer with a ValueError."""
    with pytest.raises(ValueError, match=rf"zero-sum rewards need at least 2 players, got {n}"):
        zero_sum_returns(n, winners)
